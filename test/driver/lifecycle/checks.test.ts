// The lifecycle checks without a call in flight (lifecycle-checks.ts: an unknown method, an unknown tool,
// schema-invalid arguments, and how the checks run in order), judged on answers a scripted wire gives: a
// unit test of the judgements alone. The same checks against real server processes, each defect in its own
// mode: test/driver/phases/lifecycle.test.ts.
import { describe, expect, it } from 'vitest';
import { COMPARED_KEY } from '../../../src/contract/compared.js';
import {
  errorShape,
  invalidArgumentsFor,
  lifecycleChecks,
  UNKNOWN_METHOD,
  UNKNOWN_TOOL,
  type LifecycleTimes,
} from '../../../src/driver/lifecycle/checks.js';
import type { Answer, Wire } from '../../../src/driver/lifecycle/wire.js';
import type { Step } from '../../../src/contract/protocol.js';
import type { SubCheckResult } from '../../../src/results/types.js';
import { levels } from '../helpers/levels.js';

type Script = (method: string, params: Record<string, unknown>) => Answer;

/** A wire whose answers come from `script`; it records what was sent and how often the session was ended. */
function scripted(script: Script) {
  const sent: [string, Record<string, unknown>][] = [];
  let ends = 0;
  const wire: Wire = {
    request(method, params = {}) {
      sent.push([method, params]);
      return { id: String(sent.length), answer: Promise.resolve(script(method, params)) };
    },
    notify: () => Promise.resolve(null),
    gone: new Promise(() => {}),
    end: () => {
      ends++;
      return Promise.resolve(null);
    },
  };
  return { wire, sent, ends: () => ends };
}

const ECHO = { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };
const right: Script = (method, params) => {
  if (method === UNKNOWN_METHOD) return { kind: 'error', code: -32601, message: 'Method not found' };
  if (method === 'tools/list') return { kind: 'result', result: { tools: [ECHO] } };
  if (method === 'tools/call' && params.name === UNKNOWN_TOOL) return { kind: 'error', code: -32602, message: 'Unknown tool' };
  if (method === 'tools/call') return { kind: 'result', result: { isError: true, content: [] } };
  return { kind: 'none', why: 'not scripted' };
};
const ECHO_STEP: Step = { tool: 'echo', arguments: { text: 'hi' } };
/** The two checks of a call in flight are off: they have their own timing (lifecycle-in-flight.ts). */
const OFF = { 'repeated-initialize': 'off', cancellation: 'off' } as const;

const run = async (script: Script, steps: Step[] = [ECHO_STEP], checks: Record<string, 'require' | 'warn' | 'off'> = OFF) => {
  const w = scripted(script);
  const details: Record<string, unknown> = {};
  const results = await lifecycleChecks(w.wire, { steps, timeoutMs: 1000, checks: levels('stdio', checks) }, details);
  const by = (id: string) => results.find((r) => r.id === id)!;
  return { ...w, details, results, by };
};
const seen = (r: SubCheckResult) => ({
  outcome: r.outcome,
  level: r.level,
  message: r.message,
  ...(r.short !== undefined ? { short: r.short } : {}),
  ...(r.step !== undefined ? { step: r.step } : {}),
  ...(r.evidence !== undefined ? { evidence: r.evidence } : {}),
});

