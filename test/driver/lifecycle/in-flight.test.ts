// The lifecycle checks of a call in flight (lifecycle-in-flight.ts), judged on answers a scripted wire
// gives: a second initialize while a call is under way, and a cancellation of the step marked slow. The
// same checks against real server processes: test/driver/phases/lifecycle.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMPARED_KEY } from '../../../src/contract/compared.js';
import {
  cancellation,
  EXIT_WATCH_MS,
  lateWaitMs,
  repeatedInitialize,
  SLOW_MS,
  UNDER_WAY_MS,
} from '../../../src/driver/lifecycle/in-flight.js';
import type { Wait } from '../../../src/driver/lifecycle/steps.js';
import type { Answer, Wire } from '../../../src/driver/lifecycle/wire.js';
import type { Step } from '../../../src/contract/protocol.js';

const never = new Promise<never>(() => {});

afterEach(() => {
  vi.useRealTimers();
});
type Script = (method: string, params: Record<string, unknown>) => Answer | Promise<Answer>;

function scripted(script: Script, more: { gone?: Promise<string>; end?: string | null; notify?: string | null } = {}) {
  const sent: [string, Record<string, unknown>][] = [];
  const notes: string[] = [];
  let ends = 0;
  const wire: Wire = {
    request(method, params = {}) {
      sent.push([method, params]);
      return { id: `id-${sent.length}`, answer: Promise.resolve(script(method, params)) };
    },
    notify: (method) => {
      notes.push(method);
      return Promise.resolve(more.notify ?? null);
    },
    gone: more.gone ?? never,
    end: () => {
      ends++;
      return Promise.resolve(more.end ?? null);
    },
  };
  return { wire, sent, notes, ends: () => ends };
}

const ok: Answer = { kind: 'result', result: {} };
const ECHO: Step = { tool: 'echo', arguments: { text: 'hi' } };
const SLOW: Step = { tool: 'slow', slow: true };

