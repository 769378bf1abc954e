// Every process group the run starts is registered here, so an abort or a crash can kill them all.
const groups = new Set<number>();

export function track(pid: number): void {
  groups.add(pid);
}

export function untrack(pid: number): void {
  groups.delete(pid);
}

export function tracked(): number[] {
  return [...groups];
}

/** Kill a whole process group; a group that is already gone is fine. */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of groups) killGroup(pid, signal);
}

// A forced exit (a second signal, or the first one not done in time) waits for nothing but a short
// bound: these steps (write partial results, remove the run directory) start at once; a step may
// return a promise (a removal), which the forced exit waits for only within its bound.
type Step = () => void | Promise<void>;
const hardExitSteps = new Set<Step>();

/** Registers a step for a forced exit; returns its removal. */
export function onHardExit(step: Step): () => void {
  hardExitSteps.add(step);
  return () => void hardExitSteps.delete(step);
}

/** Kill every tracked group, then start every registered step (each one's failure is its own). */
export function hardExit(): Promise<void> {
  killAll();
  const pending: Promise<void>[] = [];
  for (const step of [...hardExitSteps]) {
    try {
      const r = step();
      if (r) pending.push(r.catch(() => undefined));
    } catch {
      // remove what we can
    }
  }
  hardExitSteps.clear();
  return Promise.all(pending).then(() => undefined);
}

// Cleanup an interrupted run does after its results are out (removing cell directories takes time).
const deferred = new Set<Promise<void>>();

export function deferCleanup(cleanup: Promise<void>): void {
  const p = cleanup.catch(() => undefined);
  deferred.add(p);
  void p.then(() => deferred.delete(p));
}

export function deferredCleanups(): Promise<void> {
  return Promise.all([...deferred]).then(() => undefined);
}
