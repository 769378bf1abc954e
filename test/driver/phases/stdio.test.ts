// The stdio phase run from src against a real server process (test/driver/fixtures/phase-server.mjs, a
// raw JSON-RPC server that misbehaves on demand) with the project's own SDK 1.x client. The e2e
// fixtures prove the same outcomes through the built CLI; these let the mutation run reach the phase.

import { join } from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpSession } from '../../../src/driver/client/adapter.js';
import type { DriverContext } from '../../../src/driver/context.js';
import { checkDefinition } from '../../../src/contract/checks.js';
import { LIFECYCLE_IDS } from '../../../src/driver/lifecycle/checks.js';
import { stdioPhase } from '../../../src/driver/phases/stdio.js';
import type { DriverSpec, Step } from '../../../src/contract/protocol.js';
import { ROOT } from '../helpers/cell.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { resolved } from '../helpers/levels.js';

const SERVER = join(ROOT, 'test/driver/fixtures/phase-server.mjs');
type StdioSpec = Exclude<DriverSpec['phases']['stdio'], false>;

const STEPS: Step[] = [{ tool: 'echo' }, { resource: 'mem://a' }, { prompt: 'greet' }];
const SENT_ECHO = 'sent tools/call {"name":"echo"} (arguments omitted)';

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-stdio-phase-');
});
afterAll(() => bench.dispose());

/**
 * The bound of a test that waits for a request the server never answers: every request before it has the same bound,
 * initialize among them, which a loaded machine's start of the server spends part of (a bare node start took 1.2 s at
 * load 17).
 */
const HANG_MS = 5000;

function spec(mode: string, over: Partial<StdioSpec> = {}, env: Record<string, string> = {}): StdioSpec {
  return resolved('stdio', {
    command: { bin: SERVER, args: [], env: { MODE: mode, ...env } },
    expect: {},
    steps: STEPS,
    timeoutMs: 10_000,
    ...over,
  });
}

/** What the server said in initialize and lists: every details key but pid and steps. */
function listed(prompts = true): Record<string, unknown> {
  return {
    serverInfo: { name: 'phase-server', version: '1.2.3' },
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: prompts ? { tools: {}, resources: {}, prompts: {} } : { tools: {}, resources: {} },
    surface: { tools: ['echo'], resources: ['a'], resourceTemplates: ['t'], prompts: prompts ? ['greet'] : null },
    shapes: {
      tools: [{ name: 'echo', arguments: {} }],
      resources: [{ name: 'a', uri: 'mem://a' }],
      resourceTemplates: [{ name: 't', uri: 'mem://{x}' }],
      ...(prompts ? { prompts: [{ name: 'greet', arguments: {} }] } : {}),
    },
    parity: {
      'tool echo': { inputSchema: { properties: {}, type: 'object' } },
      'resource template t': { uriTemplate: 'mem://{x}' },
      ...(prompts ? { 'prompt greet': {} } : {}),
    },
  };
}

const ms = expect.any(Number) as number;
const ALL_STEPS = [
  { step: 'tools/call echo', ms, arguments: 'omitted' },
  { step: 'resources/read mem://a', ms },
  { step: 'prompts/get greet', ms },
];
/** What answer parity compares: every step's normalised answer (src/driver/client/answer.ts). */
const COMPARED = {
  'tools/call echo': { isError: false, content: [{ type: 'text', text: 'sha256:bb2871d7f907 (9 chars)' }] },
  'resources/read mem://a': { contents: [{ uri: 'mem://a', text: 'sha256:559aead08264 (1 chars)' }] },
  'prompts/get greet': { messages: [{ role: 'user', content: { type: 'text', text: 'sha256:8f434346648f (2 chars)' } }] },
};
/** A check's requirement and spec, as the catalogue gives them. */
/** A check's citation; `negotiated`: the revision an MCP requirement was judged by (byRevision), once initialize answered. */
function source(id: string, negotiated?: string): Record<string, unknown> {
  const d = checkDefinition(id)!;
  const judged = d.revisions && d.spec && negotiated ? { spec: { ...d.spec, revision: `MCP ${negotiated}` }, revision: negotiated } : {};
  return { ...(d.requirement ? { requirement: d.requirement } : {}), ...(d.spec ? { spec: d.spec } : {}), ...judged };
}

