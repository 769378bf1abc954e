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

// A forced exit (a second signal, or the first one not done in time) cannot await anything: these
// synchronous steps (write partial results, remove the run directory) run before the process exits.
const hardExitSteps = new Set<() => void>();

/** Registers a step for a forced exit; returns its removal. */
export function onHardExit(step: () => void): () => void {
  hardExitSteps.add(step);
  return () => void hardExitSteps.delete(step);
}

/** Kill every tracked group, then run every registered step (each one's failure is its own). */
export function hardExit(): void {
  killAll();
  for (const step of [...hardExitSteps]) {
    try {
      step();
    } catch {
      // remove what we can
    }
  }
  hardExitSteps.clear();
}