describe('repeatedInitialize', () => {
  it('without a tool step: nothing in flight; accepted and ping answered passes, and parity gets the behaviour', async () => {
    const w = scripted(() => ok);
    const details: Record<string, unknown> = {};
    const r = await repeatedInitialize(w.wire, 500, [], details);
    expect(r).toEqual({
      outcome: 'passed',
      message: 'a second initialize (no tool step: no call in flight): the server accepts; ping answered',
      short: 'accepts',
      evidence: { behaviour: 'accepts' },
    });
    expect(details[COMPARED_KEY]).toEqual({ 'repeated-initialize': { outcome: 'accepts' } });
    expect(w.sent.map(([m]) => m)).toEqual(['initialize', 'ping']);
  });

  it('a quick step is in flight: an error to the initialize is recorded, the call answered, no slow time kept', async () => {
    const w = scripted((m) => (m === 'initialize' ? { kind: 'error', code: -32600, message: 'already' } : ok));
    const r = await repeatedInitialize(w.wire, 500, [ECHO], {});
    expect(r).toMatchObject({ outcome: 'passed', short: 'errors', evidence: { behaviour: 'errors', inFlight: 'tools/call echo' } });
    expect(r.message).toMatch(
      /^a second initialize while `tools\/call echo` was in flight: the server errors \(the error -32600 "already"\); the call in flight was answered \(\d+ ms\); ping answered$/,
    );
    expect(r).not.toHaveProperty('slowMs');
    expect(w.sent[0]).toEqual(['tools/call', { name: 'echo', arguments: { text: 'hi' } }]);
  });

  it('the slow step is the one in flight; its answer keeps its time for the cancellation', async () => {
    const w = scripted(() => ok);
    const r = await repeatedInitialize(w.wire, 500, [ECHO, SLOW], {});
    expect(w.sent[0]).toEqual(['tools/call', { name: 'slow', arguments: {} }]);
    expect(r.slowMs).toBeGreaterThanOrEqual(45);
    expect((r.evidence as { inFlightMs: number }).inFlightMs).toBe(r.slowMs);
  });

  it.each<[string, Answer, Answer, Answer, string, string | undefined]>([
    [
      'closed on it',
      { kind: 'closed', why: 'the server exited (code 2)' },
      ok,
      ok,
      'closes',
      'the server closed the session on it (the server exited (code 2))',
    ],
    ['no answer', { kind: 'none', why: 'no answer within 500 ms' }, ok, ok, 'no answer', 'it got no answer (no answer within 500 ms)'],
    [
      'the call lost',
      ok,
      { kind: 'none', why: 'no answer within 500 ms' },
      ok,
      'accepts',
      'the call in flight (`tools/call slow`) was lost: no answer within 500 ms',
    ],
    [
      'the slow call errored',
      ok,
      { kind: 'error', code: -32603, message: 'x' },
      ok,
      'accepts',
      'the call in flight (`tools/call slow`) got the error -32603 "x" instead of its answer',
    ],
    [
      'ping refused',
      ok,
      ok,
      { kind: 'error', code: -32600, message: 'no session' },
      'accepts',
      'the session no longer answers: ping got the error -32600 "no session"',
    ],
  ])('%s fails, naming it', async (_name, init, flown, ping, short, problem) => {
    const w = scripted((m) => (m === 'initialize' ? init : m === 'ping' ? ping : flown));
    const r = await repeatedInitialize(w.wire, 500, [SLOW], {});
    expect(r).toMatchObject({ outcome: 'failed', short, step: 'repeated initialize' });
    expect(r.message.split('; ').slice(1)).toEqual([problem]);
  });

  it('a second initialize with no answer and the call lost: both problems, in order; a slow step without a result keeps no time', async () => {
    const w = scripted((m) => (m === 'ping' ? ok : { kind: 'none', why: 'no answer within 500 ms' }));
    const before = Date.now();
    const r = await repeatedInitialize(w.wire, 500, [SLOW], {});
    const wall = Date.now() - before;
    expect(r).toEqual({
      outcome: 'failed',
      message:
        'a second initialize while `tools/call slow` was in flight: the server did not answer it; it got no answer (no answer within 500 ms); the call in flight (`tools/call slow`) was lost: no answer within 500 ms',
      short: 'no answer',
      step: 'repeated initialize',
      evidence: { behaviour: 'no answer', inFlight: 'tools/call slow', inFlightMs: expect.any(Number) },
    });
    // The call's own time, measured within the check's (not a bound or a stale stamp), however long a loaded machine took.
    expect((r.evidence as { inFlightMs: number }).inFlightMs).toBeLessThanOrEqual(wall);
  });

  it('a quick call that errors is not lost (its answer is not judged); a server gone names why', async () => {
    const quick = await repeatedInitialize(
      scripted((m) => (m === 'tools/call' ? { kind: 'error', message: 'x' } : ok)).wire,
      500,
      [ECHO],
      {},
    );
    expect(quick.outcome).toBe('passed');
    const gone = await repeatedInitialize(
      scripted((m) => (m === 'ping' ? { kind: 'closed', why: 'the server exited (code 4)' } : ok)).wire,
      500,
      [ECHO],
      {},
    );
    expect(gone).toMatchObject({ outcome: 'failed', gone: 'the server exited (code 4)' });
  });
});