/** The sub-checks of a passing session on the phase server: no slow step, `echo` has no typed argument. */
function passedChecks(steps = true): unknown[] {
  const at = (id: string, seen: Record<string, unknown>) => ({
    id,
    outcome: 'passed',
    level: 'require',
    ...source(id, '2025-11-25'),
    ...seen,
  });
  return [
    at('session', { message: 'initialize, the lists, every step and ping answered; stdout carried only JSON-RPC' }),
    at('unknown-method', { message: '`mcp-matrix/no-such-method` got -32601', short: '-32601' }),
    at('unknown-tool', {
      message: 'a call to the unknown tool `mcp-matrix-no-such-tool` got the error -32602',
      short: 'error',
      evidence: { behaviour: 'error', answer: 'error', code: -32602 },
    }),
    at('invalid-arguments', {
      outcome: 'skipped',
      message: steps
        ? 'n/a: no configured tool (echo) declares a required or typed argument'
        : 'n/a: no tool step in the config (the check calls only tools the config calls)',
      short: 'n/a',
    }),
    at(
      'repeated-initialize',
      steps
        ? {
            message: expect.stringMatching(
              /^a second initialize while `tools\/call echo` was in flight: the server accepts; the call in flight was answered \(\d+ ms\); ping answered$/,
            ),
            short: 'accepts',
            evidence: { behaviour: 'accepts', inFlight: 'tools/call echo', inFlightMs: ms },
          }
        : {
            message: 'a second initialize (no tool step: no call in flight): the server accepts; ping answered',
            short: 'accepts',
            evidence: { behaviour: 'accepts' },
          },
    ),
    at('cancellation', { outcome: 'skipped', message: 'n/a: no tool step is marked `slow: true` (the call to cancel)', short: 'n/a' }),
  ];
}

/** What the lifecycle edges hand to the run's parity comparison. */
/** details.lifecycle: the sub-checks' own time, every check in its order (bench/measure/lifecycle.ts reads it). */
const LIFECYCLE_TIMES = {
  durationMs: expect.any(Number),
  checks: LIFECYCLE_IDS.map((id) => expect.objectContaining({ id, durationMs: expect.any(Number) })),
};
const LIFECYCLE_COMPARED = { 'unknown-tool': { answer: 'error', code: -32602 }, 'repeated-initialize': { outcome: 'accepts' } };

/** The sub-checks of a session that failed at `step`: its failure, and the lifecycle edges not run. */
function sessionFailed(step: string, message: string): unknown[] {
  return [
    { id: 'session', outcome: 'failed', level: 'require', message, step },
    ...LIFECYCLE_IDS.map((id) => ({
      id,
      outcome: 'skipped',
      level: 'require',
      ...source(id, ['initialize', 'spawn'].includes(step) ? undefined : '2025-11-25'),
      message: `not run: the session failed at ${step}`,
      short: 'not run',
    })),
  ];
}

/** For a test of the session alone (a session made here, not a server's): the lifecycle edges off. */
const LIFECYCLE_OFF = Object.fromEntries(LIFECYCLE_IDS.map((id) => [id, 'off' as const]));

const SUMMARY = {
  leakedHandles: null,
  serverName: 'phase-server',
  serverVersion: '1.2.3',
  protocolVersion: LATEST_PROTOCOL_VERSION,
  tools: 1,
  resources: 1,
  resourceTemplates: 1,
  prompts: 1,
};

function server(ctx: DriverContext) {
  expect(ctx.servers).toHaveLength(1);
  return ctx.servers[0]!;
}