describe('lifecycleChecks on a scripted wire', () => {
  it('a right server passes each, in order; what parity compares is recorded; the session is ended once', async () => {
    const r = await run(right);
    expect(r.results.map((c) => [c.id, c.outcome])).toEqual([
      ['unknown-method', 'passed'],
      ['unknown-tool', 'passed'],
      ['invalid-arguments', 'passed'],
      ['repeated-initialize', 'skipped'],
      ['cancellation', 'skipped'],
    ]);
    expect(seen(r.by('unknown-method'))).toEqual({
      outcome: 'passed',
      level: 'require',
      message: `\`${UNKNOWN_METHOD}\` got -32601`,
      short: '-32601',
    });
    expect(seen(r.by('unknown-tool'))).toEqual({
      outcome: 'passed',
      level: 'require',
      message: `a call to the unknown tool \`${UNKNOWN_TOOL}\` got the error -32602`,
      short: 'error',
      evidence: { behaviour: 'error', answer: 'error', code: -32602 },
    });
    expect(seen(r.by('invalid-arguments'))).toEqual({
      outcome: 'passed',
      level: 'require',
      message: '`tools/call echo` with {} (without the required `text`) got an isError result',
      short: 'isError',
      evidence: { behaviour: 'isError', answer: 'isError', tool: 'echo' },
    });
    expect(seen(r.by('cancellation'))).toEqual({ outcome: 'skipped', level: 'off', message: 'off in the config (not run)', short: 'off' });
    expect(r.details[COMPARED_KEY]).toEqual({
      'unknown-tool': { answer: 'error', code: -32602 },
      'invalid-arguments': { answer: 'isError' },
    });
    expect(r.sent).toEqual([
      [UNKNOWN_METHOD, {}],
      ['tools/call', { name: UNKNOWN_TOOL, arguments: {} }],
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: {} }],
    ]);
    expect(r.ends()).toBe(1);
  });

  it('records the wall time of the checks, of each one run (in order), and the waits each made by design', async () => {
    const slowTool: Step = { tool: 'echo', arguments: { text: 'hi' }, slow: true };
    // The slow call answers at once: the cancellation finds it not slow (a config warning) after its under-way wait alone.
    let calls = 0;
    const before = Date.now();
    const r = await run(
      (method, params) => {
        if (method === 'tools/call' && params.name === 'echo' && params.arguments && 'text' in (params.arguments as object)) {
          calls++;
          return calls === 1 ? ({ kind: 'result', result: {} } as Answer) : right(method, params);
        }
        return method === 'initialize' || method === 'ping' ? { kind: 'result', result: {} } : right(method, params);
      },
      [slowTool],
      { 'unknown-tool': 'off' },
    );
    const wall = Date.now() - before;
    const times = r.details.lifecycle as LifecycleTimes;
    expect(times.checks.map((c) => c.id)).toEqual(['unknown-method', 'invalid-arguments', 'repeated-initialize', 'cancellation']);
    const sum = times.checks.reduce((a, c) => a + c.durationMs, 0);
    // The checks' own time, all of them and nothing before or after the call (all on Date.now, so no clock rounding
    // between them); what a loaded machine adds between two checks is not bounded here (the bench shows it).
    expect(times.durationMs).toBeGreaterThanOrEqual(sum);
    expect(times.durationMs).toBeLessThanOrEqual(wall);
    expect(times.checks[0]).toEqual({ id: 'unknown-method', durationMs: expect.any(Number) });
    expect(times.checks[2]!.waits!.map((w) => w.for)).toEqual(['the call in flight, answered']);
    const cancel = times.checks[3]!;
    expect(cancel.waits!.map((w) => w.for)).toEqual(['the call to be under way']);
    for (const c of times.checks) expect(c.durationMs).toBeGreaterThanOrEqual((c.waits ?? []).reduce((a, w) => a + w.ms, 0));
  });

  it.each<[Answer, string, string]>([
    [{ kind: 'error', code: -32600, message: 'Invalid Request' }, '-32600 (want -32601)', 'the error -32600 "Invalid Request"'],
    [{ kind: 'error', message: 'nope' }, 'no code (want -32601)', 'the error (no code) "nope"'],
    [{ kind: 'result', result: {} }, 'a result (want -32601)', 'a result'],
    [{ kind: 'none', why: 'no answer within 1000 ms' }, 'no answer', 'no answer within 1000 ms'],
  ])('an unknown method answered %o fails: %s', async (answer, short, got) => {
    const r = await run((m, p) => (m === UNKNOWN_METHOD ? answer : right(m, p)));
    expect(seen(r.by('unknown-method'))).toEqual({
      outcome: 'failed',
      level: 'require',
      message: `a request for the unknown method \`${UNKNOWN_METHOD}\` got ${got} (want the error -32601, Method not found)`,
      short,
      step: UNKNOWN_METHOD,
    });
    // The server is still there: the later checks run.
    expect(r.by('unknown-tool').outcome).toBe('passed');
  });

  it('a server gone under a check leaves every later check unrun, naming why and where; off stays off', async () => {
    const r = await run(
      (m, p) => (m === UNKNOWN_METHOD ? { kind: 'closed', why: 'the server exited (code 3)' } : right(m, p)),
      [ECHO_STEP],
      {
        cancellation: 'off',
        'repeated-initialize': 'warn',
      },
    );
    expect(r.by('unknown-method')).toMatchObject({
      outcome: 'failed',
      short: 'no answer',
      message: expect.stringContaining('got the server exited (code 3) (want'),
    });
    const unrun = { outcome: 'skipped', message: 'not run: the server exited (code 3) during unknown-method', short: 'not run' };
    expect(seen(r.by('unknown-tool'))).toEqual({ ...unrun, level: 'require' });
    expect(seen(r.by('invalid-arguments'))).toEqual({ ...unrun, level: 'require' });
    expect(seen(r.by('repeated-initialize'))).toEqual({ ...unrun, level: 'warn' });
    expect(r.by('cancellation')).toMatchObject({ outcome: 'skipped', level: 'off' });
    expect(r.sent).toEqual([[UNKNOWN_METHOD, {}]]);
    expect(r.ends()).toBe(1);
  });

  it('the unknown tool: an isError result passes; a success fails, no answer fails, gone leaves the rest unrun', async () => {
    const tool = (a: Answer) => (m: string, p: Record<string, unknown>) =>
      m === 'tools/call' && p.name === UNKNOWN_TOOL ? a : right(m, p);
    const isError = await run(tool({ kind: 'result', result: { isError: true } }));
    expect(seen(isError.by('unknown-tool'))).toMatchObject({
      outcome: 'passed',
      message: `a call to the unknown tool \`${UNKNOWN_TOOL}\` got an isError result`,
      short: 'isError',
      evidence: { behaviour: 'isError', answer: 'isError' },
    });
    const noCode = await run(tool({ kind: 'error', message: 'x' }));
    expect(noCode.by('unknown-tool').message).toBe(`a call to the unknown tool \`${UNKNOWN_TOOL}\` got the error (no code)`);
    expect((noCode.details[COMPARED_KEY] as Record<string, unknown>)['unknown-tool']).toEqual({ answer: 'error' });
    const success = await run(tool({ kind: 'result', result: { content: [] } }));
    expect(seen(success.by('unknown-tool'))).toEqual({
      outcome: 'failed',
      level: 'require',
      message: `a call to the unknown tool \`${UNKNOWN_TOOL}\` got a success result (want an error or an isError result)`,
      short: 'success',
      step: `tools/call ${UNKNOWN_TOOL}`,
    });
    expect(success.details[COMPARED_KEY]).toEqual({ 'invalid-arguments': { answer: 'isError' } });
    const none = await run(tool({ kind: 'none', why: 'no answer within 1000 ms' }));
    expect(none.by('unknown-tool')).toMatchObject({
      outcome: 'failed',
      short: 'no answer',
      message: `a call to the unknown tool \`${UNKNOWN_TOOL}\` got no answer within 1000 ms (want an error or an isError result)`,
    });
    expect(none.by('invalid-arguments').outcome).toBe('passed');
    const closed = await run(tool({ kind: 'closed', why: 'the session is unknown to the server (404)' }));
    expect(closed.by('invalid-arguments').message).toBe('not run: the session is unknown to the server (404) during unknown-tool');
  });

  it('invalid arguments: without a tool step, or without a required or typed argument, it is n/a', async () => {
    const none = await run(right, [{ prompt: 'greet' } as unknown as Step]);
    expect(seen(none.by('invalid-arguments'))).toEqual({
      outcome: 'skipped',
      level: 'require',
      message: 'n/a: no tool step in the config (the check calls only tools the config calls)',
      short: 'n/a',
    });
    expect(none.sent.map(([m]) => m)).not.toContain('tools/list');
    const loose = await run(
      (m, p) =>
        m === 'tools/list' ? { kind: 'result', result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } } : right(m, p),
      [ECHO_STEP, { tool: 'echo' }, { tool: 'unlisted' }],
    );
    expect(seen(loose.by('invalid-arguments'))).toEqual({
      outcome: 'skipped',
      level: 'require',
      message: 'n/a: no configured tool (echo, unlisted) declares a required or typed argument',
      short: 'n/a',
    });
  });

  it('invalid arguments: the tool list is read page by page, up to the configured tool', async () => {
    const r = await run((m, p) => {
      if (m !== 'tools/list') return right(m, p);
      return p.cursor === 'page-2'
        ? { kind: 'result', result: { tools: [ECHO] } }
        : { kind: 'result', result: { tools: [{ name: 'other' }], nextCursor: 'page-2' } };
    });
    expect(r.by('invalid-arguments').outcome).toBe('passed');
    expect(r.sent.filter(([m]) => m === 'tools/list')).toEqual([
      ['tools/list', {}],
      ['tools/list', { cursor: 'page-2' }],
    ]);
    // A page without `tools`, and a cursor that is not a string, end the list.
    const odd = await run((m, p) => (m === 'tools/list' ? { kind: 'result', result: { nextCursor: 7 } } : right(m, p)));
    expect(odd.by('invalid-arguments').short).toBe('n/a');
    expect(odd.sent.filter(([m]) => m === 'tools/list')).toHaveLength(1);
    // A server that always hands another cursor is read 20 pages at most.
    const endless = await run((m, p) =>
      m === 'tools/list' ? { kind: 'result', result: { tools: [], nextCursor: 'again' } } : right(m, p),
    );
    expect(endless.sent.filter(([m]) => m === 'tools/list')).toHaveLength(20);
  });

  it('invalid arguments: tools/list failing fails the check, naming it; gone, it leaves the rest unrun', async () => {
    const r = await run((m, p) => (m === 'tools/list' ? { kind: 'error', code: -32603, message: 'boom' } : right(m, p)), [ECHO_STEP], {
      cancellation: 'off',
    });
    expect(seen(r.by('invalid-arguments'))).toEqual({
      outcome: 'failed',
      level: 'require',
      message: 'tools/list got the error -32603 "boom"',
      short: 'tools/list failed',
      step: 'tools/list',
    });
    const gone = await run(
      (m, p) => (m === 'tools/list' ? { kind: 'closed', why: 'the server exited (code 1)' } : right(m, p)),
      [ECHO_STEP],
      {
        cancellation: 'require',
      },
    );
    expect(seen(gone.by('repeated-initialize'))).toEqual({
      outcome: 'skipped',
      level: 'require',
      message: 'not run: the server exited (code 1) during invalid-arguments',
      short: 'not run',
    });
    expect(gone.by('cancellation').message).toBe('not run: the server exited (code 1) during invalid-arguments');
    // Cancellation was to end the session, but never ran: it is ended here.
    expect(gone.ends()).toBe(1);
  });

  it('invalid arguments answered with a success fails, quoting the result; no answer fails; gone leaves the rest unrun', async () => {
    const call = (a: Answer) => (m: string, p: Record<string, unknown>) => (m === 'tools/call' && p.name === 'echo' ? a : right(m, p));
    const long = 'x'.repeat(300);
    const success = await run(call({ kind: 'result', result: { content: [{ type: 'text', text: long }] } }));
    const quoted = JSON.stringify({ content: [{ type: 'text', text: long }] }).slice(0, 200);
    expect(seen(success.by('invalid-arguments'))).toEqual({
      outcome: 'failed',
      level: 'require',
      message: `\`tools/call echo\` with {} (without the required \`text\`) got a success result: ${quoted} (want an error or an isError result: the arguments do not match its inputSchema)`,
      short: 'success',
      step: 'tools/call echo',
    });
    expect(success.details[COMPARED_KEY]).toEqual({ 'unknown-tool': { answer: 'error', code: -32602 } });
    const none = await run(call({ kind: 'none', why: 'no answer within 1000 ms' }));
    expect(none.by('invalid-arguments')).toMatchObject({
      outcome: 'failed',
      short: 'no answer',
      message: expect.stringContaining('got no answer within 1000 ms (want'),
    });
    const error = await run(call({ kind: 'error', code: -32602, message: 'Invalid params' }));
    expect(seen(error.by('invalid-arguments'))).toMatchObject({
      outcome: 'passed',
      message: '`tools/call echo` with {} (without the required `text`) got the error -32602',
      short: 'error',
      evidence: { behaviour: 'error', answer: 'error', code: -32602, tool: 'echo' },
    });
    const gone = await run(call({ kind: 'closed', why: 'the server exited (code 9)' }), [ECHO_STEP], { cancellation: 'off' });
    expect(gone.by('repeated-initialize').message).toBe('not run: the server exited (code 9) during invalid-arguments');
  });
});

