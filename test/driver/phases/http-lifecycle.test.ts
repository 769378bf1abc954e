// The http phase's lifecycle edges on a session of their own, against real servers started as the phase
// starts them: not run after a failed round trip, failed (the first, the rest not run) without a session,
// and run on a session of their own otherwise.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIFECYCLE_IDS, type LifecycleTimes } from '../../../src/driver/lifecycle/checks.js';
import { freePort, waitUntilListening } from '../../../src/driver/http/listen-watch.js';
import { httpLifecycle } from '../../../src/driver/phases/http-lifecycle.js';
import { TEST_SERVER } from '../helpers/cell.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { levels } from '../helpers/levels.js';

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-http-lifecycle-');
});
afterAll(() => bench?.dispose());

const TOKEN = 'lifecycle-token-0123456789abcdef';

/**
 * A real server on a free loopback port, listening; the phase's token in MCP_SERVER_TOKEN. Another test file's process
 * can truly take the picked port before the server listens there: then once more on a new port, as the harness does.
 */
async function started(bin: string) {
  const ctx = bench.context();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort('127.0.0.1');
    const proc = ctx.startServer(
      'http',
      { bin, args: ['--transport', 'http', '--host', '127.0.0.1', '--port', String(port)], env: {} },
      { ...ctx.spec.baseEnv, MCP_SERVER_TOKEN: TOKEN },
    );
    const ready = await waitUntilListening(proc, '127.0.0.1', port, 10_000);
    if (ready.ok) return { proc, url: `http://127.0.0.1:${port}/mcp` };
    await proc.kill();
    const raced = ready.step === 'port identity' || /EADDRINUSE/.test(proc.stderr.tail());
    expect(raced && attempt === 1, `not listening: ${ready.reason}; stderr: ${proc.stderr.tail()}`).toBe(true);
  }
}

