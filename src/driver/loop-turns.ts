// The driver's loop turns, seen by a cheap unref'd interval. An event read after a stall (the driver was
// descheduled on a loaded machine) may have happened at any time since the loop last looked: its read time is
// then no evidence of when it happened, only an upper bound.

const TICK_MS = 20;
/** A gap between turns longer than this is a stall of the driver, not the loop's ordinary jitter. */
export const STALL_MS = 100;

export interface LoopTurns {
  /**
   * For an event read at `now`: the earliest time it could have happened when the loop had stalled before the
   * read, else undefined (the read time is its time). The tick before the last one is a bound: the interval fires
   * at most once a turn, so the turn that polled before the read's came after it.
   */
  stalledSince(now?: number): number | undefined;
  stop(): void;
}

export function loopTurns(): LoopTurns {
  const ticks = [Date.now(), Date.now()];
  const ticker = setInterval(() => {
    ticks.shift();
    ticks.push(Date.now());
  }, TICK_MS);
  ticker.unref();
  return {
    stalledSince: (now = Date.now()) => (now - ticks[0]! > STALL_MS ? ticks[0] : undefined),
    stop: () => clearInterval(ticker),
  };
}

let shared: LoopTurns | undefined;

/** The driver's one watcher, started by its first server process. */
export function driverLoop(): LoopTurns {
  return (shared ??= loopTurns());
}
