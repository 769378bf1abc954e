// A timer that fires late (the process was descheduled: a loaded machine) runs before the I/O that arrived
// meanwhile, so its firing is no evidence that nothing came. Such a timer gives its "not within N ms" verdict only
// after one more turn of the event loop: an answer read or a handle closed by then decides instead.

/**
 * `promise`'s outcome when it settles within `ms`, or (the timer having fired late) within the loop turn after;
 * else `late()`'s value. The timer is cleared when the promise wins; `unref` lets the process exit meanwhile.
 */
export function settledWithin<T, L = T>(promise: Promise<T>, ms: number, late: () => L, unref = false): Promise<T | L> {
  return new Promise<T | L>((resolve, reject) => {
    let settled = false;
    const bound = Math.max(0, ms);
    const due = Date.now() + bound;
    const verdict = (): void => {
      if (!settled) resolve(late());
    };
    // On time, nothing waited behind it: the loop read any I/O that came before the bound. Late, the next turn's
    // timers come after this turn's I/O and closed handles (a 0 ms timer set now never runs in this turn).
    const timer = setTimeout(() => (Date.now() <= due ? verdict() : keep(setTimeout(verdict, 0))), bound);
    const keep = (t: NodeJS.Timeout): void => void (unref && t.unref());
    keep(timer);
    promise.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
