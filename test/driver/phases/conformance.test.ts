// The conformance phase's verdict rules: the suite's checks.json → a scenario → a sub-check → the phase.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformancePhase } from '../../../src/driver/phases/conformance.js';
import { advertises, judgeScenario, outOfScope, scenarioCheck, summarize } from '../../../src/driver/phases/conformance-judging.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { ROOT } from '../helpers/cell.js';
import { startAuthorizationServer } from '../../../src/cells/authorization-server.js';

type ConformanceSpec = Exclude<DriverSpec['phases']['conformance'], false | undefined>;

describe('conformance verdicts from the suite checks', () => {
  it('a FAILURE check fails the scenario with its id and message; WARNING passes, named; INFO alone is not measured', () => {
    const failed = judgeScenario(
      'ping',
      [
        { id: 'ping', status: 'FAILURE', errorMessage: 'bad answer' },
        { id: 'x', status: 'SUCCESS' },
      ],
      5,
    );
    expect([failed.verdict, failed.message]).toEqual(['failed', 'ping: bad answer']);
    const warned = judgeScenario('s', [{ id: 'w', status: 'WARNING', errorMessage: 'no session' }], 5);
    expect([warned.verdict, warned.message]).toEqual(['passed', 'warning: w: no session']);
    expect(judgeScenario('s', [{ id: 'i', status: 'INFO' }], 5).verdict).toBe('not-measured');
  });

  it('a status the harness does not know is never counted as passed; a FAILURE beside it still fails', () => {
    const skipped = judgeScenario(
      's',
      [
        { id: 'a', status: 'SUCCESS' },
        { id: 'b', status: 'SKIPPED' },
      ],
      5,
    );
    expect([skipped.verdict, skipped.message]).toEqual([
      'not-measured',
      'the suite reported a status the harness does not know: b: SKIPPED',
    ]);
    const failed = judgeScenario(
      's',
      [
        { id: 'b', status: 'SKIPPED' },
        { id: 'c', status: 'FAILURE', errorMessage: 'no' },
      ],
      5,
    );
    expect([failed.verdict, failed.message]).toEqual(['failed', 'c: no']);
    const two = judgeScenario(
      's',
      [
        { id: 'b', status: 'SKIPPED' },
        { id: 'c', status: 'PENDING' },
      ],
      5,
    );
    expect(two.message).toBe('the suite reported a status the harness does not know: b: SKIPPED; c: PENDING');
  });

  it('warn-level scenarios the suite could not judge are named apart, each', () => {
    const ok = judgeScenario('ping', [{ id: 'ping', status: 'SUCCESS' }], 1);
    const lost = (name: string) => outOfScope({ ...judgeScenario(name, [{ id: 'i', status: 'INFO' }], 1) });
    expect(summarize([ok, lost('a'), lost('b')]).message).toMatch(
      /^1\/3 scenarios passed: ping; not measured \(warn\): a \(the suite recorded no check \(level warn: .*\)\); b \(the suite recorded no check /,
    );
  });

  it('the phase fails on any failed scenario (named), is not measured when one could not run, passes otherwise', () => {
    const ok = judgeScenario('ping', [{ id: 'ping', status: 'SUCCESS' }], 1);
    const bad = judgeScenario('dns', [{ id: 'r', status: 'FAILURE', errorMessage: 'got 200' }], 1);
    const lost = {
      name: 'tools-list',
      verdict: 'not-measured' as const,
      message: 'timed out',
      checks: [],
      durationMs: 1,
      level: 'require' as const,
      specUrls: [],
    };
    expect(summarize([ok, bad, lost])).toEqual({
      verdict: 'failed',
      step: 'dns',
      message: '1 of 3 scenario(s) failed: dns (r: got 200); not measured: tools-list (timed out)',
    });
    expect(summarize([ok, lost])).toMatchObject({ verdict: 'not-measured', step: 'tools-list' });
    expect(summarize([ok])).toEqual({ verdict: 'passed', message: '1/1 scenarios passed: ping' });
    expect(summarize([]).verdict).toBe('not-measured');
    // Out of the scenario's scope (behind a token): its failure is a warning, never the verdict.
    const shown = outOfScope(bad);
    expect([shown.verdict, shown.level]).toEqual(['failed', 'warn']);
    expect(shown.message).toMatch(/^r: got 200 \(level warn: .*requires a bearer token\)$/);
    expect(summarize([ok, shown])).toEqual({
      verdict: 'passed',
      message: `1/2 scenarios passed: ping; warn: dns (${shown.message})`,
    });
  });

  it('a scenario is a sub-check judged by the suite, sameAs our check of the spec section it cites', () => {
    const dns = judgeScenario(
      'dns-rebinding-protection',
      [
        {
          id: 'rebinding',
          status: 'FAILURE',
          errorMessage: 'got 200',
          specReferences: [{ url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning' }],
        },
      ],
      3,
    );
    const check = scenarioCheck(dns, '@modelcontextprotocol/conformance@0.1.16');
    expect(check).toMatchObject({
      id: 'dns-rebinding-protection',
      outcome: 'failed',
      level: 'require',
      judge: '@modelcontextprotocol/conformance@0.1.16',
      sameAs: 'origin',
      step: 'dns-rebinding-protection',
    });
    // Only origin cites that section: Host validation is the SDK's default, no spec text (issue 32 item 4).
    expect(check.evidence).not.toHaveProperty('sameAs');
    expect(scenarioCheck(judgeScenario('ping', [{ id: 'ping', status: 'SUCCESS' }], 1), 'x').sameAs).toBeUndefined();
    // A scenario citing two sections, each ours: the first is its sameAs, the evidence names both.
    const both = scenarioCheck(
      judgeScenario(
        'two',
        [
          {
            id: 'a',
            status: 'SUCCESS',
            specReferences: [
              { url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning' },
              { url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation' },
            ],
          },
        ],
        1,
      ),
      'x',
    );
    // Each once, though the lifecycle checks (cancellation among them) are listed once per phase.
    expect((both.evidence as { sameAs?: string[] }).sameAs).toEqual(['cancellation', 'origin']);
    expect(both.sameAs).toBe('cancellation');
  });
});

describe('the verdict rules in detail', () => {
  it('a scenario lists every check (message only when there is one), its spec URLs once each; INFO is never judged', () => {
    const s = judgeScenario(
      'tools-list',
      [
        { id: 'a', status: 'SUCCESS', specReferences: [{ url: 'https://x/1' }, { id: 'no-url' }] },
        { id: 'b', status: 'INFO', errorMessage: 'note', specReferences: [{ url: 'https://x/1' }, { url: 'https://x/2' }] },
        { id: 'c', status: 'FAILURE' },
        { id: 'd', status: 'FAILURE', errorMessage: 'second' },
      ],
      7,
    );
    expect(s).toEqual({
      name: 'tools-list',
      verdict: 'failed',
      message: 'c: FAILURE; d: second',
      checks: [
        { id: 'a', status: 'SUCCESS' },
        { id: 'b', status: 'INFO', message: 'note' },
        { id: 'c', status: 'FAILURE' },
        { id: 'd', status: 'FAILURE', message: 'second' },
      ],
      durationMs: 7,
      level: 'require',
      specUrls: ['https://x/1', 'https://x/2'],
    });
    expect(judgeScenario('s', [{ id: 'i', status: 'INFO' }], 2)).toEqual({
      name: 's',
      verdict: 'not-measured',
      message: 'the suite recorded no check',
      checks: [{ id: 'i', status: 'INFO' }],
      durationMs: 2,
      level: 'require',
      specUrls: [],
    });
    expect(judgeScenario('s', [], 2).verdict).toBe('not-measured');
    // An INFO beside a success does not stop the pass; no warning: no message at all.
    const ok = judgeScenario(
      's',
      [
        { id: 'i', status: 'INFO' },
        { id: 'k', status: 'SUCCESS' },
      ],
      2,
    );
    expect(ok.verdict).toBe('passed');
    expect(ok).not.toHaveProperty('message');
    const warned = judgeScenario(
      's',
      [
        { id: 'w', status: 'WARNING' },
        { id: 'v', status: 'WARNING', errorMessage: 'm' },
      ],
      2,
    );
    expect([warned.verdict, warned.message]).toEqual(['passed', 'warning: w: WARNING; v: m']);
  });

  it('out of scope without a message of its own: the reason alone, in parentheses', () => {
    const ok = judgeScenario('s', [{ id: 'k', status: 'SUCCESS' }], 1);
    expect(outOfScope(ok)).toEqual({
      ...ok,
      level: 'warn',
      message: '(level warn: the scenario is for servers without authentication and this endpoint requires a bearer token)',
    });
  });

  it('the summary names every failed and unmeasured scenario and counts the passes; warned ones are no verdict', () => {
    const ok = judgeScenario('ping', [{ id: 'p', status: 'SUCCESS' }], 1);
    const bad1 = judgeScenario('a', [{ id: 'x', status: 'FAILURE', errorMessage: '1' }], 1);
    const bad2 = judgeScenario('b', [{ id: 'y', status: 'FAILURE', errorMessage: '2' }], 1);
    const lost = (name: string, message?: string) => ({
      name,
      verdict: 'not-measured' as const,
      ...(message ? { message } : {}),
      checks: [],
      durationMs: 1,
      level: 'require' as const,
      specUrls: [],
    });
    expect(summarize([ok, bad1, bad2, lost('l1', 'gone'), lost('l2'), outOfScope(bad1)])).toEqual({
      verdict: 'failed',
      step: 'a',
      message: `2 of 6 scenario(s) failed: a (x: 1); b (y: 2); not measured: l1 (gone); l2 (not-measured); warn: a (${outOfScope(bad1).message})`,
    });
    expect(summarize([lost('l1', 'gone'), lost('l2'), ok])).toEqual({
      verdict: 'not-measured',
      step: 'l1',
      message: 'not measured: l1 (gone); l2 (not-measured)',
    });
    expect(summarize([ok, ok])).toEqual({ verdict: 'passed', message: '2/2 scenarios passed: ping, ping' });
    expect(summarize([])).toEqual({ verdict: 'not-measured', message: 'no scenario of the suite applies to this server' });
    // A warned scenario that was not measured is neither a failure nor unmeasured: named apart, never listed as passed.
    const warnedLost = { ...lost('w'), level: 'warn' as const };
    expect(summarize([ok, warnedLost])).toEqual({
      verdict: 'passed',
      message: '1/2 scenarios passed: ping; not measured (warn): w (not-measured)',
    });
  });

  it('a sub-check in full: passed says so, the evidence holds the checks, the spec and every own check of that section', () => {
    const url = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning';
    const ok = judgeScenario('dns', [{ id: 'r', status: 'SUCCESS', specReferences: [{ url }] }], 4);
    expect(scenarioCheck(ok, 'suite@1')).toEqual({
      id: 'dns',
      outcome: 'passed',
      level: 'require',
      message: 'passed',
      evidence: { checks: [{ id: 'r', status: 'SUCCESS' }], durationMs: 4, spec: [url] },
      judge: 'suite@1',
      sameAs: 'origin',
    });
    const lost = { ...ok, verdict: 'not-measured' as const, specUrls: [], checks: [] };
    expect(scenarioCheck(lost, 'suite@1')).toEqual({
      id: 'dns',
      outcome: 'not-measured',
      level: 'require',
      message: 'not-measured',
      evidence: { checks: [], durationMs: 4 },
      judge: 'suite@1',
    });
    const warned = judgeScenario('w', [{ id: 'w', status: 'WARNING', errorMessage: 'm' }], 1);
    expect(scenarioCheck(warned, 'j').message).toBe('warning: w: m');
    // The same section under another revision, or a URL that only contains it, is not ours.
    for (const other of [url.replace('2025-11-25', '2025-06-18'), `${url}-x`]) {
      const s = judgeScenario('dns', [{ id: 'r', status: 'SUCCESS', specReferences: [{ url: other }] }], 4);
      const check = scenarioCheck(s, 'j');
      expect(check).not.toHaveProperty('sameAs');
      expect(check.evidence).not.toHaveProperty('sameAs');
    }
  });

  it('advertises: a capability path present and not null/false', () => {
    expect(advertises({ tools: {} }, 'tools')).toBe(true);
    expect(advertises({ tools: { listChanged: true } }, 'tools')).toBe(true);
    expect(advertises({ resources: { subscribe: true } }, 'resources.subscribe')).toBe(true);
    expect(advertises({ resources: { subscribe: 0 } }, 'resources.subscribe')).toBe(true);
    expect(advertises({ resources: {} }, 'resources.subscribe')).toBe(false);
    expect(advertises({ resources: { subscribe: false } }, 'resources.subscribe')).toBe(false);
    expect(advertises({ resources: { subscribe: null } }, 'resources.subscribe')).toBe(false);
    expect(advertises({ resources: { subscribe: undefined } }, 'resources.subscribe')).toBe(false);
    expect(advertises({ resources: true }, 'resources.subscribe')).toBe(false);
    expect(advertises({ resources: null }, 'resources.subscribe')).toBe(false);
    expect(advertises({}, 'tools')).toBe(false);
    expect(advertises({ tools: false }, 'tools')).toBe(false);
  });
});

// The phase itself, from src in the test's own process: a real HTTP server (a few lines of Node) and a stand-in
// for the suite's CLI (a Node script taking the suite's arguments and writing its checks.json as the suite does).
describe('conformancePhase against a real server and a stand-in suite', () => {
  let bench: PhaseBench;
  let SERVER: string;
  let SUITE: string;
  beforeAll(async () => {
    bench = await phaseBench('mcp-matrix-conformance-');
    // Requires the bearer token unless NO_AUTH; answers initialize with CAPS (as JSON, or as SSE when SSE is set),
    // or with STATUS; `exit` as a method ends it with code 3; logs every request's method and session to LOG.
    SERVER = bench.server(
      'server.mjs',
      `import http from 'node:http';
import { appendFileSync } from 'node:fs';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const host = process.argv[process.argv.indexOf('--host') + 1];
http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (process.env.LOG) appendFileSync(process.env.LOG, JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null, session: req.headers['mcp-session-id'] ?? null, body: body ? JSON.parse(body).method : null }) + '\\n');
    if (!process.env.NO_AUTH && req.headers.authorization !== 'Bearer ' + process.env.MCP_SERVER_TOKEN) return res.writeHead(401).end();
    if (req.method === 'DELETE') return res.writeHead(200).end();
    const msg = JSON.parse(body);
    if (msg.method === 'exit') process.exit(3);
    if (process.env.STATUS) return res.writeHead(Number(process.env.STATUS)).end('no');
    const result = process.env.CAPS === 'none' ? { serverInfo: { name: 's' } } : { capabilities: JSON.parse(process.env.CAPS ?? '{}') };
    const answer = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    if (process.env.SSE) return res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }).end('event: message\\ndata: {"jsonrpc":"2.0","method":"note"}\\ndata: ' + answer + '\\n\\n');
    res.writeHead(200, { 'content-type': 'application/json', ...(process.env.SESSION ? { 'mcp-session-id': 'sess-1' } : {}) }).end(answer);
  });
}).listen(port, host);
process.on('SIGTERM', () => process.exit(0));
`,
    );
    // The suite's CLI: server --url U --scenario S --output-dir D. The scenario's name says what it does.
    SUITE = bench.server(
      'suite.mjs',
      `import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// How long the process had been up when the CLI itself started (a process started ahead waits for its turn).
const waited = Date.now() - performance.timeOrigin;
const arg = (k) => process.argv[process.argv.indexOf(k) + 1];
const [url, scenario, out] = [arg('--url'), arg('--scenario'), arg('--output-dir')];
if (process.argv[2] !== 'server') process.exit(9);
const write = (checks, dir = scenario + '-0') => { mkdirSync(join(out, dir), { recursive: true }); writeFileSync(join(out, dir, 'checks.json'), typeof checks === 'string' ? checks : JSON.stringify(checks)); };
const post = (method) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: {} }) }).then((r) => r.text().then(() => r.status), () => 0);
if (scenario.startsWith('pass')) {
  const status = await post('ping');
  write([{ id: 'reached', status: status === 200 ? 'SUCCESS' : 'FAILURE', errorMessage: 'HTTP ' + status, specReferences: [{ url: 'https://x/' + scenario }] }]);
} else if (scenario.startsWith('fail')) {
  write([{ id: 'f', status: 'FAILURE', errorMessage: 'bad' }, { id: 'ok', status: 'SUCCESS' }]);
} else if (scenario === 'odd') {
  write('not json', 'a-first');
  write({ not: 'a list' }, 'b-second');
  write([null, { id: 'no-status' }, { id: 'k', status: 'SUCCESS', NO_COLOR: process.env.NO_COLOR }], 'c-third');
} else if (scenario === 'env') {
  write([{ id: 'env', status: process.env.NO_COLOR === '1' && process.env.FROM_BASE === 'yes' ? 'SUCCESS' : 'FAILURE', errorMessage: 'compile cache: ' + (process.env.NODE_COMPILE_CACHE ?? 'none') }]);
} else if (scenario === 'crash') {
  await post('exit');
  write([{ id: 'c', status: 'FAILURE', errorMessage: 'connection reset' }]);
} else if (scenario === 'slow') {
  await post('first');
  await new Promise((r) => setTimeout(r, 800));
  await post('second');
  // When it was done (on Date.now, as the driver's clock): its turn ended after this, and the next one began after.
  write([{ id: 'slow', status: 'SUCCESS', errorMessage: String(Date.now()) }]);
} else if (scenario === 'waited') {
  await post('third');
  write([{ id: 'waited', status: 'SUCCESS', errorMessage: String(waited) }]);
} else if (scenario === 'hang') {
  setInterval(() => {}, 1000);
} else if (scenario.startsWith('pid')) {
  // pid: its process and how many times this process has run the CLI; then what it leaves behind, if anything.
  globalThis.runs = (globalThis.runs ?? 0) + 1;
  await post('pid');
  write([{ id: 'pid', status: 'SUCCESS', errorMessage: process.pid + ' ' + globalThis.runs }]);
  if (scenario === 'pid-timer') setTimeout(() => {}, 60_000);
  // Due just after its exit: the marker file says whether it ran.
  if (scenario === 'pid-late') setTimeout(() => writeFileSync(join(out, 'late-timer-ran'), 'yes'), 0);
  if (scenario === 'pid-listener') process.on('SIGHUP', () => {});
  if (scenario === 'pid-stream') {
    const u = new URL(url);
    const net = await import('node:net');
    await new Promise((resolve) => net.connect(Number(u.port), u.hostname, resolve));
  }
  // As the suite's CLI ends, whatever is still open; pid-listener ends with nothing left to wait for.
  if (scenario === 'pid-timer' || scenario === 'pid-stream' || scenario === 'pid-late') process.exit(0);
  if (scenario === 'pid-noisy') { console.log('noisy out'); console.error('noisy err'); process.exit(7); console.error('after exit'); }
} else if (scenario === 'quiet') {
  console.log('quiet line');
  process.exit(5);
} else {
  console.error('line 1'); console.error('line 2'); console.error('line 3'); console.error('line 4');
  process.exit(4);
}
`,
    );
  });
  afterAll(() => bench?.dispose());

  function spec(over: Partial<ConformanceSpec> = {}, env: Record<string, string> = {}): ConformanceSpec {
    return {
      command: { bin: SERVER, args: ['--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}', ...env } },
      host: '127.0.0.1',
      path: '/mcp',
      readyTimeoutMs: 10_000,
      timeoutMs: 10_000,
      suite: {
        package: '@modelcontextprotocol/conformance',
        version: '9.9.9',
        node: process.execPath,
        nodeVersion: process.version,
        cli: SUITE,
      },
      scenarios: [{ name: 'pass' }],
      excluded: [{ name: 'fixture-tools', why: 'needs the fixture tools' }],
      ...over,
    };
  }

  async function run(s: ConformanceSpec, over: Partial<DriverSpec> = {}) {
    const ctx = bench.context(over);
    const r = await conformancePhase(ctx, s);
    const endedAt = Date.now();
    for (const server of ctx.servers) await server.proc.waitExit(5000);
    for (const server of ctx.servers) expect(server.proc.running).toBe(false);
    return { r, ctx, endedAt };
  }

  it('behind the bearer token: the suite goes through the proxy, which adds it; scenarios judged, run one by one', async () => {
    const log = join(bench.cell, 'bearer.log');
    const s = spec(
      {
        scenarios: [
          { name: 'pass' },
          { name: 'fail' },
          { name: 'pass-subscribe', capability: 'resources.subscribe' },
          { name: 'pass-tools', capability: 'tools' },
          { name: 'fail-unauth', unauthenticatedOnly: true },
        ],
      },
      { CAPS: JSON.stringify({ tools: {} }), LOG: log, SESSION: '1' },
    );
    const { r, ctx } = await run(s);
    const details = r.details!;
    const url = details.url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const proxy = details.proxy as { url: string; adds: string; forwarded: number };
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(proxy.url).not.toBe(url);
    // The capability look-up (initialize, then its session deleted) and each scenario's one request.
    expect(proxy).toEqual({ url: proxy.url, adds: 'Authorization: Bearer <the run token>', forwarded: 4 });
    const seen = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(seen.map((l) => [l.method, l.body, l.session])).toEqual([
      ['POST', 'initialize', null],
      ['DELETE', null, 'sess-1'],
      ['POST', 'ping', null],
      ['POST', 'ping', null],
    ]);
    expect(new Set(seen.map((l) => l.auth)).size).toBe(1);
    expect(seen[0]!.auth).toMatch(/^Bearer [0-9a-f]{48}$/);
    // The token is the run's secret: redacted from anything the driver reports.
    expect(ctx.redactor.text(String(seen[0]!.auth))).not.toContain(String(seen[0]!.auth).slice(7));
    expect(r).toMatchObject({
      phase: 'conformance',
      verdict: 'failed',
      step: 'fail',
      message: `1 of 4 scenario(s) failed: fail (f: bad); warn: fail-unauth (f: bad (level warn: the scenario is for servers without authentication and this endpoint requires a bearer token))`,
    });
    expect(details).toEqual({
      suite: { package: '@modelcontextprotocol/conformance', version: '9.9.9', node: process.version },
      url,
      auth: 'bearer',
      excluded: [{ name: 'fixture-tools', why: 'needs the fixture tools' }],
      proxy,
      capabilities: { tools: {} },
      scenarios: [
        { name: 'pass', verdict: 'passed', level: 'require', durationMs: expect.any(Number) },
        { name: 'fail', verdict: 'failed', level: 'require', message: 'f: bad', durationMs: expect.any(Number) },
        { name: 'pass-tools', verdict: 'passed', level: 'require', durationMs: expect.any(Number) },
        {
          name: 'fail-unauth',
          verdict: 'failed',
          level: 'warn',
          message: 'f: bad (level warn: the scenario is for servers without authentication and this endpoint requires a bearer token)',
          durationMs: expect.any(Number),
        },
      ],
      notAdvertised: [{ name: 'pass-subscribe', why: 'the server does not advertise resources.subscribe' }],
    });
    expect(r.checks!.map((c) => [c.id, c.outcome, c.level, c.judge])).toEqual([
      ['pass', 'passed', 'require', '@modelcontextprotocol/conformance@9.9.9'],
      ['fail', 'failed', 'require', '@modelcontextprotocol/conformance@9.9.9'],
      ['pass-tools', 'passed', 'require', '@modelcontextprotocol/conformance@9.9.9'],
      ['fail-unauth', 'failed', 'warn', '@modelcontextprotocol/conformance@9.9.9'],
    ]);
    expect(r.checks![0]!.evidence).toMatchObject({ spec: ['https://x/pass'] });
    // Each scenario wrote under the run's own directory, the earlier run's output removed first.
    const outRoot = join(bench.cell, '.mcp-matrix', 'conformance');
    expect(readdirSync(outRoot).sort()).toEqual(['fail', 'fail-unauth', 'pass', 'pass-tools']);
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.durationMs).toBeLessThan(120_000);
  }, 60_000);

  // Issue 32 item 5: an OAuth resource server (the real _oauth fixture, jose against the run's real authorization
  // server) gets a valid JWT through the proxy; before, it got the run's bearer token and answered 401.
  it("auth oauth: the proxy adds a valid JWT from the run's authorization server; the server verifies it", async () => {
    const started = await startAuthorizationServer();
    if (!started.ok) throw new Error(started.cause);
    const as = started.server;
    try {
      const oauth = { issuer: as.issuer, jwksUri: as.jwksUri, tokensUrl: as.tokensUrl, tokensKey: as.tokensKey };
      const s = spec({
        command: {
          bin: join(ROOT, 'fixtures/broken/_oauth/bin/server.js'),
          args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
          env: { OAUTH_ISSUER: '{issuer}', OAUTH_JWKS_URI: '{jwksUri}', OAUTH_AUDIENCE: '{audience}' },
        },
        auth: 'oauth',
        oauth,
        scenarios: [{ name: 'pass' }, { name: 'pass-tools', capability: 'tools' }],
      });
      const { r, ctx } = await run(s);
      expect(r.verdict, r.message).toBe('passed');
      expect(r.message).toBe('2/2 scenarios passed: pass, pass-tools');
      expect(r.details).toMatchObject({
        auth: 'oauth',
        proxy: { adds: "Authorization: Bearer <a valid JWT from the run's authorization server>", forwarded: 3 },
        capabilities: { tools: expect.anything() },
      });
      // The authorization server's key never leaves the driver.
      expect(ctx.redactor.text(as.tokensKey)).not.toContain(as.tokensKey);

      // No authorization server for the run: the harness's problem, never the server's; no server is started.
      const none = await run({ ...s, oauth: { unavailable: 'port 1 refused' } });
      expect(none.r).toMatchObject({ verdict: 'not-measured', step: 'authorization server', message: 'port 1 refused' });
      expect(none.ctx.servers).toEqual([]);
    } finally {
      await as.close();
    }
  }, 60_000);

  it("auth none: no proxy, the suite talks to the server itself; an SSE answer's capabilities are read", async () => {
    const log = join(bench.cell, 'none.log');
    const workDir = join(bench.cell, 'run-none');
    mkdirSync(join(workDir, 'conformance', 'stale'), { recursive: true });
    const { r } = await run(
      spec(
        {
          auth: 'none',
          scenarios: [
            { name: 'pass' },
            { name: 'pass-sub', capability: 'resources.subscribe' },
            { name: 'pass-unauth', unauthenticatedOnly: true },
          ],
        },
        { NO_AUTH: '1', SSE: '1', CAPS: JSON.stringify({ resources: { subscribe: true } }), LOG: log },
      ),
      { workDir },
    );
    expect(r).toMatchObject({ verdict: 'passed', message: '3/3 scenarios passed: pass, pass-sub, pass-unauth' });
    expect(r).not.toHaveProperty('step');
    expect(r.details).not.toHaveProperty('proxy');
    expect(r.details).toMatchObject({ auth: 'none', capabilities: { resources: { subscribe: true } }, notAdvertised: [] });
    expect((r.details!.scenarios as { level: string }[]).map((s) => s.level)).toEqual(['require', 'require', 'require']);
    const seen = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(seen.map((l) => [l.method, l.session, l.auth])).toEqual([
      ['POST', null, null],
      ['DELETE', 'sess-1', null],
      ['POST', null, null],
      ['POST', null, null],
      ['POST', null, null],
    ]);
    // workDir, not the cell's .mcp-matrix: the stale entry is gone.
    expect(readdirSync(join(workDir, 'conformance')).sort()).toEqual(['pass', 'pass-sub', 'pass-unauth']);
  }, 60_000);

  it('scenarios share the suite process while each leaves it as it found it; a leftover ends it, the next gets a new one', async () => {
    const log = join(bench.cell, 'shared.log');
    const names = ['pid', 'pid-timer', 'pid', 'pid-listener', 'pid', 'pid-stream', 'pid-noisy', 'quiet', 'pid', 'pid-late', 'pid'];
    const { r } = await run(spec({ auth: 'none', scenarios: names.map((name) => ({ name })) }, { NO_AUTH: '1', LOG: log }));
    const runs = (r.checks ?? [])
      .filter((c) => c.id.startsWith('pid'))
      .map((c) => (c.evidence!.checks as { message: string }[])[0]!.message.split(' '));
    const pids = runs.map(([pid]) => pid);
    // A timer, a process listener or an open connection left behind: the next scenario runs in a new process.
    expect(pids[1]).toBe(pids[0]);
    expect(pids[2]).not.toBe(pids[1]);
    expect(pids[3]).toBe(pids[2]);
    expect(pids[4]).not.toBe(pids[3]);
    expect(pids[5]).toBe(pids[4]);
    expect(pids[6]).not.toBe(pids[5]);
    // An exit with a code leaves the process reusable (quiet counts no run); the CLI is evaluated afresh each time.
    expect(pids[7]).toBe(pids[6]);
    expect(pids[8]).toBe(pids[6]);
    expect(pids[9]).not.toBe(pids[8]);
    expect(runs.map(([, n]) => n)).toEqual(['1', '2', '1', '2', '1', '2', '1', '2', '3', '1']);
    // Each scenario's output and exit code are its own: nothing pid-noisy printed, before its exit or after it.
    expect(r.checks!.find((c) => c.id === 'quiet')!.message).toBe('the suite left no checks.json (exit 5): quiet line');
    expect(r.verdict).toBe('not-measured');
    // A timer left at its exit never fires: the process ends there, as the scenario's own process would have.
    expect(existsSync(join(bench.cell, '.mcp-matrix', 'conformance', 'pid-late', 'late-timer-ran'))).toBe(false);
    const bodies = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { body: string }).body);
    expect(bodies).toEqual(['initialize', ...Array<string>(10).fill('pid')]);
  }, 60_000);

  it('a scenario that ends the suite process runs after the others, in the same process; all are reported in order', async () => {
    const log = join(bench.cell, 'last.log');
    const scenarios = [{ name: 'pid-timer', endsProcess: true as const }, { name: 'pid' }, { name: 'pass' }];
    const { r } = await run(spec({ auth: 'none', scenarios }, { NO_AUTH: '1', LOG: log }));
    expect(r).toMatchObject({ verdict: 'passed', message: '3/3 scenarios passed: pid-timer, pid, pass' });
    expect((r.details!.scenarios as { name: string }[]).map((s) => s.name)).toEqual(['pid-timer', 'pid', 'pass']);
    expect(r.checks!.map((c) => c.id)).toEqual(['pid-timer', 'pid', 'pass']);
    const seen = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { body: string | null }).body);
    expect(seen).toEqual(['initialize', 'pid', 'ping', 'pid']);
    // pid-timer ran last, as the second run of the CLI in pid's process: no second process was started.
    const [timer, first] = ['pid-timer', 'pid'].map((id) =>
      (r.checks!.find((c) => c.id === id)!.evidence!.checks as { message: string }[])[0]!.message.split(' '),
    );
    expect(timer![0]).toBe(first![0]);
    expect([first![1], timer![1]]).toEqual(['1', '2']);
  }, 60_000);

  it("the suite's process loads while the server starts; the server sees the scenarios one after another", async () => {
    const log = join(bench.cell, 'ahead.log');
    const { r, endedAt } = await run(spec({ auth: 'none', scenarios: [{ name: 'slow' }, { name: 'waited' }] }, { NO_AUTH: '1', LOG: log }));
    expect(r).toMatchObject({ verdict: 'passed', message: '2/2 scenarios passed: slow, waited' });
    const seen = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { body: string | null }).body);
    expect(seen).toEqual(['initialize', 'first', 'second', 'third']);
    // The same process ran 'slow' first: the CLI ran for 'waited' only after slow's 800 ms.
    const told = (id: string) => Number((r.checks!.find((c) => c.id === id)!.evidence!.checks as { message?: string }[])[0]!.message);
    const waited = told('waited');
    expect(waited).toBeGreaterThanOrEqual(600);
    // A scenario's time is its turn's: not the time its process had been up. 'waited' began after 'slow' was done, and
    // ended before the phase did (all on Date.now, the suite's too: exact at any load); its process had been up since
    // before slow's 800 ms (slow's own time has them, less the moment a timer can seem early by on Date.now).
    const durations = (r.details!.scenarios as { durationMs: number }[]).map((d) => d.durationMs);
    expect(durations[0]).toBeGreaterThanOrEqual(800 - 5);
    expect(durations[1]).toBeLessThanOrEqual(endedAt - told('slow'));
  }, 60_000);

  it('a capability look-up that fails runs every scenario, and says why in the details', async () => {
    for (const [env, error] of [
      [{ STATUS: '500' }, 'initialize answered HTTP 500'],
      [{ CAPS: 'none' }, 'initialize answered without capabilities'],
    ] as const) {
      const { r } = await run(spec({ scenarios: [{ name: 'pass-tools', capability: 'tools' }] }, env));
      expect(r.details!.capabilities).toEqual({ error });
      expect(r.details!.notAdvertised).toEqual([]);
      expect((r.details!.scenarios as { name: string }[]).map((s) => s.name)).toEqual(['pass-tools']);
    }
  }, 60_000);

  it('the suite runs with the base environment and NO_COLOR; of its output entries the first checks list counts', async () => {
    const { r } = await run(spec({ scenarios: [{ name: 'env' }, { name: 'odd' }] }), {
      baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: bench.cell, FROM_BASE: 'yes' },
    });
    expect(r.verdict).toBe('passed');
    const odd = r.checks!.find((c) => c.id === 'odd')!;
    expect(odd.evidence!.checks).toEqual([{ id: 'k', status: 'SUCCESS' }]);
    expect(r.checks!.find((c) => c.id === 'env')!.evidence!.checks).toEqual([
      { id: 'env', status: 'SUCCESS', message: 'compile cache: none' },
    ]);
  }, 60_000);

  it("with a compile cache the suite's Node gets it as NODE_COMPILE_CACHE, over the base environment's", async () => {
    const compileCache = join(bench.cell, 'compile-cache');
    const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: bench.cell, FROM_BASE: 'yes', NODE_COMPILE_CACHE: '/elsewhere' };
    const { r } = await run(spec({ scenarios: [{ name: 'env' }], suite: { ...spec().suite, compileCache } }), { baseEnv: base });
    expect(r.verdict).toBe('passed');
    expect(r.checks![0]!.evidence!.checks).toEqual([{ id: 'env', status: 'SUCCESS', message: `compile cache: ${compileCache}` }]);
  }, 60_000);

  it('not measured when the suite leaves no checks: its exit and last lines, its timeout, or that it could not start', async () => {
    const { r } = await run(spec({ scenarios: [{ name: 'nothing' }], timeoutMs: 10_000 }));
    expect(r).toMatchObject({
      verdict: 'not-measured',
      step: 'nothing',
      message: 'not measured: nothing (the suite left no checks.json (exit 4): line 2 | line 3 | line 4)',
    });
    expect(r.checks).toEqual([
      {
        id: 'nothing',
        outcome: 'not-measured',
        level: 'require',
        message: 'the suite left no checks.json (exit 4): line 2 | line 3 | line 4',
        evidence: { checks: [], durationMs: expect.any(Number) },
        judge: '@modelcontextprotocol/conformance@9.9.9',
      },
    ]);
    // The timed-out scenario's process is killed; the next one runs in a new process, whose start (Node, the gate,
    // the CLI's imports) counts in its bound: 10 s leaves a loaded machine's slow start room (a bare node start took
    // 1.2 s at load 17, and this one does more); the hang waits it out once.
    const hang = await run(spec({ scenarios: [{ name: 'hang' }, { name: 'pass' }], timeoutMs: 10_000 }));
    expect(hang.r.message).toBe('not measured: hang (the suite did not finish within 10000 ms)');
    expect((hang.r.details!.scenarios as { verdict: string }[]).map((x) => x.verdict)).toEqual(['not-measured', 'passed']);
    const absent = join(bench.cell, 'no-such-node');
    const noNode = await run(spec({ suite: { ...spec().suite, node: absent } }));
    expect(noNode.r.message).toMatch(/^not measured: pass \(the suite could not be started: .*ENOENT/);
  }, 60_000);

  it('a server that exits during the suite: the verdict says so', async () => {
    const { r } = await run(spec({ scenarios: [{ name: 'crash' }] }));
    expect(r).toMatchObject({
      verdict: 'failed',
      message: '1 of 1 scenario(s) failed: crash (c: connection reset) (the server exited with code 3 during the suite)',
    });
    const { r: ok } = await run(spec({ scenarios: [{ name: 'pass' }] }));
    expect(ok.message).toBe('1/1 scenarios passed: pass');
  }, 60_000);

  it('a server that never listens: not measured, naming why; no scenario runs', async () => {
    const silent = bench.server('silent.mjs', "setInterval(() => {}, 1000);\nprocess.on('SIGTERM', () => process.exit(0));\n");
    const { r } = await run({ ...spec(), command: { bin: silent, args: [], env: {} }, readyTimeoutMs: 800 });
    expect(r).toMatchObject({ phase: 'conformance', verdict: 'not-measured' });
    expect(r.message).toMatch(/^the server did not start for the suite: /);
    expect(r.step).toEqual(expect.any(String));
    expect(r).not.toHaveProperty('checks');
    expect(r.details).not.toHaveProperty('scenarios');
  }, 60_000);
});

