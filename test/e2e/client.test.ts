// The driver's client on fixtures/broken, each run as the CLI runs it on a cell installed once per dependency set
// (helpers/fixture-cell.ts): exact surface counts, a step whose `arguments` were omitted (and the server's answer), a
// tool shown only to clients with `roots`, and the driver's own leaked handle; through the real CLI, the per-cell
// `{tmp}`/`{cellDir}` placeholders on two cells side by side (`--concurrency 2`).
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPhase, type PhaseName, type PhaseResultOf, type RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, tempDir, writeConfig, type CliOutcome } from './helpers/cli.js';
import { runFixtureCell } from './helpers/fixture-cell.js';
import { processesMentioning, runDirsHolding } from './helpers/procs.js';

const fixture = (name: string): string => path.join(ROOT, 'fixtures/broken', name);
const HTTP = `http: { args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}' } },
  bind: { args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'] },
  leaks: { graceMs: 3000 }, lockstep: 'off'`;

interface Run {
  out: CliOutcome;
  results?: RunResult;
  leftoverDirs: string[];
  leftoverProcs: string[];
}

const dirs: string[] = [];
const runs = new Map<string, Run>();
let recordDir: string;

/** `config`: a fixture's own config (relative path) or a config body written to a temp dir. */
async function run(
  config: { file: string } | { body: string },
  pkg: string,
  extra: string[] = [],
  env?: Record<string, string>,
): Promise<Run> {
  const out = await tempDir('mm-client-');
  dirs.push(out);
  // A private TMPDIR: two runs of one fixture go side by side, and neither may see the other's run dir.
  const tmp = path.join(out, 'tmp');
  await mkdir(tmp);
  const file = 'file' in config ? config.file : await writeConfig(out, config.body);
  let res: CliOutcome;
  let results: RunResult | undefined;
  if (extra.length > 0) {
    // `--concurrency 2` (two cells side by side) is the CLI's: that run goes through it.
    res = await cli(['run', '--config', file, '--out', path.join(out, 'results'), '--progress', 'silent', ...extra], {
      timeoutMs: 300_000,
      env: { ...env, TMPDIR: tmp },
    });
    results = await readResults(path.join(out, 'results')).catch(() => undefined);
  } else {
    const ran = await runFixtureCell(pkg, 'mm-client', { ...env, TMPDIR: tmp }, path.resolve(ROOT, file));
    dirs.push(ran.outDir);
    res = ran.out;
    results = ran.results;
  }
  return {
    out: res,
    ...(results ? { results } : {}),
    leftoverDirs: runDirsHolding(pkg, tmp),
    // This run's own: a process of the same fixture run by another test file (other files run broken-base with
    // the OS temp dir) lives under another TMPDIR, and was once counted here in a clean-clone CI.
    leftoverProcs: processesMentioning(`node_modules/${pkg}/`)
      .filter((p) => p.cmdline.includes(`${tmp}${path.sep}`))
      .map((p) => `${p.pid} ${p.cmdline}`),
  };
}

