// The driver run for real: cells installed from the registry (SDK 1.32.2; client/server 2.4.0 +
// node 2.1.2), the compiled driver forked with IPC as the orchestrator does it, against the test
// server (every defect mode) and, when it is present, the packed reference server.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIFECYCLE_IDS } from '../../src/driver/lifecycle/checks.js';
import { procAvailable } from '../../src/driver/server/proc.js';
import type { PhaseName } from '../../src/results/types.js';
import {
  baseSpec,
  buildDriver,
  makeCell,
  npmPack,
  REFERENCE_SERVER,
  removeDir,
  runDriver,
  tempDir,
  TEST_SERVER,
  testServerPhases,
  type Cell,
  type DriverRun,
} from './helpers/cell.js';

const PHASES: PhaseName[] = ['stdio', 'http', 'bind', 'leaks'];
const LEAK_LINE =
  readFileSync(TEST_SERVER, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('LEAK-LINE')) + 1;
const hasReference = existsSync(join(REFERENCE_SERVER, 'package.json'));

let work: string;
const cells: Partial<Record<1 | 2, Cell>> = {};
let referenceInstalled = false;

beforeAll(async () => {
  work = tempDir('mcp-matrix-driver-test-');
  const build = await buildDriver(join(work, 'build'));
  let tarball: string | undefined;
  if (hasReference) tarball = await npmPack(REFERENCE_SERVER, work).catch(() => undefined);
  referenceInstalled = tarball !== undefined;
  const [v1, v2] = await Promise.all([makeCell(1, build, tarball ? [tarball] : []), makeCell(2, build, tarball ? [tarball] : [])]);
  cells[1] = v1;
  cells[2] = v2;
}, 600_000);

afterAll(() => {
  removeDir(cells[1]?.dir);
  removeDir(cells[2]?.dir);
  removeDir(work);
});

function cell(major: 1 | 2): Cell {
  const c = cells[major];
  if (!c) throw new Error(`cell for major ${major} was not built`);
  return c;
}

function verdicts(run: DriverRun): Record<string, string | undefined> {
  return Object.fromEntries(PHASES.map((p) => [p, run.results.get(p)?.verdict]));
}

/** Messages for a failing assertion: what the driver said, not just "expected failed to be passed". */
function explain(run: DriverRun): string {
  return (
    JSON.stringify(
      [...run.results.values()].map((r) => [r.phase, r.verdict, r.step, r.message, r.stderrTail]),
      null,
      1,
    ) + run.stderr
  );
}

function expectClean(run: DriverRun): void {
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toBe('');
  expect(run.messages.some((m) => m.type === 'fatal')).toBe(false);
  expect(run.done).toBeDefined();
  // Every server group the driver started was confirmed gone.
  expect([...run.reaped].sort()).toEqual([...run.spawned].sort());
  for (const p of PHASES) {
    const starts = run.messages.filter((m) => m.type === 'phase-start' && m.phase === p).length;
    expect(starts).toBe(1);
  }
}

