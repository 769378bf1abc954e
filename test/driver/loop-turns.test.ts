// The driver's loop watcher: an event read after a stall is bounded by the loop's look before the stall; read
// while the loop turns, it has no earlier bound. Each stall is forced on fake timers: the clock moved while no
// timer ran (a descheduled process), then the read before or after the interval's late tick.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loopTurns, STALL_MS } from '../../src/driver/loop-turns.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('loopTurns', () => {
  it('a read while the loop turns has no earlier bound', async () => {
    vi.useFakeTimers();
    const turns = loopTurns();
    await vi.advanceTimersByTimeAsync(1000);
    expect(turns.stalledSince()).toBeUndefined();
    // The ordinary distance to the tick before last (two intervals) is no stall.
    await vi.advanceTimersByTimeAsync(15);
    expect(turns.stalledSince()).toBeUndefined();
    turns.stop();
  });

  it('a read after a stall, before the late tick: bounded by the tick before the last', async () => {
    vi.useFakeTimers();
    const turns = loopTurns();
    await vi.advanceTimersByTimeAsync(100);
    const looked = Date.now() - 20;
    vi.setSystemTime(Date.now() + 500);
    expect(turns.stalledSince()).toBe(looked);
    turns.stop();
  });

  it('a read after a stall and after the late tick (the stall in a callback): still the look before the stall', async () => {
    vi.useFakeTimers();
    const turns = loopTurns();
    await vi.advanceTimersByTimeAsync(100);
    const before = Date.now();
    vi.setSystemTime(before + 500);
    // The overdue interval runs once, first in the turn that reads the event (fake timers keep their own clock).
    await vi.advanceTimersByTimeAsync(20);
    expect(turns.stalledSince()).toBe(before);
    expect(Date.now() - before).toBeGreaterThan(STALL_MS);
    turns.stop();
  });

  it('a stall across a bound is kept once the loop turns again; a bound the loop turned around is none', async () => {
    vi.useFakeTimers();
    const turns = loopTurns();
    await vi.advanceTimersByTimeAsync(100);
    const from = Date.now();
    const bound = from + 200;
    // Still open: no tick since the stall began.
    vi.setSystemTime(from + 500);
    expect(turns.stalledAcross(bound)).toBe(500);
    // Closed by the overdue tick, and kept through the ordinary ticks after it.
    await vi.advanceTimersByTimeAsync(20);
    const closed = turns.stalledAcross(bound);
    expect(closed).toBeGreaterThanOrEqual(500);
    await vi.advanceTimersByTimeAsync(1000);
    expect(turns.stalledAcross(bound)).toBe(closed);
    // Bounds before the stall, or after it while the loop turned, were not stalled across.
    expect(turns.stalledAcross(from - 50)).toBeUndefined();
    expect(turns.stalledAcross(Date.now() - 100)).toBeUndefined();
    turns.stop();
  });

  it('a loop that turns has no stall across any bound', async () => {
    vi.useFakeTimers();
    const turns = loopTurns();
    const bound = Date.now() + 300;
    await vi.advanceTimersByTimeAsync(1000);
    expect(turns.stalledAcross(bound)).toBeUndefined();
    turns.stop();
  });
});