describe('stdioPhase: a server that answers', () => {
  it('passes: initialize, the whole surface, every step and ping; the summary names the server; stdin is ended', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec(''));
    const { proc, role } = server(ctx);
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'passed',
      details: {
        pid: proc.pid,
        ...listed(),
        steps: ALL_STEPS,
        compared: { ...COMPARED, ...LIFECYCLE_COMPARED },
        lifecycle: LIFECYCLE_TIMES,
      },
      checks: passedChecks(),
    });
    expect(proc.pid).toEqual(expect.any(Number));
    expect(role).toBe('stdio');
    expect(ctx.summary).toStrictEqual(SUMMARY);
    expect(ctx.answered.has(proc)).toBe(true);
    expect(proc.stopKind).toBe('stdin EOF');
    expect(await proc.waitExit(5000)).toMatchObject({ code: 0, signal: null });
  });

  it('runs the bin as its `#!` line says: `env -S node --expose-gc` reaches the server, with the probe', async () => {
    // A server that needs its `#!` flag exits 3 without it (issue 25: the flags were dropped).
    const bin = bench.server(
      'gc-server',
      `#!/usr/bin/env -S node --expose-gc\nif (typeof globalThis.gc !== 'function') process.exit(3);\nawait import(${JSON.stringify(SERVER)});\n`,
    );
    const ctx = bench.context();
    const r = await stdioPhase(ctx, { ...spec(''), command: { bin, args: [], env: { MODE: '' } } });
    expect(r).toMatchObject({ phase: 'stdio', verdict: 'passed' });
    const { proc } = server(ctx);
    expect(proc.probeRecords()).toContainEqual(expect.objectContaining({ type: 'probe', pid: proc.pid }));
  });

  it('an unadvertised capability is listed as null and counted 0, with no shapes or parity for it', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('no-prompts', { steps: [] }));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'passed',
      details: { pid: server(ctx).proc.pid, ...listed(false), steps: [], compared: LIFECYCLE_COMPARED, lifecycle: LIFECYCLE_TIMES },
      checks: passedChecks(false),
    });
    expect(ctx.summary).toStrictEqual({ ...SUMMARY, prompts: 0 });
  });

  it('a surface unlike `expect` fails "compare with expect", every difference named, before any step runs', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('', { expect: { tools: 2, resources: ['a'], prompts: ['greet', 'other'] } }));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'compare with expect',
      message: 'tools: expected 2, found 1; prompts: missing other',
      details: { pid: server(ctx).proc.pid, ...listed() },
      checks: sessionFailed('compare with expect', 'tools: expected 2, found 1; prompts: missing other'),
    });
    expect(ctx.summary).toStrictEqual(SUMMARY);
  });

  it('a surface that matches `expect` in full passes', async () => {
    const ctx = bench.context();
    const expected = { tools: ['echo'], resources: 1, resourceTemplates: ['t'], prompts: 1 };
    const r = await stdioPhase(ctx, spec('', { expect: expected, steps: [] }));
    expect(r.verdict).toBe('passed');
    expect(r.message).toBeUndefined();
  });
});

describe('stdioPhase: stdout noise', () => {
  it('fails "stdout" after every step passed, quoting the first line; every line is kept as stdoutNoise', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('junk'));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'stdout',
      message: 'wrote non-JSON-RPC output to stdout (the protocol channel): "starting phase-server"',
      details: { pid: server(ctx).proc.pid, ...listed(), steps: ALL_STEPS, compared: COMPARED },
      stdoutNoise: ['starting phase-server', 'second line'],
      checks: sessionFailed('stdout', 'wrote non-JSON-RPC output to stdout (the protocol channel): "starting phase-server"'),
    });
  });

  it('quotes at most 200 characters of the line, with secrets masked', async () => {
    const ctx = bench.context();
    const secret = 'sk-live-0123456789abcdef';
    ctx.redactor.add(secret);
    const line = `token ${secret} ${'x'.repeat(300)}`;
    const r = await stdioPhase(ctx, spec('', { steps: [] }, { JUNK: line }));
    const quoted = `token *** ${'x'.repeat(300)}`.slice(0, 200);
    expect(r.message).toBe(`wrote non-JSON-RPC output to stdout (the protocol channel): ${JSON.stringify(quoted)}`);
    expect(r.step).toBe('stdout');
  });

  it('a crash after noise names both: the crash first, the noise after', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('junk,crash-tool'));
    expect(r.step).toBe('tools/call echo');
    expect(r.message).toBe(
      `tools/call echo: the server exited with code 4 (see its stderr) · ${SENT_ECHO} (stdout also carried non-JSON-RPC output: "starting phase-server")`,
    );
    expect(r.stdoutNoise).toEqual(['starting phase-server', 'second line']);
  });
});

