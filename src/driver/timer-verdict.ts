// A timer that fires late (the process was descheduled: a loaded machine) runs before the I/O that arrived
// meanwhile, so its firing is no evidence that nothing came. Such a timer gives its "not within N ms" verdict only
// after one more turn of the event loop: an answer read or a handle closed by then decides instead.

export interface VerdictTimer {
  clear(): void;
}

/**
 * Calls `verdict` after `ms`; a timer that fired late, one loop turn later (the next turn's timers come after this
 * turn's I/O and closed handles: a 0 ms timer set now never runs in this turn). On time, nothing waited behind
 * it: the loop read any I/O that came before the bound. Cleared, it never calls it.
 */
export function verdictTimer(verdict: () => void, ms: number, unref = false): VerdictTimer {
  const bound = Math.max(0, ms);
  const due = Date.now() + bound;
  const start = (fn: () => void, after: number): NodeJS.Timeout => {
    const t = setTimeout(fn, after);
    if (unref) t.unref();
    return t;
  };
  let timer = start(() => (Date.now() <= due ? verdict() : (timer = start(verdict, 0))), bound);
  return { clear: () => clearTimeout(timer) };
}

/**
 * `promise`'s outcome when it settles within `ms`, or (the timer having fired late) within the loop turn after;
 * else `late()`'s value. The timer is cleared when the promise wins; `unref` lets the process exit meanwhile.
 */
export function settledWithin<T, L = T>(promise: Promise<T>, ms: number, late: () => L, unref = false): Promise<T | L> {
  return new Promise<T | L>((resolve, reject) => {
    const timer = verdictTimer(() => resolve(late()), ms, unref);
    promise.then(
      (value) => {
        timer.clear();
        resolve(value);
      },
      (error: unknown) => {
        timer.clear();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
