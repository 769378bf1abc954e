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