describe('httpLifecycle', () => {
  it('after a failed round trip: every edge not run, at its level (configured, or its default), the cause named', async () => {
    const { proc, url } = await started(TEST_SERVER);
    try {
      const details: Record<string, unknown> = {};
      const checks = await httpLifecycle(
        { steps: [], timeoutMs: 5000, checks: levels('http', { 'unknown-tool': 'warn', cancellation: 'off' }) },
        url,
        `Bearer ${TOKEN}`,
        proc,
        false,
        details,
      );
      expect(checks.map((c) => [c.id, c.outcome, c.level, c.message, c.short])).toEqual([
        ['unknown-method', 'skipped', 'require', 'not run: the round trip failed', 'not run'],
        ['unknown-tool', 'skipped', 'warn', 'not run: the round trip failed', 'not run'],
        ['invalid-arguments', 'skipped', 'require', 'not run: the round trip failed', 'not run'],
        ['repeated-initialize', 'skipped', 'require', 'not run: the round trip failed', 'not run'],
        ['cancellation', 'skipped', 'off', expect.stringContaining('off'), expect.any(String)],
      ]);
      expect(checks.every((c) => c.step === undefined)).toBe(true);
      expect(details).toEqual({});
    } finally {
      proc.terminate();
      await proc.waitExit(5000);
    }
  }, 30_000);

  it('no session of their own (the token refused): the first edge fails naming why, the rest are not run', async () => {
    const { proc, url } = await started(TEST_SERVER);
    try {
      const details: Record<string, unknown> = {};
      const checks = await httpLifecycle({ steps: [], timeoutMs: 5000, checks: levels('http') }, url, 'Bearer wrong', proc, true, details);
      // The time spent trying is theirs: no check ran.
      expect(details.lifecycle).toEqual({ durationMs: expect.any(Number), sessionMs: expect.any(Number), checks: [] });
      expect(checks.map((c) => c.id)).toEqual([...LIFECYCLE_IDS]);
      expect(checks[0]).toMatchObject({
        id: 'unknown-method',
        outcome: 'failed',
        level: 'require',
        short: 'no session',
        step: 'lifecycle session',
      });
      expect(checks[0]!.message).toMatch(/^the lifecycle checks' .*401/);
      for (const c of checks.slice(1)) {
        expect([c.outcome, c.message, c.short, c.step]).toEqual(['skipped', 'not run: no session of their own', 'not run', undefined]);
      }
    } finally {
      proc.terminate();
      await proc.waitExit(5000);
    }
  }, 30_000);

  it('no session of their own with the first edge off: the first edge that is on fails, so the failure is not lost', async () => {
    const { proc, url } = await started(TEST_SERVER);
    try {
      const checks = await httpLifecycle(
        { steps: [], timeoutMs: 5000, checks: levels('http', { 'unknown-method': 'off' }) },
        url,
        'Bearer wrong',
        proc,
        true,
        {},
      );
      expect(checks.map((c) => [c.id, c.outcome, c.level, c.short])).toEqual([
        ['unknown-method', 'skipped', 'off', 'off'],
        ['unknown-tool', 'failed', 'require', 'no session'],
        ['invalid-arguments', 'skipped', 'require', 'not run'],
        ['repeated-initialize', 'skipped', 'require', 'not run'],
        ['cancellation', 'skipped', 'require', 'not run'],
      ]);
      expect(checks[1]!.message).toMatch(/^the lifecycle checks' .*401/);
      // Every edge off: nothing to fail, and no session is opened.
      const off = Object.fromEntries(LIFECYCLE_IDS.map((id) => [id, 'off' as const]));
      const none = await httpLifecycle({ steps: [], timeoutMs: 5000, checks: off }, url, 'Bearer wrong', proc, true, {});
      expect(none.every((c) => c.outcome === 'skipped' && c.level === 'off')).toBe(true);
    } finally {
      proc.terminate();
      await proc.waitExit(5000);
    }
  }, 30_000);

  it('with a session of their own: every edge is judged by the lifecycle checks, with the right token', async () => {
    const { proc, url } = await started(TEST_SERVER);
    try {
      const details: Record<string, unknown> = {};
      const checks = await httpLifecycle(
        { steps: [], timeoutMs: 5000, checks: levels('http') },
        url,
        `Bearer ${TOKEN}`,
        proc,
        true,
        details,
      );
      expect(checks.map((c) => c.id)).toEqual([...LIFECYCLE_IDS]);
      expect(checks[0]).toMatchObject({ id: 'unknown-method', outcome: 'passed' });
      expect(checks.some((c) => c.short === 'no session' || c.message.startsWith('not run: the round trip'))).toBe(false);
      expect(Object.keys(details).length).toBeGreaterThan(0);
      // Their time includes opening their own session.
      const times = details.lifecycle as LifecycleTimes;
      expect(times.checks.map((c) => c.id)).toEqual([...LIFECYCLE_IDS]);
      expect(times.sessionMs).toBeGreaterThan(0);
      expect(times.durationMs).toBeGreaterThanOrEqual(times.sessionMs! + times.checks.reduce((x, c) => x + c.durationMs, 0));
    } finally {
      proc.terminate();
      await proc.waitExit(5000);
    }
  }, 30_000);

  it('opens its session as the driver: initialize names the client mcp-matrix-driver 0.1.0', async () => {
    const log = join(bench.cell, 'initialize.log');
    // Records each initialize's params; answers it, takes notifications, and refuses anything else as unknown.
    const bin = bench.server(
      'recording.mjs',
      `import http from 'node:http';
import { appendFileSync } from 'node:fs';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const msg = body ? JSON.parse(body) : {};
    if (msg.method === 'initialize') {
      appendFileSync(${JSON.stringify(log)}, JSON.stringify(msg.params) + '\\n');
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'r', version: '1' } } }));
    }
    if (msg.id === undefined) return res.writeHead(202).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no' } }));
  });
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`,
    );
    const { proc, url } = await started(bin);
    try {
      await httpLifecycle({ steps: [], timeoutMs: 1000, checks: levels('http') }, url, undefined, proc, true, {});
      const first = JSON.parse(readFileSync(log, 'utf8').split('\n')[0]!) as { clientInfo: unknown };
      expect(first.clientInfo).toEqual({ name: 'mcp-matrix-driver', version: '0.1.0' });
    } finally {
      proc.terminate();
      await proc.waitExit(5000);
    }
  }, 30_000);
});
