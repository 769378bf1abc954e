// The lifecycle edges (src/driver/lifecycle/checks.ts) in the stdio phase, run from src against a real
// server process (test/driver/fixtures/phase-server.mjs, raw JSON-RPC, one defect per mode) with the
// project's own SDK 1.x client: each check passes on a right server and fails alone, naming the cause.
// Both SDK majors' own servers, over stdio and HTTP: test/driver/driver.integration.test.ts.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LifecycleTimes } from '../../../src/driver/lifecycle/checks.js';
import { EXIT_WATCH_MS, lateWaitMs, UNDER_WAY_MS } from '../../../src/driver/lifecycle/in-flight.js';
import { stdioPhase } from '../../../src/driver/phases/stdio.js';
import type { DriverSpec, Step } from '../../../src/contract/protocol.js';
import type { PhaseResult } from '../../../src/results/types.js';
import { ROOT } from '../helpers/cell.js';
import { checkResult } from '../../../src/contract/checks.js';
import { judgeSplitSteps } from '../../../src/judge/split-steps.js';
import { makeRun } from '../../reports/helpers/make-run.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { levels, resolved } from '../helpers/levels.js';

const SERVER = join(ROOT, 'test/driver/fixtures/phase-server.mjs');
type StdioSpec = Exclude<DriverSpec['phases']['stdio'], false>;
const SLOW: Step = { tool: 'slow', slow: true, expect: { text: 'slow done' } };

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-lifecycle-');
});
afterAll(() => bench.dispose());

/**
 * Each request's bound, initialize's among them (a loaded machine's start of the server spends part of it): only the
 * test of a call lost waits it out, and gives its own.
 */
const TIMEOUT_MS = 10_000;
function spec(mode: string, steps: Step[] = [{ tool: 'echo' }, SLOW], env: Record<string, string> = {}, timeoutMs = TIMEOUT_MS): StdioSpec {
  return resolved('stdio', { command: { bin: SERVER, args: [], env: { MODE: mode, ...env } }, expect: {}, steps, timeoutMs });
}

/** Each check as `[id, outcome, short]`, session first. */
const outcomes = (r: PhaseResult) => r.checks!.map((c) => [c.id, c.outcome, c.short ?? null]);
const check = (r: PhaseResult, id: string) => r.checks!.find((c) => c.id === id)!;