describe('lifecycleChecks with the checks of a call in flight on', () => {
  const inFlight: Script = (m, p) => (m === 'initialize' || m === 'ping' ? { kind: 'result', result: {} } : right(m, p));
  const ALL = {};

  it("a step marked slow that answers at once: cancellation is the config's mistake, a warning whatever its level, and it ends the session itself", async () => {
    const r = await run(
      inFlight,
      [
        { tool: 'echo', arguments: { text: 'hi', n: 1 } },
        { tool: 'slow', slow: true },
      ],
      ALL,
    );
    expect(r.results.map((c) => [c.id, c.outcome, c.level])).toEqual([
      ['unknown-method', 'passed', 'require'],
      ['unknown-tool', 'passed', 'require'],
      ['invalid-arguments', 'passed', 'require'],
      ['repeated-initialize', 'passed', 'require'],
      ['cancellation', 'not-measured', 'warn'],
    ]);
    expect(r.by('cancellation').message).toMatch(/^config: `tools\/call slow` is marked slow but answered in \d+ ms/);
    // The configured call's own arguments stay; only the required one is left out.
    expect(r.sent).toContainEqual(['tools/call', { name: 'echo', arguments: { n: 1 } }]);
    // The second initialize names the harness as its client.
    expect(r.sent).toContainEqual([
      'initialize',
      { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'mcp-matrix-driver', version: '0.1.0' } },
    ]);
    expect(r.ends()).toBe(1);
  });

  it('the same finding from a check at warn stays at warn; without a slow step cancellation is n/a, ending the session once', async () => {
    const r = await run(inFlight, [{ tool: 'slow', slow: true }], { cancellation: 'warn' });
    expect(r.by('cancellation')).toMatchObject({ outcome: 'not-measured', level: 'warn' });
    const none = await run(inFlight, [ECHO_STEP], ALL);
    expect(seen(none.by('cancellation'))).toEqual({
      outcome: 'skipped',
      level: 'require',
      message: 'n/a: no tool step is marked `slow: true` (the call to cancel)',
      short: 'n/a',
    });
    expect(none.ends()).toBe(1);
  });

  it('a step marked sideEffects is never called again: the checks use another tool step, or say why they have none', async () => {
    const SEND: Step = { tool: 'echo', arguments: { text: 'hi' }, sideEffects: true };
    const other = await run(inFlight, [SEND, { tool: 'status', arguments: { text: 'x' } }], ALL);
    const calls = other.sent.filter(([m, p]) => m === 'tools/call' && p.name !== UNKNOWN_TOOL);
    expect(calls).toEqual([['tools/call', { name: 'status', arguments: { text: 'x' } }]]);
    expect(other.by('repeated-initialize').message).toMatch(/^a second initialize while `tools\/call status` was in flight/);
    expect(other.by('invalid-arguments').message).toMatch(
      /^n\/a: no configured tool \(status\) declares a required or typed argument; `tools\/call echo` is marked `sideEffects: true` \(not called again\)$/,
    );

    const only = await run(inFlight, [{ ...SEND, slow: true }], ALL);
    expect(only.sent.filter(([m, p]) => m === 'tools/call' && p.name !== UNKNOWN_TOOL)).toEqual([]);
    expect(seen(only.by('invalid-arguments'))).toEqual({
      outcome: 'skipped',
      level: 'require',
      message: 'n/a: every configured tool step: `tools/call echo` is marked `sideEffects: true` (not called again)',
      short: 'n/a',
    });
    expect(only.by('repeated-initialize')).toMatchObject({ outcome: 'passed' });
    expect(only.by('repeated-initialize').message).toMatch(
      /^a second initialize \(`tools\/call echo` is marked `sideEffects: true` \(not called again\): no call in flight\): the server accepts/,
    );
    expect(seen(only.by('cancellation'))).toEqual({
      outcome: 'skipped',
      level: 'require',
      message: 'n/a: the slow step `tools/call echo` is marked `sideEffects: true` (not called again to be cancelled)',
      short: 'n/a',
    });
    expect(only.ends()).toBe(1);
  });

  it('the names it sends are fixed: an unknown method and an unknown tool no server has', async () => {
    const r = await run(right);
    expect(r.sent.slice(0, 2)).toEqual([
      ['mcp-matrix/no-such-method', {}],
      ['tools/call', { name: 'mcp-matrix-no-such-tool', arguments: {} }],
    ]);
  });
});