beforeAll(async () => {
  recordDir = await tempDir('mm-client-records-');
  dirs.push(recordDir);
  const jobs: [string, () => Promise<Run>][] = [
    ['surface-count', () => run({ file: 'fixtures/broken/surface-count/matrix.config.ts' }, 'broken-surface-count')],
    ['omitted-arguments', () => run({ file: 'fixtures/broken/omitted-arguments/matrix.config.ts' }, 'broken-omitted-arguments')],
    [
      // The same server and SDK 1.31.0 with the opt-out: a step without arguments sends {}.
      'omitted-arguments, noArguments empty',
      () =>
        run(
          {
            body: `{ package: ${JSON.stringify(fixture('omitted-arguments'))}, cells: [{ pin: '1.31.0' }], client: { noArguments: 'empty' },
              stdio: { expect: { tools: 3 }, steps: [{ tool: 'status', expect: { text: 'status: ok' } }] }, ${HTTP} }`,
          },
          'broken-omitted-arguments',
        ),
    ],
    ['roots-tool', () => run({ file: 'fixtures/broken/roots-tool/matrix.config.ts' }, 'broken-roots-tool')],
    [
      'roots-tool, client with roots',
      () =>
        run(
          {
            body: `{ package: ${JSON.stringify(fixture('roots-tool'))}, cells: [{ pin: 'latest@1' }],
              client: { roots: [{ uri: 'file://{tmp}', name: 'scratch' }] },
              stdio: { expect: { tools: 2 }, steps: [{ tool: 'list_roots', expect: { text: 'roots: file:///' } }] }, ${HTTP} }`,
          },
          'broken-roots-tool',
        ),
    ],
    [
      // Two cells side by side, each server told where to write down what {tmp} and {cellDir} became.
      '_cell-scratch',
      () =>
        run(
          {
            body: `{ package: ${JSON.stringify(fixture('_cell-scratch'))},
              cells: [{ pin: 'latest@1', id: 'a' }, { pin: 'latest@1', id: 'b' }],
              env: { SCRATCH: '{tmp}', CELL_HOME: '{cellDir}', MM_RECORD_DIR: ${JSON.stringify(recordDir)} },
              stdio: { args: ['--state', '{tmp}/state.json'], expect: { tools: 2 }, steps: [{ tool: 'echo', arguments: { text: 'hi' }, expect: { text: 'hi' } }] },
              ${HTTP} }`,
          },
          'cell-scratch',
          ['--concurrency', '2'],
        ),
    ],
    [
      'driver leak hook',
      () => run({ file: 'fixtures/broken/_base/matrix.config.ts' }, 'broken-base', [], { MCP_MATRIX_TEST_LEAK_HANDLE: '1' }),
    ],
    [
      // SDK 1.23.0's client keeps a request's timeout timer when the connection closes under it (1.32 clears it).
      // A long stdio.timeoutMs keeps that timer alive until the leaks phase, however slow http and bind are.
      'crash-on-tool, floor@1',
      () =>
        run(
          {
            body: `{ package: ${JSON.stringify(fixture('crash-on-tool'))}, cells: [{ pin: 'floor@1' }],
              stdio: { timeoutMs: 120000, expect: { tools: ['echo', 'add', 'crash'] },
                steps: [{ tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } }, { tool: 'crash', expect: { text: 'never' } }] },
              ${HTTP} }`,
          },
          'broken-crash-on-tool',
        ),
    ],
  ];
  // Two at a time on a 2-core machine.
  const worker = async (): Promise<void> => {
    for (let job = jobs.shift(); job; job = jobs.shift()) runs.set(job[0], await job[1]());
  };
  await Promise.all([worker(), worker()]);
}, 900_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function table(r: RunResult | undefined): string {
  return (r?.cells ?? [])
    .flatMap((c) => c.phases.map((p) => `${c.id} ${p.phase}: ${p.verdict} [${p.step ?? ''}] ${p.message ?? ''}`))
    .join('\n');
}

/** The run's one cell, after the checks every run shares: results written, nothing left behind. */
function cellOf(name: string, code: number): { phase: <P extends PhaseName>(p: P) => PhaseResultOf<P>; r: RunResult } {
  const run = runs.get(name)!;
  expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
  const r = run.results!;
  expect(run.out.code, table(r)).toBe(code);
  expect(r.exitCode).toBe(code);
  expect(run.leftoverDirs).toEqual([]);
  expect(run.leftoverProcs).toEqual([]);
  return { r, phase: (p) => findPhase(r.cells[0]!.phases, p)! };
}

function verdicts(r: RunResult): Record<string, string> {
  return Object.fromEntries(r.cells[0]!.phases.map((p) => [p.phase, p.verdict]));
}

describe('expect counts are exact', () => {
  it('a server that lists more tools, templates and prompts than expected fails stdio, naming each count', () => {
    const { r, phase } = cellOf('surface-count', 1);
    expect(verdicts(r)).toEqual({
      environment: 'passed',
      stdio: 'failed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(phase('stdio').step).toBe('compare with expect');
    expect(phase('stdio').message).toBe(
      'tools: expected 2, found 3; resource templates: expected 1, found 2; prompts: expected 1, found 2',
    );
    expect(r.cells[0]!.summary).toMatchObject({ tools: 3, resourceTemplates: 2, prompts: 2 });
  });
});

describe('a step says what was sent', () => {
  const ANSWER =
    'MCP error -32602: Input validation error: Invalid arguments for tool status: Invalid input: expected object, received undefined';

  it('by default (arguments omitted) on SDK 1.31.0 the step is re-sent with {} and fails naming the difference, quoting the answer', () => {
    const { r, phase } = cellOf('omitted-arguments', 1);
    expect(verdicts(r)).toEqual({
      environment: 'passed',
      stdio: 'failed',
      http: 'failed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    const stepMessage =
      `tools/call status: rejects a call without \`arguments\`; accepts \`{}\`: returned isError: ${JSON.stringify(ANSWER)} · sent tools/call {"name":"status"} (arguments omitted) · answer ` +
      JSON.stringify({ content: [{ type: 'text', text: ANSWER }], isError: true });
    for (const p of ['stdio', 'http'] as const) expect(phase(p).step).toBe('tools/call status');
    expect(phase('stdio').message).toBe(stepMessage);
    // http reports every sub-check in one message: the auth checks held, the round trip failed on the step.
    expect(phase('http').message).toBe(`no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: ${stepMessage}`);
    expect(phase('stdio').details!.steps).toEqual([
      { step: 'tools/call status', ms: expect.any(Number), arguments: 'omitted', emptyRetry: 'accepted' },
      // the steps after a failed one still run (their answers are compared across cells)
      { step: 'tools/call add', ms: expect.any(Number), arguments: 'configured' },
    ]);
  });

  it('with the opt-out (`noArguments: empty`) a step without arguments sends {}, which the same server accepts, and records it', () => {
    const { r, phase } = cellOf('omitted-arguments, noArguments empty', 0);
    expect(r.cells[0]!.verdict, table(r)).toBe('passed');
    expect(phase('stdio').details!.steps).toEqual([{ step: 'tools/call status', ms: expect.any(Number), arguments: 'empty' }]);
  });
});

describe('a configurable client', () => {
  it('without roots the server hides its roots-only tool: stdio fails with the count, and no server request was seen', () => {
    const { r, phase } = cellOf('roots-tool', 1);
    expect(verdicts(r)).toEqual({
      environment: 'passed',
      stdio: 'failed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(phase('stdio').message).toBe('tools: expected 2, found 1');
    expect(phase('stdio').details!.serverRequests).toEqual([]);
    expect(phase('http').details!.serverRequests).toEqual([]);
  });

  it('with client.roots the count includes the tool, roots/list is answered with the cell scratch root, and each phase records it', () => {
    const { r, phase } = cellOf('roots-tool, client with roots', 0);
    expect(r.cells[0]!.verdict, table(r)).toBe('passed');
    expect(r.cells[0]!.summary.tools).toBe(2);
    // tools/list asked once, the list_roots step once more: on HTTP. On stdio the lifecycle sub-checks share the
    // phase's session and call the step's tool again (repeated-initialize re-sends it), so the server asks twice more.
    const asked = { method: 'roots/list', answer: 'result' };
    expect(phase('stdio').details!.serverRequests).toEqual([asked, asked, asked, asked]);
    expect(phase('http').details!.serverRequests).toEqual([asked, asked]);
    expect(phase('bind').details?.serverRequests).toBeUndefined();
  });
});

describe('per-cell placeholders', () => {
  interface Rec {
    cell: string;
    transport: string;
    state?: string;
    scratch: string;
    cellDir: string;
  }

  it('two parallel cells get their own {tmp} and {cellDir}, in args and env, and {tmp} is gone after the run', async () => {
    const { r } = cellOf('_cell-scratch', 0);
    expect(
      r.cells.map((c) => [c.id, c.verdict]),
      table(r),
    ).toEqual([
      ['a', 'passed'],
      ['b', 'passed'],
    ]);
    const records: Rec[] = await Promise.all(
      (await readdir(recordDir)).map(async (f) => JSON.parse(await readFile(path.join(recordDir, f), 'utf8')) as Rec),
    );
    const stdio = Object.fromEntries(records.filter((x) => x.transport === 'stdio').map((x) => [x.cell, x]));
    expect(Object.keys(stdio).sort()).toEqual(['a', 'b']);
    for (const id of ['a', 'b']) {
      const rec = stdio[id]!;
      expect(path.isAbsolute(rec.cellDir)).toBe(true);
      expect(rec.scratch).toBe(path.join(rec.cellDir, '.mcp-matrix', 'tmp'));
      expect(rec.state).toBe(path.join(rec.scratch, 'state.json'));
      // Every server of the cell got the same values.
      for (const other of records.filter((x) => x.cell === id)) expect([other.scratch, other.cellDir]).toEqual([rec.scratch, rec.cellDir]);
      expect(existsSync(rec.scratch)).toBe(false);
      expect(existsSync(rec.cellDir)).toBe(false);
    }
    expect(stdio.a!.scratch).not.toBe(stdio.b!.scratch);
    expect(stdio.a!.cellDir).not.toBe(stdio.b!.cellDir);
  });
});

describe("the driver's own handles", () => {
  it('a client handle left open in the driver (MCP_MATRIX_TEST_LEAK_HANDLE=1) fails leaks, naming it', () => {
    const { r, phase } = cellOf('driver leak hook', 1);
    expect(verdicts(r)).toEqual({
      environment: 'passed',
      stdio: 'passed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'failed',
    });
    expect(phase('leaks').step).toBe('driver handles');
    expect(phase('leaks').message).toMatch(
      /^the driver's own client left 1 active handle\(s\): Timeout \(setInterval\) at \.mcp-matrix\/driver\/client\/adapter\.js:\d+$/,
    );
    expect(r.cells[0]!.summary.leakedHandles).toEqual([
      {
        owner: 'driver',
        type: 'Timeout',
        createdBy: 'setInterval',
        location: expect.stringMatching(/^\.mcp-matrix\/driver\/client\/adapter\.js:\d+$/),
      },
    ]);
  });

  it("a server that dies under tools/call fails stdio alone: the client's request timer left by that death (SDK 1.23.0) is recorded, not a leak", () => {
    const { r, phase } = cellOf('crash-on-tool, floor@1', 1);
    expect(r.cells[0]!.version).toBe('1.23.0');
    expect(verdicts(r)).toEqual({
      environment: 'passed',
      stdio: 'failed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(phase('stdio').step).toBe('tools/call crash');
    expect(phase('stdio').message).toBe(
      'tools/call crash: the server exited with code 1 (see its stderr) · sent tools/call {"name":"crash"} (arguments omitted)',
    );
    const pid = phase('stdio').details!.pid as number;
    expect(phase('leaks').message).toBeUndefined();
    expect(phase('leaks').details!.driverHandles).toEqual([
      {
        type: 'Timeout',
        createdBy: 'setTimeout',
        location: expect.stringMatching(/^node_modules\/@modelcontextprotocol\/sdk\/dist\/esm\/shared\/protocol\.js:\d+$/),
        leftAfterServerDied: { role: 'stdio', pid, request: 'tools/call crash' },
      },
    ]);
    expect(r.cells[0]!.summary.leakedHandles).toEqual([]);
  });
});
