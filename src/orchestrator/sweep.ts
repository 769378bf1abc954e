// At the start of a run: what a dead run left behind (kill -9 of the CLI, a crashed CI runner) is
// swept: processes carrying a cookie whose owner is dead are killed, and run directories whose
// owner is dead are removed. Only what provably belongs to a dead run is touched: a directory
// without an owner record (another tool's, or an older harness's) is left alone, and so is a kept one
// (--keep) while a `cells/<id>` home still links into it.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killCarrier, orphanedCarriers, ownerAlive } from '../process/cookie.js';
import { readOwner, removeRunDir, RUN_DIR_PREFIX, type RunDirOwner } from '../cells/workspace.js';
import { homeLinksInto } from '../cells/kept.js';

export interface Swept {
  processes: { pid: number; what: string }[];
  dirs: { dir: string; ownerPid: number }[];
  /** Resolves once the directories are gone (removal runs beside the new run). */
  removed: Promise<void>;
}

/** `node server.js`, `npm install`: enough to recognise, never a whole command line (it may hold a dead run's token). */
export function shortCommand(cmdline: string): string {
  const [exe = '?', arg] = cmdline.split(' ');
  const words = [path.basename(exe), ...(arg && !arg.startsWith('-') ? [path.basename(arg)] : [])];
  return words.join(' ').slice(0, 40);
}

export function sweepStale(tmp: string = os.tmpdir()): Swept {
  const processes = (orphanedCarriers() ?? []).map((c) => {
    killCarrier(c);
    return { pid: c.pid, what: shortCommand(c.cmdline) };
  });
  const dirs: Swept['dirs'] = [];
  let names: string[] = [];
  try {
    names = readdirSync(tmp).filter((n) => n.startsWith(RUN_DIR_PREFIX));
  } catch {
    // no temp dir to sweep
  }
  for (const name of names) {
    const dir = path.join(tmp, name);
    const owner = readOwner(dir);
    if (owner && !stillKept(owner, dir) && !ownerAlive(owner.cookie)) dirs.push({ dir, ownerPid: owner.pid });
  }
  const removed = Promise.all(dirs.map((d) => removeRunDir(d.dir).catch(() => undefined))).then(() => undefined);
  return { processes, dirs, removed };
}

/** A kept run dir stays while one of its homes (`cells/<id>`) still links into it; one kept without homes stays for good. */
function stillKept(owner: RunDirOwner, dir: string): boolean {
  if (!owner.kept) return false;
  return !owner.homes?.length || owner.homes.some((home) => homeLinksInto(home, dir));
}

/** The one line a run prints about what it swept, or undefined when there was nothing. */
export function describeSwept(swept: Pick<Swept, 'processes' | 'dirs'>): string | undefined {
  if (!swept.processes.length && !swept.dirs.length) return undefined;
  const parts: string[] = [];
  if (swept.dirs.length)
    parts.push(`${swept.dirs.length} run dir(s) (${swept.dirs.map((d) => `${d.dir}, owner pid ${d.ownerPid} gone`).join('; ')})`);
  if (swept.processes.length)
    parts.push(
      `killed ${swept.processes.length} orphaned process(es) (${swept.processes.map((p) => `pid ${p.pid} ${p.what}`).join(', ')})`,
    );
  return `swept what a dead run left behind: ${parts.join('; ')}`;
}
