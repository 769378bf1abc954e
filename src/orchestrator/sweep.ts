// At a run's start, what a dead run left in this temp dir (kill -9, a crashed runner) is swept: directories of
// dead owners removed, processes carrying their cookie killed. Only what provably belongs to a dead run of this
// temp dir is touched, so parallel runs never kill each other's orphans.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killCarrier, orphanedCarriers, ownerAlive, RUN_COOKIE_VAR } from '../process/cookie.js';
import { readOwner, removeRunDir, RUN_DIR_PREFIX, type RunDirOwner } from '../cells/install/workspace.js';
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
  const dirs: Swept['dirs'] = [];
  const deadCookies = new Set<string>();
  let names: string[] = [];
  try {
    names = readdirSync(tmp).filter((n) => n.startsWith(RUN_DIR_PREFIX));
  } catch {
    // no temp dir to sweep
  }
  for (const name of names) {
    const dir = path.join(tmp, name);
    const owner = readOwner(dir);
    if (!owner || ownerAlive(owner.cookie)) continue;
    deadCookies.add(owner.cookie);
    if (!stillKept(owner, dir)) dirs.push({ dir, ownerPid: owner.pid });
  }
  const here = path.resolve(tmp);
  const processes = (orphanedCarriers(TMP_VARS) ?? [])
    .filter((c) => deadCookies.has(c.vars[RUN_COOKIE_VAR]!) || tmpDirOf(c.vars) === here)
    .map((c) => {
      killCarrier(c);
      return { pid: c.pid, what: shortCommand(c.cmdline) };
    });
  const removed = Promise.all(dirs.map((d) => removeRunDir(d.dir).catch(() => undefined))).then(() => undefined);
  return { processes, dirs, removed };
}

const TMP_VARS = ['TMPDIR', 'TMP', 'TEMP'];

/** The temp dir a process with these variables uses, as os.tmpdir() derives it on Linux (none set: /tmp). */
function tmpDirOf(vars: Record<string, string>): string {
  return path.resolve(TMP_VARS.map((v) => vars[v]).find(Boolean) ?? '/tmp');
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
