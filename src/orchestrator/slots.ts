// The run's one way of bounding work: at most `n` tasks at once, in the order they asked. Variant runs
// (through progress's pool), installs and each cell's turns take their slots from semaphores made here.

/** At most `n` tasks at once, in the order they asked. */
export function semaphore(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Every item through `one`, at most `n` at once, started in order; results in the items' order. */
export function pool<U, R>(items: U[], n: number, one: (item: U) => Promise<R>): Promise<R[]> {
  const slot = semaphore(Math.max(1, n));
  return Promise.all(items.map((item) => slot(() => one(item))));
}

/** One task per key, made on first ask and shared by every later one. */
export function once<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (!pending) cache.set(key, (pending = make()));
  return pending;
}
