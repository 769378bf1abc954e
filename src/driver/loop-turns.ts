// The driver's loop turns, seen by a cheap unref'd interval. An event read after a stall (the driver was
// descheduled on a loaded machine) may have happened at any time since the loop last looked: its read time is
// then no evidence of when it happened, only an upper bound.

const TICK_MS = 20;
/** A gap between turns longer than this is a stall of the driver, not the loop's ordinary jitter. */
export const STALL_MS = 100;
const KEPT_STALLS = 8;

export interface LoopTurns {
  /**
   * For an event read at `now`: the earliest time it could have happened when the loop had stalled before the
   * read, else undefined (the read time is its time). The tick before the last one is a bound: the interval fires
   * at most once a turn, so the turn that polled before the read's came after it.
   */
  stalledSince(now?: number): number | undefined;
  /**
   * How long the loop had no turn across `at` (a bound's end), when that was a stall: the driver looked at nothing
   * from before `at` until after it. Undefined when the loop turned around `at`. The last few stalls are kept.
   */
  stalledAcross(at: number, now?: number): number | undefined;
  stop(): void;
}

export function loopTurns(): LoopTurns {
  const ticks = [Date.now(), Date.now()];
  const stalls: { from: number; to: number }[] = [];
  const ticker = setInterval(() => {
    const now = Date.now();
    if (now - ticks[1]! > STALL_MS && stalls.push({ from: ticks[1]!, to: now }) > KEPT_STALLS) stalls.shift();
    ticks.shift();
    ticks.push(now);
  }, TICK_MS);
  ticker.unref();
  const across = (at: number, from: number, to: number): number | undefined =>
    from <= at && at < to && to - from > STALL_MS ? to - from : undefined;
  return {
    stalledSince: (now = Date.now()) => (now - ticks[0]! > STALL_MS ? ticks[0] : undefined),
    // A stall still open (no tick since), or one the interval has closed.
    stalledAcross: (at, now = Date.now()) =>
      across(at, ticks[1]!, now) ?? stalls.map((s) => across(at, s.from, s.to)).find((ms) => ms !== undefined),
    stop: () => clearInterval(ticker),
  };
}

let shared: LoopTurns | undefined;

/** The driver's one watcher, started by its first server process. */
export function driverLoop(): LoopTurns {
  return (shared ??= loopTurns());
}