describe('errorShape', () => {
  it.each<[Answer, ReturnType<typeof errorShape>]>([
    [
      { kind: 'error', code: -32602, message: 'x' },
      { answer: 'error', code: -32602 },
    ],
    [{ kind: 'error', message: 'x' }, { answer: 'error' }],
    [{ kind: 'result', result: { isError: true } }, { answer: 'isError' }],
    [{ kind: 'result', result: { isError: 'true' } }, null],
    [{ kind: 'result', result: {} }, null],
    [{ kind: 'none', why: 'x' }, null],
    [{ kind: 'closed', why: 'x' }, null],
  ])('%o → %o', (answer, shape) => {
    expect(errorShape(answer)).toStrictEqual(shape);
  });
});

describe('invalidArgumentsFor', () => {
  it('leaves out the first required key (strings only)', () => {
    expect(invalidArgumentsFor({ required: [3, 'a', 'b'] }, { a: 1, b: 2, c: 3 })).toEqual({
      args: { b: 2, c: 3 },
      why: 'without the required `a`',
    });
  });
  it.each([
    ['string', 12345],
    ['number', 'not a number'],
    ['integer', 'not an integer'],
    ['boolean', 'not a boolean'],
    ['array', 'not an array'],
    ['object', 'not an object'],
  ])('else gives the first typed key (%s) a value of the wrong type', (type, wrong) => {
    const schema = { required: [], properties: { free: {}, odd: { type: 'null' }, nothing: null, key: { type } } };
    expect(invalidArgumentsFor(schema, { other: 1 })).toEqual({
      args: { other: 1, key: wrong },
      why: `\`key\` is ${JSON.stringify(wrong)}, not a ${type}`,
    });
  });
  it('a schema with neither, or none at all, or a type that is not a string: null', () => {
    expect(invalidArgumentsFor(undefined, {})).toBeNull();
    expect(invalidArgumentsFor({ properties: { x: {} } }, {})).toBeNull();
    expect(invalidArgumentsFor({ properties: null }, {})).toBeNull();
    expect(invalidArgumentsFor({ required: 'a', properties: 'x' }, {})).toBeNull();
    expect(invalidArgumentsFor({ properties: { a: { type: ['string'] }, b: { type: 'null' } } }, {})).toBeNull();
    expect(invalidArgumentsFor({ properties: { toString: { type: 'string' } } }, {})).toMatchObject({
      why: '`toString` is 12345, not a string',
    });
  });
});
