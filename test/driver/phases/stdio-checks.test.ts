// The stdio phase's sub-checks folded into its result (withStdioChecks): the session's own check and the
// lifecycle edges, which decides the verdict, the message and the step. Pure: results in, result out.
import { describe, expect, it } from 'vitest';
import { checkResult } from '../../../src/contract/checks.js';
import { LIFECYCLE_IDS } from '../../../src/driver/lifecycle/checks.js';
import { withStdioChecks } from '../../../src/driver/phases/stdio-checks.js';
import type { CheckLevel, PhaseResultOf, StdioDetails, SubCheckResult } from '../../../src/results/types.js';
import { levels } from '../helpers/levels.js';

const session = (more: Partial<PhaseResultOf<'stdio'>> = {}): PhaseResultOf<'stdio'> => ({
  phase: 'stdio',
  verdict: 'passed',
  durationMs: 42,
  // Any details: the sub-checks pass them through.
  details: { tools: 2 } as StdioDetails,
  ...more,
});
const edge = (id: string, outcome: SubCheckResult['outcome'], level: CheckLevel = 'require', step?: string): SubCheckResult =>
  checkResult(id, level, { outcome, message: `${id} ${outcome}`, ...(step ? { step } : {}) });
const passedEdges = () => LIFECYCLE_IDS.map((id) => edge(id, 'passed'));
const own = (outcome: SubCheckResult['outcome'], message: string, level: CheckLevel = 'require', step?: string) => ({
  id: 'session',
  outcome,
  level,
  message,
  ...(step ? { step } : {}),
});
/** Every stdio check at its default, as the harness resolves them. */
const STDIO = levels('stdio');
const PASSED = 'initialize, the lists, every step and ping answered; stdout carried only JSON-RPC';