describe.each([1, 2] as const)('SDK major %i', (major) => {
  it('passes every phase against the test server', async () => {
    const c = cell(major);
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), testServerPhases(c)));
    expectClean(run);
    expect(verdicts(run), explain(run)).toEqual({ stdio: 'passed', http: 'passed', bind: 'passed', leaks: 'passed' });
    expect(run.done!.summary).toMatchObject({
      serverName: 'driver-test-server',
      serverVersion: '0.0.1',
      protocolVersion: '2025-11-25',
      tools: 2,
      resources: 1,
      resourceTemplates: 1,
      prompts: 1,
      leakedHandles: [],
    });
    const http = run.results.get('http')!;
    expect(http.details).toMatchObject({ unauthenticated: { status: 401 }, wrongToken: { status: 401 }, roundTrip: true });
    expect(http.message).toBe('no token → 401 with a Bearer challenge; wrong token → 401; round trip ok');
    // With /proc the port's owner is read from the kernel; without it, from the probe's listen record.
    expect(http.details!.identity).toBe(procAvailable() ? 'verified' : 'probe');
    expect(run.results.get('bind')!.details).toMatchObject({ exitCode: 2, stderrLine: expect.stringContaining('refusing') });
    // What each server really loaded: the cell's own copies, nothing else.
    const copies =
      major === 1
        ? [{ name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' }]
        : [
            { name: '@modelcontextprotocol/node', version: '2.1.2', path: 'node_modules/@modelcontextprotocol/node' },
            { name: '@modelcontextprotocol/server', version: '2.4.0', path: 'node_modules/@modelcontextprotocol/server' },
          ];
    for (const server of ['stdio', 'http'] as const) {
      expect(run.results.get(server)!.details!.sdkRuntime).toEqual([
        { server, probe: true, nodeBin: true, answered: true, copies, node: process.version },
      ]);
    }
    const bindDetails: Record<string, unknown> = { ...run.results.get('bind')!.details! };
    expect(bindDetails.sdkRuntime).toBeUndefined();
    // The token never leaves the driver (the test server logs it on stderr).
    expect(JSON.stringify(run.messages)).not.toMatch(/[0-9a-f]{48}/);
  });

  it.skipIf(!hasReference)('passes every phase against the packed reference server', async (ctx) => {
    if (!referenceInstalled) ctx.skip();
    const c = cell(major);
    const pkg = join(c.dir, 'node_modules/reference-mcp-server');
    const bin = join(pkg, 'bin/reference-mcp-server.js');
    const steps = [
      {
        tool: 'add_note',
        arguments: { title: 'Matrix', body: 'written by mcp-matrix', tags: ['matrix'] },
        expect: { text: 'Created note-' },
      },
      { tool: 'search_notes', arguments: { query: 'x', limit: 0 }, expect: { isError: true, text: 'Invalid limit' } },
      { tool: 'wait', arguments: { ms: 600 }, slow: true, expect: { text: 'Waited 600 ms' } },
    ];
    const run = await runDriver(
      c,
      baseSpec(c, pkg, {
        stdio: {
          command: { bin, args: [], env: {} },
          expect: { tools: 7, prompts: ['summarize_note', 'draft_note'] },
          steps,
          timeoutMs: 10_000,
        },
        http: {
          command: {
            bin,
            args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
            env: { MCP_SERVER_TOKEN: '{token}' },
          },
          host: '127.0.0.1',
          path: '/mcp',
          steps,
          readyTimeoutMs: 15_000,
          timeoutMs: 10_000,
        },
        bind: {
          command: { bin, args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'], env: {} },
          dropEnv: ['MCP_SERVER_TOKEN'],
          timeoutMs: 15_000,
        },
        leaks: { graceMs: 10_000 },
      }),
    );
    expectClean(run);
    expect(verdicts(run), explain(run)).toEqual({ stdio: 'passed', http: 'passed', bind: 'passed', leaks: 'passed' });
    expect(run.done!.summary).toMatchObject({ serverName: 'reference-mcp-server', tools: 7, prompts: 2, leakedHandles: [] });
    // The lifecycle edges pass on both transports; what the server chose is recorded (evidence.behaviour, details.compared).
    for (const phase of ['stdio', 'http'] as const) {
      const r = run.results.get(phase)!;
      const lifecycle = (r.checks ?? []).filter((c) => LIFECYCLE_IDS.includes(c.id as never));
      expect(
        lifecycle.map((c) => [c.id, c.outcome]),
        explain(run),
      ).toEqual(LIFECYCLE_IDS.map((id) => [id, 'passed']));
      // The same on both majors (compat.js answers an unknown tool on 1.x as 2.x does); a second initialize
      // is accepted over stdio (the SDKs answer it again) and refused over HTTP (400: the session is initialized).
      expect(r.details!.compared).toMatchObject({
        'unknown-tool': { answer: 'error', code: -32602 },
        'invalid-arguments': { answer: 'isError' },
        'repeated-initialize': { outcome: phase === 'stdio' ? 'accepts' : 'errors' },
      });
      // Both SDKs drop the answer to a cancelled call (the spec allows either); the report says which.
      expect(lifecycle.find((c) => c.id === 'cancellation')).toMatchObject({ short: 'dropped', evidence: { behaviour: 'dropped' } });
      expect(r.checks![0]!.id).toBe(phase === 'stdio' ? 'session' : 'no-token-401');
    }
  });

  it('fails leaks for a server that keeps a setInterval after stdin EOF, naming it', async () => {
    const c = cell(major);
    const phases = testServerPhases(c, 'leak', 1500);
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), { ...phases, http: false, bind: false }));
    expectClean(run);
    expect(verdicts(run)).toEqual({ stdio: 'passed', http: 'skipped', bind: 'skipped', leaks: 'failed' });
    const leaks = run.results.get('leaks')!;
    expect(leaks.message).toContain('stdio server still running 1500 ms after stdin EOF');
    expect(leaks.message).toContain(`Timeout (setInterval) at server.mjs:${LEAK_LINE}`);
    expect(run.done!.summary.leakedHandles).toContainEqual({
      owner: 'server:stdio',
      type: 'Timeout',
      location: `server.mjs:${LEAK_LINE}`,
      createdBy: 'setInterval',
    });
  });
});

