// A timer's firing is not proof that nothing came: after a stall the timer runs first in the loop turn, before
// the I/O that arrived meanwhile. Each stall is forced: a callback queued behind the timer for the same moment
// (fake timers), or a real process kept busy until both timers are due (a real socket's close).
import { createServer, connect, type Server } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settledWithin, verdictTimer } from '../../src/driver/timer-verdict.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Keeps the process busy (as a descheduled one is) for `ms`: every timer due meanwhile fires in one turn, first. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('settledWithin', () => {
  it('a promise settled in time is its value, and its timer is cleared', async () => {
    vi.useFakeTimers();
    const v = settledWithin(Promise.resolve('answer'), 1000, () => 'late');
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    await expect(v).resolves.toBe('answer');
  });

  it('nothing settled: late() at the bound, not before', async () => {
    vi.useFakeTimers();
    let got: string | undefined;
    void settledWithin(new Promise<string>(() => {}), 200, () => 'late').then((v) => (got = v));
    await vi.advanceTimersByTimeAsync(199);
    expect(got).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(got).toBe('late');
    let spent: string | undefined;
    void settledWithin(new Promise<string>(() => {}), -5, () => 'late').then((v) => (spent = v));
    await vi.advanceTimersByTimeAsync(0);
    expect(spent).toBe('late');
  });

  it('an answer that arrived while the process stalled wins over the timer that runs before it', async () => {
    vi.useFakeTimers();
    let arrive!: (v: string) => void;
    let got: string | undefined;
    void settledWithin(new Promise<string>((r) => (arrive = r)), 200, () => 'late').then((v) => (got = v));
    // The stall: 300 ms pass while the timer waits (it fires 300 ms late), and the answer's read is queued behind it.
    vi.setSystemTime(Date.now() + 300);
    setTimeout(() => arrive('answer'), 200);
    await vi.advanceTimersByTimeAsync(200);
    await vi.advanceTimersByTimeAsync(1);
    expect(got).toBe('answer');
    // Nothing came: the late timer's verdict one turn after it fired.
    let none: string | undefined;
    void settledWithin(new Promise<string>(() => {}), 200, () => 'late').then((v) => (none = v));
    vi.setSystemTime(Date.now() + 300);
    await vi.advanceTimersByTimeAsync(200);
    expect(none).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(none).toBe('late');
  });

  it('a rejection passes through, its timer cleared', async () => {
    vi.useFakeTimers();
    const v = settledWithin(Promise.reject(new Error('broken pipe')), 1000, () => 'late');
    await expect(v).rejects.toThrow('broken pipe');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a real socket closed after the timer fired in the same turn counts as closed (the suite gate’s pool)', async () => {
    const server: Server = createServer((s) => s.on('error', () => {}));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
      await once(socket, 'connect');
      const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
      const verdict = settledWithin(closed, 1, () => false);
      // Due at the same moment, queued behind the bound: the close starts after the bound's timer has run.
      setTimeout(() => socket.destroy(), 1);
      stall(20);
      expect(await verdict).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe('verdictTimer', () => {
  it('on time: the verdict at the bound, not before; cleared first: never', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    verdictTimer(() => calls.push('late'), 100);
    verdictTimer(() => calls.push('cleared'), 100).clear();
    await vi.advanceTimersByTimeAsync(99);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual(['late']);
  });

  it('fired late: the verdict one turn later, and evidence read in that turn (clearing it) wins', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    verdictTimer(() => calls.push('no answer'), 100);
    const answered = verdictTimer(() => calls.push('no answer 2'), 100);
    // The stall: 500 ms pass while both wait; the second's answer is read behind its timer, and clears it.
    vi.setSystemTime(Date.now() + 500);
    setTimeout(() => answered.clear(), 100);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual(['no answer']);
  });
});
