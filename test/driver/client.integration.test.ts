// The driver's configurable client, for real on both SDK majors (cells installed from the registry, the
// compiled driver forked with IPC): declared capabilities, roots/list answered with the configured roots,
// -32601 for a request it has no handler for, every server→client request recorded per phase, and how a
// tool step without arguments is sent.

import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientSpec, Step } from '../../src/contract/protocol.js';
import {
  baseSpec,
  buildDriver,
  makeCell,
  removeDir,
  ROOT,
  runDriver,
  tempDir,
  type Cell,
  type DriverRun,
  type PhasesSpec,
} from './helpers/cell.js';

const SERVER = join(ROOT, 'test/driver/fixtures/client-server.mjs');

let work: string;
const cells: Partial<Record<1 | 2, Cell>> = {};

beforeAll(async () => {
  work = tempDir('mcp-matrix-client-test-');
  const build = await buildDriver(join(work, 'build'));
  const [v1, v2] = await Promise.all([makeCell(1, build), makeCell(2, build)]);
  for (const c of [v1, v2]) cpSync(SERVER, join(c.dir, 'pkg/client-server.mjs'));
  cells[1] = v1;
  cells[2] = v2;
}, 600_000);

afterAll(() => {
  removeDir(cells[1]?.dir);
  removeDir(cells[2]?.dir);
  removeDir(work);
});

function phases(c: Cell, expectTools: string[], steps: Step[]): PhasesSpec {
  const bin = join(c.dir, 'pkg/client-server.mjs');
  return {
    stdio: { command: { bin, args: [], env: {} }, expect: { tools: expectTools }, steps, timeoutMs: 10_000 },
    http: {
      command: { bin, args: ['--transport', 'http', '--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}' } },
      host: '127.0.0.1',
      path: '/mcp',
      steps,
      readyTimeoutMs: 15_000,
      timeoutMs: 10_000,
    },
    bind: false,
    leaks: { graceMs: 5000 },
  };
}

function explain(run: DriverRun): string {
  return (
    JSON.stringify(
      [...run.results.values()].map((r) => [r.phase, r.verdict, r.message, r.details]),
      null,
      1,
    ) + run.stderr
  );
}

describe.each([1, 2] as const)('SDK major %i', (major) => {
  it('a client with roots and sampling: sees the roots-only tool, answers roots/list, -32601 for sampling, records both', async () => {
    const c = cells[major]!;
    const client: ClientSpec = {
      capabilities: { roots: {}, sampling: {} },
      roots: [{ uri: 'file://{tmp}', name: 'scratch' }],
      noArguments: 'omit',
    };
    const tmp = join(c.dir, '.mcp-matrix/tmp');
    const steps: Step[] = [
      { tool: 'list_roots', expect: { text: `roots: file://${tmp}` } },
      { tool: 'ask', expect: { text: 'sampling answered: error -32601' } },
    ];
    const run = await runDriver(c, { ...baseSpec(c, join(c.dir, 'pkg'), phases(c, ['ask', 'list_roots'], steps)), client });
    const stdio = run.results.get('stdio')!;
    const http = run.results.get('http')!;
    expect([stdio.verdict, http.verdict, run.results.get('leaks')!.verdict], explain(run)).toEqual(['passed', 'passed', 'passed']);
    expect(run.done!.summary.tools).toBe(2);
    // tools/list asked for roots, list_roots asked again, ask tried to sample; then the lifecycle sub-checks,
    // which share the stdio session, call list_roots twice more (invalid-arguments, and repeated-initialize's re-sent step).
    expect(stdio.details!.serverRequests).toEqual([
      { method: 'roots/list', answer: 'result' },
      { method: 'roots/list', answer: 'result' },
      { method: 'sampling/createMessage', answer: 'error -32601 Method not found' },
      { method: 'roots/list', answer: 'result' },
      { method: 'roots/list', answer: 'result' },
    ]);
    expect(stdio.details!.steps).toEqual([
      { step: 'tools/call list_roots', ms: expect.any(Number), arguments: 'omitted' },
      { step: 'tools/call ask', ms: expect.any(Number), arguments: 'omitted' },
    ]);
    // Over HTTP too: the list and the first tool step each asked for the roots.
    expect(http.details!.serverRequests).toEqual([
      { method: 'roots/list', answer: 'result' },
      { method: 'roots/list', answer: 'result' },
    ]);
    expect(run.results.get('bind')!.details).toBeUndefined();
  });

  it('the default client declares nothing: the server asks for nothing and hides the tool; a missing arguments is left out', async () => {
    const c = cells[major]!;
    const steps: Step[] = [{ tool: 'ask', expect: { text: 'the client cannot sample' } }];
    const run = await runDriver(c, baseSpec(c, join(c.dir, 'pkg'), phases(c, ['ask'], steps)));
    const stdio = run.results.get('stdio')!;
    expect([stdio.verdict, run.results.get('http')!.verdict], explain(run)).toEqual(['passed', 'passed']);
    expect(run.done!.summary.tools).toBe(1);
    expect(stdio.details!.serverRequests).toEqual([]);
    expect(run.results.get('http')!.details!.serverRequests).toEqual([]);
    expect(stdio.details!.steps).toEqual([{ step: 'tools/call ask', ms: expect.any(Number), arguments: 'omitted' }]);
  });

  it("a server that pings the client mid-call gets the SDK's own answer (not -32601), recorded as a server request", async () => {
    const c = cells[major]!;
    // stdio only: a 1.x server's ping() names no related request, so over Streamable HTTP it would need the standalone stream.
    const spec = baseSpec(c, join(c.dir, 'pkg'), {
      ...phases(c, ['ask'], [{ tool: 'ping_client', expect: { text: 'ping answered: result {}' } }]),
      http: false,
    });
    const run = await runDriver(c, spec);
    const stdio = run.results.get('stdio')!;
    expect(stdio.verdict, explain(run)).toBe('passed');
    // The step's ping, and the same step re-sent by the repeated-initialize sub-check on the stdio session.
    expect(stdio.details!.serverRequests).toEqual([
      { method: 'ping', answer: 'result' },
      { method: 'ping', answer: 'result' },
    ]);
  });

  it('expecting the roots-only tool without declaring roots fails with the count', async () => {
    const c = cells[major]!;
    const spec = baseSpec(c, join(c.dir, 'pkg'), { ...phases(c, [], []), http: false });
    if (spec.phases.stdio) spec.phases.stdio.expect = { tools: 2 };
    const failing = await runDriver(c, spec);
    const stdio = failing.results.get('stdio')!;
    expect(stdio.verdict, explain(failing)).toBe('failed');
    expect(stdio.step).toBe('compare with expect');
    expect(stdio.message).toBe('tools: expected 2, found 1');
  });
});