describe('stdioPhase: a server that dies or does not answer', () => {
  // The client's "Connection closed" usually comes first here; the stubbed client below forces the exit watcher first.
  it('exiting on initialize fails "initialize" with the exit code, the exit as the cause', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('crash-init'));
    const { proc } = server(ctx);
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'initialize',
      message: 'initialize: the server exited with code 3 (see its stderr)',
      details: { pid: proc.pid },
      checks: sessionFailed('initialize', 'initialize: the server exited with code 3 (see its stderr)'),
    });
    expect(ctx.summary).toStrictEqual({ leakedHandles: null });
    expect(ctx.answered.has(proc)).toBe(false);
  });

  it('killed by a signal on initialize: the signal is named', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('kill-init'));
    expect(r.message).toBe('initialize: the server exited with signal SIGKILL (see its stderr)');
  });

  it("an error answer, then an exit: the server's answer is the cause, its exit named after it", async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('error-init'));
    expect(r.step).toBe('initialize');
    expect(r.message).toBe('initialize: MCP error -32602: unsupported protocol version (the server exited with code 5; see its stderr)');
  });

  it('a bin that cannot start fails "initialize" naming the bin and the spawn error', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, { ...spec(''), command: { bin: '/nonexistent/server', args: [], env: {} } });
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'initialize',
      message: 'initialize: could not start /nonexistent/server: spawn /nonexistent/server ENOENT',
      details: { pid: undefined },
      checks: sessionFailed('initialize', 'initialize: could not start /nonexistent/server: spawn /nonexistent/server ENOENT'),
    });
  });

  it('exiting during a step names the step, the exit and the request as sent; steps so far are kept', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('crash-tool'));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'tools/call echo',
      message: `tools/call echo: the server exited with code 4 (see its stderr) · ${SENT_ECHO}`,
      details: { pid: server(ctx).proc.pid, ...listed(), steps: [] },
      checks: sessionFailed('tools/call echo', `tools/call echo: the server exited with code 4 (see its stderr) · ${SENT_ECHO}`),
    });
    // What the client still holds from that request is the death's, not a leak (the leaks phase reads this).
    expect(ctx.diedMidRequest).toEqual([
      { role: 'stdio', pid: server(ctx).proc.pid, request: 'tools/call echo', from: expect.any(Number), to: expect.any(Number) },
    ]);
    const { from, to } = ctx.diedMidRequest[0]!;
    expect(to).toBeGreaterThan(from);
  });

  it('a step without an answer times out: the message is the timeout and the request, without the step prefix', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('hang-tool', { timeoutMs: HANG_MS }));
    expect(r.step).toBe('tools/call echo');
    expect(r.message).toBe(`timed out after ${HANG_MS} ms waiting for tools/call echo · ${SENT_ECHO}`);
    expect(server(ctx).proc.running).toBe(true);
    expect(ctx.diedMidRequest).toEqual([]);
  });

  it('a JSON-RPC error answer fails that step and names it; its answer is recorded for parity, and later steps still run', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('error-tool'));
    const answer = '{"error":{"code":-32603,"message":"MCP error -32603: boom"}}';
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'tools/call echo',
      message: `tools/call echo: answered with error -32603: MCP error -32603: boom · ${SENT_ECHO} · answer ${answer}`,
      details: {
        pid: server(ctx).proc.pid,
        ...listed(),
        steps: ALL_STEPS,
        compared: { ...COMPARED, 'tools/call echo': { error: { code: -32603 } } },
        failedSteps: [{ item: 'tools/call echo', step: 'tools/call echo' }],
      },
      checks: sessionFailed(
        'tools/call echo',
        `tools/call echo: answered with error -32603: MCP error -32603: boom · ${SENT_ECHO} · answer ${answer}`,
      ),
    });
  });

  it('an isError answer to a step without expect fails it, records the answer and marks it for the run to judge across cells', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('iserror-tool'));
    expect(r).toMatchObject({ verdict: 'failed', step: 'tools/call echo' });
    expect(r.message).toMatch(/^tools\/call echo: returned isError: "refused" · /);
    expect(r.details).toMatchObject({
      steps: ALL_STEPS,
      compared: {
        ...COMPARED,
        'tools/call echo': { isError: true, content: [{ type: 'text', text: expect.stringMatching(/^sha256:/) as string }] },
      },
      failedSteps: [{ item: 'tools/call echo', step: 'tools/call echo', unexpectedIsError: true }],
    });
    // With `expect`, the same answer passes; without isError expected it is an expectation, not a contest.
    const expected = await stdioPhase(bench.context(), spec('iserror-tool', { steps: [{ tool: 'echo', expect: { text: 'x' } }] }));
    expect(expected.details!.failedSteps).toEqual([{ item: 'tools/call echo', step: 'tools/call echo' }]);
  });

  it('a server that never answers initialize times out naming initialize', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('hang-init', { timeoutMs: 1500 }));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'initialize',
      message: 'timed out after 1500 ms waiting for initialize',
      details: { pid: server(ctx).proc.pid },
      checks: sessionFailed('initialize', 'timed out after 1500 ms waiting for initialize'),
    });
  });

  it('an error answer to a list names the list', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('error-list'));
    expect(r.step).toBe('list resources');
    expect(r.message).toBe('list resources: MCP error -32603: no list');
  });

  it('noise quoted after a crash is masked and cut at 200 characters too', async () => {
    const ctx = bench.context();
    ctx.redactor.add('sk-live-0123456789abcdef');
    const r = await stdioPhase(ctx, spec('crash-tool', {}, { JUNK: `token sk-live-0123456789abcdef ${'y'.repeat(300)}` }));
    const quoted = JSON.stringify(`token *** ${'y'.repeat(300)}`.slice(0, 200));
    expect(r.message).toBe(
      `tools/call echo: the server exited with code 4 (see its stderr) · ${SENT_ECHO} (stdout also carried non-JSON-RPC output: ${quoted})`,
    );
  });

  it('a server that does not answer ping fails "ping" after every step passed', async () => {
    const ctx = bench.context();
    const r = await stdioPhase(ctx, spec('hang-ping', { timeoutMs: HANG_MS }));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'ping',
      message: `timed out after ${HANG_MS} ms waiting for ping`,
      details: { pid: server(ctx).proc.pid, ...listed(), steps: ALL_STEPS, compared: COMPARED },
      checks: sessionFailed('ping', `timed out after ${HANG_MS} ms waiting for ping`),
    });
  });
});