describe('the verdict rules: several of a kind, and the own check a cited section names', () => {
  const lost = (name: string) => ({
    name,
    verdict: 'not-measured' as const,
    message: 'gone',
    checks: [],
    durationMs: 1,
    level: 'require' as const,
    specUrls: [],
  });
  const warned = (name: string) => outOfScope(judgeScenario(name, [{ id: 'x', status: 'FAILURE', errorMessage: 'e' }], 1));

  it('two warned scenarios are named apart; a not-measured phase names its warned ones too', () => {
    const why = '(level warn: the scenario is for servers without authentication and this endpoint requires a bearer token)';
    const ok = judgeScenario('ping', [{ id: 'p', status: 'SUCCESS' }], 1);
    expect(summarize([ok, warned('a'), warned('b')]).message).toBe(`1/3 scenarios passed: ping; warn: a (x: e ${why}); b (x: e ${why})`);
    expect(summarize([lost('l'), warned('a')])).toEqual({
      verdict: 'not-measured',
      step: 'l',
      message: `not measured: l (gone); warn: a (x: e ${why})`,
    });
  });

  it('one own check of the cited section: sameAs names it, the evidence lists none; a section outside MCP is never matched', () => {
    const one = judgeScenario(
      'server-sse-multiple-streams',
      [
        {
          id: 'v',
          status: 'SUCCESS',
          specReferences: [{ url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header' }],
        },
      ],
      1,
    );
    const check = scenarioCheck(one, 'j');
    expect(check.sameAs).toBe('protocol-version');
    expect(check.evidence).not.toHaveProperty('sameAs');
    // RFC 6750 section 3 is our www-authenticate check's, but only MCP pages are matched (by revision and section).
    const rfc = judgeScenario('r', [{ id: 'r', status: 'SUCCESS', specReferences: [{ url: 'https://www.rfc-editor.org/rfc/6750/3' }] }], 1);
    expect(scenarioCheck(rfc, 'j')).not.toHaveProperty('sameAs');
  });
});
