// What the lifecycle wire hands back (lifecycle-answer.ts): a JSON-RPC response as an Answer, an answer
// bounded in time, why a server is gone, and a failed write that waits briefly for the server's exit.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerOf, goneWhy, within, writeFailed, type Answer } from '../../../src/driver/lifecycle/answer.js';
import type { ServerProcess } from '../../../src/driver/server/process.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('answerOf', () => {
  it.each<[Record<string, unknown>, Answer]>([
    [{ error: { code: -32601, message: 'Method not found' } }, { kind: 'error', code: -32601, message: 'Method not found' }],
    [{ error: { message: 'no code' } }, { kind: 'error', message: 'no code' }],
    [{ error: { code: '-32601' } }, { kind: 'error', message: '' }],
    [{ error: { code: 0, message: 7 } }, { kind: 'error', code: 0, message: '7' }],
    [
      { error: null, result: { a: 1 } },
      { kind: 'result', result: { a: 1 } },
    ],
    [
      { error: 'broken', result: { a: 1 } },
      { kind: 'result', result: { a: 1 } },
    ],
    [{ result: { tools: [] } }, { kind: 'result', result: { tools: [] } }],
    [{ id: 1 }, { kind: 'result', result: {} }],
  ])('%o → %o', (message, answer) => {
    expect(answerOf(message)).toEqual(answer);
  });
});

describe('within', () => {
  it('an answer in time is that answer, and its timer is cleared', async () => {
    vi.useFakeTimers();
    const answer = within(Promise.resolve<Answer>({ kind: 'result', result: { ok: true } }), 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    await expect(answer).resolves.toEqual({ kind: 'result', result: { ok: true } });
  });

  it('no answer within the bound is `none`, saying so, at the bound and not before', async () => {
    vi.useFakeTimers();
    let settled: Answer | undefined;
    void within(new Promise<Answer>(() => {}), 200).then((a) => (settled = a));
    await vi.advanceTimersByTimeAsync(199);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toEqual({ kind: 'none', why: 'no answer within 200 ms' });
  });

  it("an answer read after its bound's timer fired late (a stalled process) is that answer, not `none`", async () => {
    vi.useFakeTimers();
    let arrive!: (a: Answer) => void;
    let settled: Answer | undefined;
    void within(new Promise<Answer>((r) => (arrive = r)), 200).then((a) => (settled = a));
    // 300 ms pass while the timer waits; the answer's read is queued behind the timer when the process runs again.
    vi.setSystemTime(Date.now() + 300);
    setTimeout(() => arrive({ kind: 'result', result: {} }), 200);
    await vi.advanceTimersByTimeAsync(201);
    expect(settled).toEqual({ kind: 'result', result: {} });
  });

  it('a bound already spent gives `none` at once, never saying a negative bound', async () => {
    vi.useFakeTimers();
    let settled: Answer | undefined;
    void within(new Promise<Answer>(() => {}), -5).then((a) => (settled = a));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toEqual({ kind: 'none', why: 'no answer within 0 ms' });
  });
});

describe('goneWhy', () => {
  const proc = (code: number | null, signal: NodeJS.Signals | null) =>
    ({ closed: Promise.resolve({ code, signal, at: 0 }) }) as unknown as ServerProcess;
  it('names the exit code, or the signal when one ended it', async () => {
    await expect(goneWhy(proc(6, null))).resolves.toBe('the server exited (code 6)');
    await expect(goneWhy(proc(null, 'SIGKILL'))).resolves.toBe('the server exited (signal SIGKILL)');
  });
});

describe('writeFailed', () => {
  it("the server's exit within the grace is the cause named", async () => {
    vi.useFakeTimers();
    let why: string | undefined;
    let exit!: (s: string) => void;
    void writeFailed(new Promise((r) => (exit = r)), new Error('write EPIPE')).then((w) => (why = w));
    await vi.advanceTimersByTimeAsync(999);
    exit('the server exited (code 6)');
    await vi.advanceTimersByTimeAsync(0);
    expect(why).toBe('the server exited (code 6)');
  });

  it('without an exit, the write error after one second, not before', async () => {
    vi.useFakeTimers();
    let why: string | undefined;
    void writeFailed(new Promise(() => {}), new Error('write EPIPE')).then((w) => (why = w));
    await vi.advanceTimersByTimeAsync(999);
    expect(why).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(why).toBe('could not write to its stdin: write EPIPE');
    let other: string | undefined;
    void writeFailed(new Promise(() => {}), 'stream destroyed').then((w) => (other = w));
    await vi.advanceTimersByTimeAsync(1000);
    expect(other).toBe('could not write to its stdin: stream destroyed');
  });
});