describe('stdioPhase: the client', () => {
  it('a client that cannot load fails "load the client" with the import error, and the server gets stdin EOF', async () => {
    const ctx = bench.context({ major: 2 });
    const r = await stdioPhase(ctx, spec(''));
    expect(Object.keys(r).sort()).toEqual(['checks', 'durationMs', 'message', 'phase', 'step', 'verdict']);
    expect(r).toMatchObject({ phase: 'stdio', verdict: 'failed', step: 'load the client' });
    expect(r.message).toMatch(
      /^could not load the client @modelcontextprotocol\/client@\(version unknown\): Cannot find package '@modelcontextprotocol\/client' imported from \/.*adapter\.ts \(the cell's own SDK\)$/,
    );
    const { proc } = server(ctx);
    expect(proc.stopKind).toBe('stdin EOF');
    expect(await proc.waitExit(5000)).toMatchObject({ code: 0 });
  });
});

/**
 * The client replaced by a session made here (the server process is still real): what the SDK clients
 * never do — a lost connection they do not report, an initialize answer the transport did not see,
 * a session that cannot be made — must still end in the right result.
 */
function withSession(ctx: DriverContext, make: (real: McpSession) => Partial<McpSession>): { closed: number } {
  const loaded = ctx.adapter();
  const seen = { closed: 0 };
  ctx.adapter = async () => {
    const adapter = await loaded;
    return {
      ...adapter,
      session(timeoutMs: number) {
        const real = adapter.session(timeoutMs);
        const over = make(real);
        return {
          ...real,
          noArguments: real.noArguments,
          connect: (t: unknown) => real.connect(t),
          capabilities: () => real.capabilities(),
          serverInfo: () => real.serverInfo(),
          protocolVersion: () => real.protocolVersion(),
          list: (kind) => real.list(kind),
          ping: () => real.ping(),
          close: async () => {
            seen.closed++;
            await real.close();
          },
          ...over,
        };
      },
    };
  };
  return seen;
}

describe('stdioPhase: what only a client other than the SDK 1.x one could do', () => {
  it("a client that never reports the lost connection: the server's exit ends the step, worded as when it does", async () => {
    const ctx = bench.context();
    withSession(ctx, (real) => ({ connect: (t) => new Promise<void>(() => void real.connect(t).catch(() => {})) }));
    const r = await stdioPhase(ctx, spec('crash-init'));
    expect(r.step).toBe('initialize');
    expect(r.message).toBe('initialize: the server exited with code 3 (see its stderr)');
  });

  it('… and with its signal', async () => {
    const ctx = bench.context();
    withSession(ctx, (real) => ({ connect: (t) => new Promise<void>(() => void real.connect(t).catch(() => {})) }));
    const r = await stdioPhase(ctx, spec('kill-init'));
    expect(r.message).toBe('initialize: the server exited with signal SIGKILL (see its stderr)');
  });

  it("without an initialize result on the transport, the session's own answers are recorded; the session is closed", async () => {
    const ctx = bench.context();
    const seen = withSession(ctx, () => ({
      connect: async () => {},
      serverInfo: () => ({ name: 'from-session', version: '9.9.9' }),
      protocolVersion: () => '2024-11-05',
      capabilities: () => ({ tools: {} }),
      list: async (kind) => (kind === 'tools' ? [{ name: 'only', inputSchema: { type: 'object' } }] : null),
      ping: async () => {},
    }));
    const r = await stdioPhase(ctx, spec('', { steps: [], checks: LIFECYCLE_OFF }));
    expect(r.verdict).toBe('passed');
    expect(r.details).toMatchObject({
      serverInfo: { name: 'from-session', version: '9.9.9' },
      protocolVersion: '2024-11-05',
      capabilities: { tools: {} },
      surface: { tools: ['only'], resources: null, resourceTemplates: null, prompts: null },
    });
    expect(ctx.summary).toStrictEqual({
      leakedHandles: null,
      serverName: 'from-session',
      serverVersion: '9.9.9',
      protocolVersion: '2024-11-05',
      tools: 1,
      resources: 0,
      resourceTemplates: 0,
      prompts: 0,
    });
    expect(seen.closed).toBe(1);
  });

  it("the initialize result on the transport wins over the session's getters", async () => {
    const ctx = bench.context();
    withSession(ctx, () => ({
      serverInfo: () => ({ name: 'from-session', version: '9.9.9' }),
      protocolVersion: () => '2024-11-05',
      capabilities: () => ({ tools: {} }),
    }));
    const r = await stdioPhase(ctx, spec('', { steps: [] }));
    expect(r.details).toMatchObject({ serverInfo: { name: 'phase-server', version: '1.2.3' }, protocolVersion: LATEST_PROTOCOL_VERSION });
    expect(r.details!.capabilities).toStrictEqual({ tools: {}, resources: {}, prompts: {} });
  });

  it('a server that gives no name, version or protocol leaves them out of the summary', async () => {
    const ctx = bench.context();
    withSession(ctx, () => ({
      connect: async () => {},
      serverInfo: () => undefined,
      protocolVersion: () => undefined,
      capabilities: () => ({}),
      list: async () => null,
      ping: async () => {},
    }));
    const r = await stdioPhase(ctx, spec('', { steps: [], checks: LIFECYCLE_OFF }));
    expect(r.verdict).toBe('passed');
    expect(ctx.summary).toStrictEqual({ leakedHandles: null, tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 });
    const named = bench.context();
    withSession(named, () => ({
      connect: async () => {},
      serverInfo: () => ({}),
      protocolVersion: () => undefined,
      list: async () => null,
    }));
    await stdioPhase(named, spec('', { steps: [], checks: LIFECYCLE_OFF }));
    expect(named.summary).toStrictEqual({ leakedHandles: null, tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 });
  });

  it('a session that cannot be made fails the step it was in ("spawn"), and nothing is closed', async () => {
    const ctx = bench.context();
    const loaded = ctx.adapter();
    ctx.adapter = async () => ({
      ...(await loaded),
      session: () => {
        throw new Error('no session');
      },
    });
    const r = await stdioPhase(ctx, spec(''));
    expect(r).toStrictEqual({
      phase: 'stdio',
      durationMs: ms,
      verdict: 'failed',
      step: 'spawn',
      message: 'spawn: no session',
      details: { pid: server(ctx).proc.pid },
      checks: sessionFailed('spawn', 'spawn: no session'),
    });
  });
});