describe('lifecycle checks in the stdio phase', () => {
  it('a right server passes each; a cancelled call it drops is reported as dropped', async () => {
    const r = await stdioPhase(bench.context(), spec('slow'));
    expect(r.verdict, JSON.stringify(r.checks)).toBe('passed');
    expect(outcomes(r)).toEqual([
      ['session', 'passed', null],
      ['unknown-method', 'passed', '-32601'],
      ['unknown-tool', 'passed', 'error'],
      ['invalid-arguments', 'skipped', 'n/a'],
      ['repeated-initialize', 'passed', 'accepts'],
      ['cancellation', 'passed', 'dropped'],
    ]);
    expect(check(r, 'repeated-initialize').message).toMatch(
      /^a second initialize while `tools\/call slow` was in flight: the server accepts; the call in flight was answered \(\d+ ms\); ping answered$/,
    );
    expect(check(r, 'cancellation')).toMatchObject({
      message: expect.stringMatching(
        /^notifications\/cancelled for `tools\/call slow`: the cancelled call was dropped \(no answer within \d+ ms of its sending( \(the window had passed when the wait began\))?\); the next request \(ping\) was answered and the session closed cleanly$/,
      ),
      evidence: { behaviour: 'dropped' },
    });
    // Beside the steps' answers (answer parity), the values the run compares across cells.
    expect(r.details!.compared).toMatchObject({
      'unknown-tool': { answer: 'error', code: -32602 },
      'repeated-initialize': { outcome: 'accepts' },
    });
    expect(r.details!.compared).not.toHaveProperty('invalid-arguments');
    // Their own time, inside the phase's, with the waits each made by design (the bench shows them apart).
    const times = r.details!.lifecycle as LifecycleTimes;
    expect(times.checks.map((c) => c.id)).toEqual([
      'unknown-method',
      'unknown-tool',
      'invalid-arguments',
      'repeated-initialize',
      'cancellation',
    ]);
    expect(times.durationMs).toBeLessThanOrEqual(r.durationMs);
    const cancel = times.checks.at(-1)!;
    expect(cancel.waits!.map((w) => [w.for, w.deadlineMs])).toEqual([
      ['the call to be under way', UNDER_WAY_MS],
      ['a late answer to the cancelled call', expect.any(Number)],
      ['an exit after the cancellation', EXIT_WATCH_MS],
    ]);
    expect(cancel.durationMs).toBeGreaterThanOrEqual(cancel.waits!.reduce((x, w) => x + w.ms, 0));
  });

  it('a step failed by isError alone (no expect) still runs the edges: a contested row is judged by them', async () => {
    const r = await stdioPhase(bench.context(), spec('iserror-tool,result-unknown-method', [{ tool: 'echo' }]));
    expect(r).toMatchObject({ verdict: 'failed', step: 'tools/call echo' });
    expect(r.message).toMatch(/^tools\/call echo: returned isError: "refused" · .*; unknown-method: /);
    expect(outcomes(r).map(([id, outcome]) => [id, outcome])).toEqual([
      ['session', 'failed'],
      ['unknown-method', 'failed'],
      ['unknown-tool', 'passed'],
      ['invalid-arguments', 'skipped'],
      ['repeated-initialize', 'passed'],
      ['cancellation', 'skipped'],
    ]);
    // Another cell answered the same call without isError: the step is contested on both rows, and this row still
    // fails, on its own unknown-method answer (before, its edges were left unrun and the row passed).
    const other: Partial<PhaseResult> = {
      verdict: 'passed',
      checks: [checkResult('session', 'require', { outcome: 'passed', message: 'ok' })],
      details: { compared: { 'tools/call echo': { isError: false, content: [] } } },
    };
    const rows = judgeSplitSteps(
      makeRun([
        { id: 'latest-1', pin: 'latest@1', version: '1.29.0', major: 1, phases: { stdio: r } },
        { id: 'latest-2', pin: 'latest@2', version: '2.4.0', major: 2, phases: { stdio: other } },
      ]).cells,
    );
    const judged = rows[0]!.phases.find((p) => p.phase === 'stdio')!;
    expect(check(judged, 'session').outcome).toBe('contested');
    expect(judged).toMatchObject({ verdict: 'failed', step: check(r, 'unknown-method').step });
    expect(rows[0]!.verdict).toBe('failed');
  });

  it('a dropped cancelled call is awaited for its uncancelled time and half again + 200 ms, not twice + 500', async () => {
    const r = await stdioPhase(bench.context(), spec('slow'));
    const inFlightMs = check(r, 'repeated-initialize').evidence!.inFlightMs as number;
    // The window the message names, from the call's sending: its uncancelled time and half again + 200 ms.
    const window = Math.min(TIMEOUT_MS, Math.round(1.5 * inFlightMs) + 200);
    expect(check(r, 'cancellation').message).toContain(`(no answer within ${window} ms of its sending`);
    const cancel = (r.details!.lifecycle as LifecycleTimes).checks.at(-1)!;
    const [underWay, late, exit] = cancel.waits!;
    // What was left of it when the late wait began (nothing if a loaded machine spent it all): the call was under way
    // (underWay.ms as it really ran, on the same Date.now as the window; a 50 ms timer can read 49) before the
    // cancellation, and the check ran no longer than its own time past the late wait and the exit watch. Both bounds
    // hold at any load.
    expect(late!.deadlineMs).toBeLessThanOrEqual(Math.max(0, window - underWay!.ms));
    expect(late!.deadlineMs).toBeGreaterThanOrEqual(window - (cancel.durationMs - late!.ms - exit!.ms));
    expect(lateWaitMs(600, 3000)).toBe(1100);
    expect(lateWaitMs(600, 1000)).toBe(1000);
    expect(lateWaitMs(undefined, 3000)).toBe(3000);
  });

  it('a cancelled call answered anyway when its time is up is still seen as answered', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,ignore-cancel'));
    expect(check(r, 'cancellation')).toMatchObject({ outcome: 'passed', short: 'answered', evidence: { behaviour: 'answered' } });
    expect(check(r, 'cancellation').message).toContain('the cancelled call was answered (a result)');
  });

  it('a server that exits when a cancelled call would have finished fails cancellation, naming its exit', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,die-when-cancelled-done'));
    expect(r.verdict).toBe('failed');
    expect(outcomes(r).filter(([, outcome]) => outcome === 'failed')).toEqual([['cancellation', 'failed', 'server gone']]);
    expect(check(r, 'cancellation').message).toBe('after notifications/cancelled for `tools/call slow`, the server exited (code 7)');
  });

  it('a cancelled call that is answered anyway is reported as answered (the spec allows both)', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,answer-cancelled'));
    expect(r.verdict).toBe('passed');
    expect(check(r, 'cancellation')).toMatchObject({ outcome: 'passed', short: 'answered', evidence: { behaviour: 'answered' } });
    expect(check(r, 'cancellation').message).toContain('the cancelled call was answered (the error -32800 "cancelled")');
  });

  it('a server that dies on notifications/cancelled fails cancellation alone, naming its exit', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,die-on-cancel'));
    expect(r.verdict).toBe('failed');
    expect(r.step).toBe('notifications/cancelled for tools/call slow');
    expect(outcomes(r).filter(([, outcome]) => outcome === 'failed')).toEqual([['cancellation', 'failed', 'server gone']]);
    expect(r.message).toBe(
      'cancellation: after notifications/cancelled for `tools/call slow`, the server exited (code 6) [harness, level require]',
    );
  });

  it('a second initialize that kills the call in flight fails repeated-initialize alone: the call was lost', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,init-kills-calls', undefined, {}, 3000));
    expect(r.verdict).toBe('failed');
    expect(r.step).toBe('repeated initialize');
    expect(outcomes(r).filter(([, outcome]) => outcome === 'failed')).toEqual([['repeated-initialize', 'failed', 'accepts']]);
    expect(check(r, 'repeated-initialize').message).toBe(
      'a second initialize while `tools/call slow` was in flight: the server accepts; the call in flight (`tools/call slow`) was lost: no answer within 3000 ms',
    );
    // The session still answers: the cancellation check after it runs and passes.
    expect(check(r, 'cancellation').outcome).toBe('passed');
  });

  it('a success for an unknown tool fails unknown-tool', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,success-unknown'));
    expect(r.verdict).toBe('failed');
    expect(r.step).toBe('tools/call mcp-matrix-no-such-tool');
    expect(check(r, 'unknown-tool')).toMatchObject({
      outcome: 'failed',
      message: 'a call to the unknown tool `mcp-matrix-no-such-tool` got a success result (want an error or an isError result)',
    });
    expect(r.details!.compared).not.toHaveProperty('unknown-tool');
  });

  it('a result for an unknown method fails unknown-method', async () => {
    const r = await stdioPhase(bench.context(), spec('slow,result-unknown-method'));
    expect(r.verdict).toBe('failed');
    expect(check(r, 'unknown-method')).toMatchObject({
      outcome: 'failed',
      short: 'a result (want -32601)',
      message: 'a request for the unknown method `mcp-matrix/no-such-method` got a result (want the error -32601, Method not found)',
    });
  });

  it('arguments its schema refuses, answered with a success, fail invalid-arguments, naming what was sent', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    const r = await stdioPhase(bench.context(), spec('slow', [{ tool: 'echo', arguments: { text: 'hi' } }, SLOW], { ECHO_SCHEMA: schema }));
    expect(r.verdict).toBe('failed');
    expect(check(r, 'invalid-arguments')).toMatchObject({
      outcome: 'failed',
      step: 'tools/call echo',
      message:
        '`tools/call echo` with {} (without the required `text`) got a success result: {"content":[{"type":"text","text":"echo {}"}]} (want an error or an isError result: the arguments do not match its inputSchema)',
    });
  });

  it('a step marked slow that answers at once is a config warning, never a failure or a hang', async () => {
    const r = await stdioPhase(bench.context(), spec('slow', undefined, { SLOW_MS: '0' }));
    expect(r.verdict).toBe('passed');
    expect(check(r, 'cancellation')).toMatchObject({
      outcome: 'not-measured',
      level: 'warn',
      short: 'not slow',
      message: expect.stringMatching(
        /^config: `tools\/call slow` is marked slow but answered in \d+ ms, before notifications\/cancelled could be sent; mark a call that takes 300 ms or more \(not judged\)$/,
      ),
    });
  });

  it('a check set off is recorded as skipped and not run', async () => {
    const r = await stdioPhase(bench.context(), { ...spec('slow,die-on-cancel'), checks: levels('stdio', { cancellation: 'off' }) });
    expect(r.verdict).toBe('passed');
    expect(check(r, 'cancellation')).toMatchObject({ outcome: 'skipped', level: 'off', message: 'off in the config (not run)' });
  });
});