describe('negatives on SDK major 1', () => {
  it('fails stdio for junk on stdout, quoting it', async () => {
    const c = cell(1);
    const phases = testServerPhases(c, 'junk');
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), { ...phases, http: false, bind: false }));
    expectClean(run);
    const stdio = run.results.get('stdio')!;
    expect(stdio.verdict).toBe('failed');
    expect(stdio.message).toContain('starting test server (this line should not be on stdout)');
    expect(stdio.stdoutNoise).toEqual(['starting test server (this line should not be on stdout)']);
  });

  it('fails http for a server without auth, naming the missing 401, with the token redacted', async () => {
    const c = cell(1);
    const phases = testServerPhases(c, 'no-auth');
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), { ...phases, stdio: false, bind: false }));
    expectClean(run);
    const http = run.results.get('http')!;
    expect(http.verdict).toBe('failed');
    expect(http.step).toBe('request without a token');
    expect(http.message).toContain('no token → 200 (want 401: the endpoint does not require the bearer token)');
    expect(http.stderrTail).toContain('token=***');
    expect(run.results.get('leaks')!.verdict).toBe('passed');
  });

  it('fails bind for a server that listens on 0.0.0.0 without a token, and kills it', async () => {
    const c = cell(1);
    const phases = testServerPhases(c, 'bind-listen');
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), { ...phases, stdio: false, http: false }));
    expectClean(run);
    const bind = run.results.get('bind')!;
    expect(bind.verdict).toBe('failed');
    expect(bind.message).toMatch(/(is listening|listened) on 0\.0\.0\.0:\d+/);
  });

  it('starts a non-JS bin with the probe in NODE_OPTIONS; SIGTERM reaches the whole group, so a wrapper without exec leaves nothing', async () => {
    const c = cell(1);
    // Like an npx-style wrapper: sh stays the parent. SIGTERM goes to the server's process group (as Ctrl-C,
    // systemd and `kill -- -<pgid>` send it), so the Node server under sh gets it too and exits.
    const wrapper = join(c.dir, 'pkg/wrapper.sh');
    writeFileSync(wrapper, '#!/bin/sh\nnode "$(dirname "$0")/server.mjs" "$@"\n', { mode: 0o755 });
    // The default grace (5 s): the subject is what is left after the exit, which a loaded machine may slow past 1.5 s.
    const phases = testServerPhases(c);
    const swap = <T extends { command: { bin: string } }>(p: T | false): T | false =>
      p && { ...p, command: { ...p.command, bin: wrapper } };
    const run = await runDriver(
      c,
      baseSpec(c, join(c.dir, 'pkg'), { ...phases, stdio: swap(phases.stdio), http: swap(phases.http), bind: false }),
    );
    expectClean(run);
    expect(verdicts(run), explain(run)).toEqual({ stdio: 'passed', http: 'passed', bind: 'skipped', leaks: 'passed' });
    expect(run.done!.summary.leakedHandles).toEqual([]);
    // The wrapper's Node child carried the probe (NODE_OPTIONS): what it loaded is what the server loaded.
    const copies = [{ name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' }];
    expect(run.results.get('stdio')!.details!.sdkRuntime).toEqual([
      { server: 'stdio', probe: true, nodeBin: false, answered: true, copies, node: process.version },
    ]);
  });

  it("counts what a Node launcher's child loads: a launcher is not a bundle", async () => {
    const c = cell(1);
    const launcher = join(c.dir, 'pkg/launcher.mjs');
    writeFileSync(
      launcher,
      [
        "import { spawn } from 'node:child_process';",
        "const child = spawn(process.execPath, [new URL('./server.mjs', import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit' });",
        "process.on('SIGTERM', () => child.kill('SIGTERM'));",
        "child.on('exit', (code) => process.exit(code ?? 1));",
        '',
      ].join('\n'),
    );
    const phases = testServerPhases(c);
    const stdio = phases.stdio && { ...phases.stdio, command: { ...phases.stdio.command, bin: launcher } };
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), { ...phases, stdio, http: false, bind: false }));
    expect(verdicts(run), explain(run)).toMatchObject({ stdio: 'passed' });
    const copies = [{ name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' }];
    expect(run.results.get('stdio')!.details!.sdkRuntime).toEqual([
      { server: 'stdio', probe: true, nodeBin: true, answered: true, copies, node: process.version },
    ]);
  });

  it('fails stdio with a bounded, named timeout for a server that never answers; skipped phases are skipped', async () => {
    const c = cell(1);
    const silent = join(c.dir, 'pkg/silent.mjs');
    writeFileSync(silent, "process.stderr.write('silent server up\\n');\nsetInterval(() => {}, 1000);\n");
    const run = await runDriver(
      c,
      baseSpec(c, join(c.dir, 'pkg'), {
        stdio: { command: { bin: silent, args: [], env: {} }, expect: {}, steps: [], timeoutMs: 1000 },
        http: false,
        bind: false,
        leaks: false,
      }),
    );
    expectClean(run);
    expect(verdicts(run)).toEqual({ stdio: 'failed', http: 'skipped', bind: 'skipped', leaks: 'skipped' });
    const stdio = run.results.get('stdio')!;
    expect(stdio.step).toBe('initialize');
    expect(stdio.message).toBe('timed out after 1000 ms waiting for initialize');
    expect(stdio.stderrTail).toContain('silent server up');
    expect(run.done!.summary.leakedHandles).toBeNull();
  });

  it('a spec whose levels this driver does not know is a protocol error: that phase not measured, not run, never failed', async () => {
    const c = cell(1);
    const spec = baseSpec(c, join(c.dir, 'pkg'), { ...testServerPhases(c), http: false, bind: false });
    if (spec.phases.stdio) spec.phases.stdio.checks = { ...spec.phases.stdio.checks, 'no-such-check': 'warn' };
    const run = await runDriver(c, spec);
    expectClean(run);
    expect(verdicts(run)).toEqual({ stdio: 'not-measured', http: 'skipped', bind: 'skipped', leaks: 'passed' });
    expect(run.results.get('stdio')!.message).toBe(
      'protocol error: phases.stdio.checks sets a level for a check this driver does not have: no-such-check',
    );
    expect(run.spawned).toEqual([]);
  });
});