describe('withStdioChecks', () => {
  it('a passed session with passed edges passes, with no message or step, and keeps the rest of the result', () => {
    const edges = passedEdges();
    expect(withStdioChecks(session(), edges, STDIO)).toEqual({ ...session(), checks: [own('passed', PASSED), ...edges] });
  });

  it('a failed session fails with its own message and step; the edges are reported as not run, naming where it failed', () => {
    const r = withStdioChecks(session({ verdict: 'failed', message: 'tools/list: no answer', step: 'tools/list' }), undefined, STDIO);
    const why = 'not run: the session failed at tools/list';
    expect(r).toEqual({
      phase: 'stdio',
      verdict: 'failed',
      durationMs: 42,
      details: { tools: 2 },
      message: 'tools/list: no answer',
      step: 'tools/list',
      checks: [
        own('failed', 'tools/list: no answer', 'require', 'tools/list'),
        ...LIFECYCLE_IDS.map((id) => checkResult(id, 'require', { outcome: 'skipped', message: why, short: 'not run' })),
      ],
    });
  });

  it('a session not measured, without a step: not measured, and the edges say so', () => {
    const r = withStdioChecks(
      session({ verdict: 'not-measured', message: 'the client could not load' }),
      undefined,
      levels('stdio', {
        cancellation: 'off',
      }),
    );
    expect(r.verdict).toBe('not-measured');
    expect(r.message).toBe('the client could not load');
    expect(r).not.toHaveProperty('step');
    expect(r.checks!.map((c) => [c.id, c.outcome, c.message])).toEqual([
      ['session', 'not-measured', 'the client could not load'],
      ...LIFECYCLE_IDS.map((id) =>
        id === 'cancellation' ? [id, 'skipped', 'off in the config (not run)'] : [id, 'skipped', 'not run: the session was not measured'],
      ),
    ]);
    // The session's message missing: the cause is named in its check and in the phase's message.
    const bare = withStdioChecks(session({ verdict: 'failed' }), undefined, STDIO);
    const cause = 'the session failed (the driver recorded no message)';
    expect(bare.checks![0]).toEqual(own('failed', cause));
    expect(bare.message).toBe(cause);
    expect(bare.checks![1]!.message).toBe('not run: the session failed');
  });

  it('a session that failed or was not measured without a message: the phase message names that, and where', () => {
    const atStep = withStdioChecks(session({ verdict: 'failed', step: 'ping' }), undefined, STDIO);
    expect([atStep.verdict, atStep.message, atStep.step]).toEqual([
      'failed',
      'the session failed at ping (the driver recorded no message)',
      'ping',
    ]);
    const unmeasured = withStdioChecks(session({ verdict: 'not-measured' }), undefined, STDIO);
    expect([unmeasured.verdict, unmeasured.message]).toEqual([
      'not-measured',
      'the session was not measured (the driver recorded no message)',
    ]);
    // With a failed edge beside it, the session's cause still comes first.
    const edges = [edge('unknown-method', 'failed', 'require', 'mcp-matrix/no-such-method')];
    expect(withStdioChecks(session({ verdict: 'failed' }), edges, STDIO).message!.split('; ')[0]).toBe(
      'the session failed (the driver recorded no message)',
    );
  });

  it('a required edge that failed fails the phase: its line is the message and its step the step', () => {
    const edges = [
      ...passedEdges().slice(0, 3),
      edge('repeated-initialize', 'failed', 'require', 'tools/call slow'),
      edge('cancellation', 'passed'),
    ];
    const r = withStdioChecks(session(), edges, STDIO);
    expect(r.verdict).toBe('failed');
    expect(r.message).toBe('repeated-initialize: repeated-initialize failed [harness, level require]');
    expect(r.step).toBe('tools/call slow');
    expect(r.checks).toEqual([own('passed', PASSED), ...edges]);
  });

  it('several decisive edges: every line in order, and the failed one names the step though a not-measured one came first', () => {
    const edges = [
      edge('unknown-method', 'not-measured', 'require', 'mcp-matrix/no-such-method'),
      edge('unknown-tool', 'failed', 'require', 'tools/call mcp-matrix-no-such-tool'),
      edge('invalid-arguments', 'failed', 'warn', 'tools/call echo'),
    ];
    const r = withStdioChecks(session(), edges, STDIO);
    expect(r.verdict).toBe('failed');
    expect(r.message!.split('; ').map((l) => l.split(':')[0])).toEqual(['unknown-method', 'unknown-tool']);
    expect(r.step).toBe('tools/call mcp-matrix-no-such-tool');
    // Only a not-measured edge: it names the step.
    const only = withStdioChecks(session(), [edges[0]!], STDIO);
    expect([only.verdict, only.step]).toEqual(['not-measured', 'mcp-matrix/no-such-method']);
  });

  it('an edge failing at warn is reported but does not fail the phase, nor give it a message or step', () => {
    const edges = [edge('unknown-method', 'failed', 'warn', 'x')];
    const r = withStdioChecks(session(), edges, STDIO);
    expect(r).toEqual({ ...session(), checks: [own('passed', PASSED), ...edges] });
  });

  it('a failed session at warn passes the phase: no message or step though the session failed', () => {
    const r = withStdioChecks(
      session({ verdict: 'failed', message: 'ping: no answer', step: 'ping' }),
      passedEdges(),
      levels('stdio', { session: 'warn' }),
    );
    expect(r.verdict).toBe('passed');
    expect(r).not.toHaveProperty('message');
    expect(r).not.toHaveProperty('step');
    expect(r.checks![0]).toEqual(own('failed', 'ping: no answer', 'warn', 'ping'));
  });

  it('the session off: a failed session neither fails the phase nor names its message or step; a failed edge does', () => {
    const sessionOff = levels('stdio', { session: 'off' });
    const failed = session({ verdict: 'failed', message: 'ping: no answer', step: 'ping' });
    const quiet = withStdioChecks(failed, passedEdges(), sessionOff);
    expect(quiet.verdict).toBe('passed');
    expect(quiet.checks![0]).toEqual({
      id: 'session',
      outcome: 'skipped',
      level: 'off',
      message: 'off in the config (not run)',
      short: 'off',
    });
    const edges = [edge('unknown-method', 'failed', 'require', 'mcp-matrix/no-such-method')];
    const r = withStdioChecks(failed, edges, sessionOff);
    expect(r.verdict).toBe('failed');
    expect(r.message!.startsWith('unknown-method: unknown-method failed [')).toBe(true);
    expect(r.step).toBe('mcp-matrix/no-such-method');
  });

  it('a failed session (required) names its own step over a failed edge, its message first', () => {
    const edges = [edge('unknown-method', 'failed', 'require', 'mcp-matrix/no-such-method')];
    const r = withStdioChecks(session({ verdict: 'failed', message: 'ping: no answer', step: 'ping' }), edges, STDIO);
    expect(r.step).toBe('ping');
    expect(r.message!.split('; ')[0]).toBe('ping: no answer');
    expect(r.message!.split('; ')).toHaveLength(2);
  });
  it('a passed session without the edges run: each edge is reported as not run, no more', () => {
    const r = withStdioChecks(session(), undefined, STDIO);
    expect(r.verdict).toBe('passed');
    expect(r.checks!.slice(1).map((c) => [c.outcome, c.message, c.short])).toEqual(
      LIFECYCLE_IDS.map(() => ['skipped', 'not run', 'not run']),
    );
  });

  it("a passed session's own message (a note) never joins a failed edge's", () => {
    const edges = [edge('unknown-method', 'failed', 'require', 'mcp-matrix/no-such-method')];
    const line = 'unknown-method: unknown-method failed [MUST, JSON-RPC 2.0 5.1, level require]';
    expect(withStdioChecks(session({ message: 'a note' }), edges, STDIO).message).toBe(line);
  });
});