describe('cancellation', () => {
  it('without a slow step it is n/a and ends the session; a session that does not close fails', async () => {
    const w = scripted(() => ok);
    expect(await cancellation(w.wire, 500, [ECHO], undefined)).toEqual({
      outcome: 'skipped',
      message: 'n/a: no tool step is marked `slow: true` (the call to cancel)',
      short: 'n/a',
    });
    expect(w.ends()).toBe(1);
    expect(await cancellation(scripted(() => ok, { end: 'DELETE got 500' }).wire, 500, [ECHO], undefined)).toEqual({
      outcome: 'failed',
      message: 'the session did not close cleanly: DELETE got 500',
      short: 'close failed',
      step: 'session close',
    });
  });

  it('a slow step gone before the cancellation fails, naming why', async () => {
    const w = scripted(() => ({ kind: 'closed', why: 'the server exited (code 5)' }));
    expect(await cancellation(w.wire, 500, [SLOW], undefined)).toEqual({
      outcome: 'failed',
      message: '`tools/call slow` (marked slow) was sent to be cancelled, and the server exited (code 5)',
      short: 'server gone',
      step: 'tools/call slow',
      gone: 'the server exited (code 5)',
    });
    expect(w.ends()).toBe(1);
  });

  it('a call that is never answered is cancelled: dropped, ping answered, closed cleanly', async () => {
    const w = scripted((m) => (m === 'tools/call' ? never : ok));
    const r = await cancellation(w.wire, 400, [SLOW], undefined);
    // The window is the step bound from the call's sending; a loaded machine may have spent it before the wait.
    expect(r).toEqual({
      outcome: 'passed',
      message: expect.stringMatching(
        /^notifications\/cancelled for `tools\/call slow`: the cancelled call was dropped \(no answer within 400 ms of its sending( \(the window had passed when the wait began\))?\); the next request \(ping\) was answered and the session closed cleanly$/,
      ),
      short: 'dropped',
      evidence: { behaviour: 'dropped' },
    });
    expect(w.notes).toEqual(['notifications/cancelled']);
    expect(w.ends()).toBe(1);
  });

  it('after the cancellation: ping unanswered, the notification undeliverable, the server gone, or the close refused each fail', async () => {
    const pingless = await cancellation(
      scripted((m) => (m === 'tools/call' ? never : { kind: 'none', why: 'no answer within 400 ms' })).wire,
      400,
      [SLOW],
      undefined,
    );
    expect(pingless).toEqual({
      outcome: 'failed',
      message: 'after notifications/cancelled for `tools/call slow`, the next request (ping) got no answer within 400 ms',
      short: 'no answer',
      step: 'notifications/cancelled for tools/call slow',
    });
    const undelivered = await cancellation(
      scripted((m) => (m === 'tools/call' ? never : ok), { notify: 'EPIPE' }).wire,
      400,
      [SLOW],
      undefined,
    );
    // The cause is the notification that did not go out, not the ping that was answered.
    expect(undelivered).toEqual({
      outcome: 'failed',
      message: 'notifications/cancelled for `tools/call slow` could not be delivered (EPIPE); the next request (ping) got a result',
      short: 'not delivered',
      step: 'notifications/cancelled for tools/call slow',
    });
    const gone = await cancellation(
      scripted((m) => (m === 'tools/call' ? never : ok), { gone: Promise.resolve('the server exited (code 7)') }).wire,
      400,
      [SLOW],
      undefined,
    );
    expect(gone).toEqual({
      outcome: 'failed',
      message: 'after notifications/cancelled for `tools/call slow`, the server exited (code 7)',
      short: 'server gone',
      step: 'notifications/cancelled for tools/call slow',
      gone: 'the server exited (code 7)',
    });
    const unclosed = await cancellation(
      scripted((m) => (m === 'tools/call' ? never : ok), { end: 'DELETE got 500' }).wire,
      400,
      [SLOW],
      undefined,
    );
    expect(unclosed).toMatchObject({
      outcome: 'failed',
      message: 'after notifications/cancelled for `tools/call slow`, ping answered, but the session did not close cleanly: DELETE got 500',
      short: 'close failed',
    });
  });

  it('a cancelled call answered late is `answered`, as a result or an error; the notification names the call and why', async () => {
    const late = (a: Answer) => (m: string) => (m === 'tools/call' ? new Promise<Answer>((r) => setTimeout(() => r(a), 450)) : ok);
    const noted: unknown[] = [];
    const w = scripted(late({ kind: 'result', result: { content: [] } }));
    const notify = w.wire.notify;
    w.wire.notify = (method, params) => {
      noted.push([method, params]);
      return notify(method, params);
    };
    const r = await cancellation(w.wire, 2000, [SLOW], undefined);
    expect(r).toEqual({
      outcome: 'passed',
      message:
        'notifications/cancelled for `tools/call slow`: the cancelled call was answered (a result); the next request (ping) was answered and the session closed cleanly',
      short: 'answered',
      evidence: { behaviour: 'answered' },
    });
    expect(noted).toEqual([['notifications/cancelled', { requestId: 'id-1', reason: 'mcp-matrix: cancellation check' }]]);
    expect(w.sent.map(([m]) => m)).toEqual(['tools/call', 'ping']);
    const errored = await cancellation(scripted(late({ kind: 'error', code: -32800, message: 'cancelled' })).wire, 2000, [SLOW], undefined);
    expect(errored).toMatchObject({ short: 'answered', message: expect.stringContaining('was answered (the error -32800 "cancelled")') });
  });

  it('a step measured slow is cancelled once under way: a call answering after 150 ms is cancelled, not a config warning', async () => {
    const w = scripted((m) => (m === 'tools/call' ? new Promise<Answer>((r) => setTimeout(() => r(ok), 150)) : ok));
    const r = await cancellation(w.wire, 2000, [SLOW], 400);
    expect(r).toMatchObject({ outcome: 'passed', short: 'answered' });
    // Not measured slow (or measured quick): it is given SLOW_MS, and answering at 150 ms is the config's mistake.
    for (const slowMs of [undefined, 299]) {
      const quick = await cancellation(
        scripted((m) => (m === 'tools/call' ? new Promise<Answer>((r) => setTimeout(() => r(ok), 150)) : ok)).wire,
        2000,
        [SLOW],
        slowMs,
      );
      expect(quick).toEqual({
        outcome: 'not-measured',
        message: expect.stringMatching(
          /^config: `tools\/call slow` is marked slow but answered in \d+ ms, before notifications\/cancelled could be sent; mark a call that takes 300 ms or more \(not judged\)$/,
        ),
        short: 'not slow',
      });
    }
  });

  it('the late wait: the uncancelled time and half again plus 200 ms, never past the step bound', () => {
    expect(lateWaitMs(undefined, 3000)).toBe(3000);
    expect(lateWaitMs(1000, 3000)).toBe(1700);
    expect(lateWaitMs(1000, 1500)).toBe(1500);
    expect(lateWaitMs(0, 3000)).toBe(3000);
  });

  it('reports the waits it makes by design: under way, a late answer and an exit, each with its deadline', async () => {
    // On a fake clock (timers and Date): each wait's time is its design exactly, whatever the load; on the real one, a
    // loaded machine makes any wait longer and a timer read by Date.now() can seem to fire a moment early.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const run = async (
      script: Script,
      slowMs: number | undefined,
      notifyMs = 0,
    ): Promise<{ r: Awaited<ReturnType<typeof cancellation>>; waits: Wait[] }> => {
      const w = scripted(script);
      const notify = w.wire.notify;
      // Time that passes after the under-way wait (a slow write, a loaded machine): the late window still counts from
      // the call's sending.
      w.wire.notify = (method, params) => {
        vi.setSystemTime(Date.now() + notifyMs);
        return notify(method, params);
      };
      const waits: Wait[] = [];
      const done = cancellation(w.wire, 2000, [SLOW], slowMs, (x) => waits.push(x));
      await vi.runAllTimersAsync();
      return { r: await done, waits };
    };
    // A dropped call, measured slow (400 ms): under way UNDER_WAY_MS, the late window 1.5 × 400 + 200 from its
    // sending (less the under-way wait and the 30 ms after it), then EXIT_WATCH_MS for an exit. Each wait runs to its
    // deadline, since nothing comes.
    const dropped = await run((m) => (m === 'tools/call' ? never : ok), 400, 30);
    expect(dropped.r).toMatchObject({ outcome: 'passed', short: 'dropped' });
    const late = lateWaitMs(400, 2000) - UNDER_WAY_MS - 30;
    expect(dropped.waits).toEqual([
      { for: 'the call to be under way', ms: UNDER_WAY_MS, deadlineMs: UNDER_WAY_MS },
      { for: 'a late answer to the cancelled call', ms: late, deadlineMs: late },
      { for: 'an exit after the cancellation', ms: EXIT_WATCH_MS, deadlineMs: EXIT_WATCH_MS },
    ]);
    // Not measured slow: it is given SLOW_MS to show it is slow; an answer that comes sooner ends the wait.
    const after = (ms: number) => (m: string) => (m === 'tools/call' ? new Promise<Answer>((res) => setTimeout(() => res(ok), ms)) : ok);
    const quick = await run(after(60), undefined);
    expect(quick.r).toMatchObject({ outcome: 'not-measured', short: 'not slow' });
    expect(quick.waits).toEqual([{ for: 'the call to be under way', ms: 60, deadlineMs: SLOW_MS }]);
    // A late answer ends the late window when it comes; the exit watch then still runs.
    const answered = await run(after(150), 400);
    expect(answered.r).toMatchObject({ outcome: 'passed', short: 'answered' });
    expect(answered.waits).toEqual([
      { for: 'the call to be under way', ms: UNDER_WAY_MS, deadlineMs: UNDER_WAY_MS },
      { for: 'a late answer to the cancelled call', ms: 150 - UNDER_WAY_MS, deadlineMs: lateWaitMs(400, 2000) - UNDER_WAY_MS },
      { for: 'an exit after the cancellation', ms: EXIT_WATCH_MS, deadlineMs: EXIT_WATCH_MS },
    ]);
  });

  it('a call answered while the harness was stalled past its under-way wait is still cancelled, as unloaded', async () => {
    // Forced on a fake clock: 400 ms pass while the 50 ms under-way timer waits; the answer's read is queued behind it.
    // The timer is the moment to cancel, not a verdict: the answer read after it is the late answer, not a config mistake.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let answer!: (a: Answer) => void;
    const w = scripted((m) => (m === 'tools/call' ? new Promise<Answer>((r) => (answer = r)) : ok));
    const done = cancellation(w.wire, 2000, [SLOW], 400);
    vi.setSystemTime(Date.now() + 400);
    setTimeout(() => answer(ok), UNDER_WAY_MS);
    await vi.runAllTimersAsync();
    expect(await done).toMatchObject({ outcome: 'passed', short: 'answered' });
    expect(w.notes).toEqual(['notifications/cancelled']);
  });

  it('an exit read after the exit watch fired late (a stalled harness) is the finding', async () => {
    // Forced on a fake clock: 300 ms pass just before the exit watch's end; the exit's read is queued behind its timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let exit!: (why: string) => void;
    const w = scripted((m) => (m === 'tools/call' ? never : ok), { gone: new Promise<string>((r) => (exit = r)) });
    const stall = (x: Wait): void => {
      if (x.for !== 'a late answer to the cancelled call') return;
      setTimeout(() => {
        vi.setSystemTime(Date.now() + 300);
        setTimeout(() => exit('the server exited (code 7)'), 1);
      }, EXIT_WATCH_MS - 1);
    };
    const done = cancellation(w.wire, 2000, [SLOW], 400, stall);
    await vi.runAllTimersAsync();
    expect(await done).toEqual({
      outcome: 'failed',
      message: 'after notifications/cancelled for `tools/call slow`, the server exited (code 7)',
      short: 'server gone',
      step: 'notifications/cancelled for tools/call slow',
      gone: 'the server exited (code 7)',
    });
  });

  it('a late window spent before its wait began says so, never a negative bound', async () => {
    // Forced on a fake clock: 2 s pass while the notification is written (a stalled process), past the 800 ms window.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const w = scripted((m) => (m === 'tools/call' ? never : ok));
    const notify = w.wire.notify;
    w.wire.notify = (method, params) => {
      vi.setSystemTime(Date.now() + 2000);
      return notify(method, params);
    };
    const waits: Wait[] = [];
    const done = cancellation(w.wire, 3000, [SLOW], 400, (x) => waits.push(x));
    await vi.runAllTimersAsync();
    const r = await done;
    expect(r).toMatchObject({
      outcome: 'passed',
      short: 'dropped',
      message: expect.stringContaining(
        'the cancelled call was dropped (no answer within 800 ms of its sending (the window had passed when the wait began));',
      ),
    });
    expect(waits[1]).toEqual({ for: 'a late answer to the cancelled call', ms: 0, deadlineMs: 0 });
  });

  it('on the real clock, the late window is what is left of it after the under-way wait as it really ran', async () => {
    // A loaded machine makes the under-way wait (and what follows it) longer: the window is less by all of it, never by
    // more than what passed since the call's sending (all read on Date.now, so no clock rounding between them).
    const waits: [Wait, number][] = [];
    const before = Date.now();
    const r = await cancellation(scripted((m) => (m === 'tools/call' ? never : ok)).wire, 2000, [SLOW], 400, (w) =>
      waits.push([w, Date.now()]),
    );
    expect(r).toMatchObject({ outcome: 'passed', short: 'dropped' });
    const [[underWay], [late, lateEnded]] = waits as [[Wait, number], [Wait, number]];
    expect(late.deadlineMs).toBeLessThanOrEqual(Math.max(0, lateWaitMs(400, 2000) - underWay.ms));
    // The late wait began at lateEnded - late.ms at the latest; the call was sent at `before` at the earliest.
    expect(late.deadlineMs).toBeGreaterThanOrEqual(lateWaitMs(400, 2000) - (lateEnded - late.ms - before));
  });

  it('a second initialize reports the time of the call in flight it waits for; with no call in flight, none', async () => {
    const waits: Wait[] = [];
    const r = await repeatedInitialize(scripted(() => ok).wire, 500, [ECHO, SLOW], {}, (w) => waits.push(w));
    expect(waits).toEqual([{ for: 'the call in flight, answered', ms: r.slowMs }]);
    const none: Wait[] = [];
    await repeatedInitialize(scripted(() => ok).wire, 500, [], {}, (w) => none.push(w));
    expect(none).toEqual([]);
  });
});
