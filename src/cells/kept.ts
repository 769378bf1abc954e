// --keep: each kept cell gets a visible home, `./cells/<id>`, linking to its directory, which stays in the run
// directory outside the package (nothing there may resolve from the package's node_modules). Synchronous, so
// a forced exit still leaves the homes right.
import { existsSync, lstatSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The folder, in the working directory, that holds one link per kept cell. */
export const KEPT_HOME = 'cells';

export interface KeptHomes {
  /** Cell id → its home (absolute path of the link). */
  linked: Map<string, string>;
  /** Cell id → why it has no home (something that is not a link of ours is already there). */
  refused: Map<string, string>;
}

/** Links `<cwd>/cells/<id>` to each cell's directory (made now or later); an earlier link is replaced, anything else left alone. */
export function linkKeptCells(cwd: string, cells: { id: string; dir: string }[]): KeptHomes {
  const homes: KeptHomes = { linked: new Map(), refused: new Map() };
  const root = path.join(cwd, KEPT_HOME);
  for (const cell of cells) {
    const home = path.join(root, cell.id);
    try {
      mkdirSync(root, { recursive: true });
      const existing = lstatOf(home);
      if (existing && !existing.isSymbolicLink()) {
        homes.refused.set(cell.id, `${home} exists and is not a link to a kept cell: left alone`);
        continue;
      }
      // A fresh link moved into place: the home is never missing nor half made.
      const fresh = path.join(root, `.${cell.id}.${process.pid}.link`);
      rmSync(fresh, { force: true });
      symlinkSync(cell.dir, fresh, 'junction');
      if (existing) rmSync(home, { force: true });
      renameSync(fresh, home);
      homes.linked.set(cell.id, home);
    } catch (error) {
      homes.refused.set(cell.id, `cannot link ${home}: ${(error as Error).message}`);
    }
  }
  return homes;
}

/** The homes of cells that were never made (an interrupt came first) go; returns the homes that remain. */
export function pruneKeptHomes(homes: KeptHomes): string[] {
  for (const [id, home] of homes.linked) {
    if (existsSync(home)) continue;
    rmSync(home, { force: true });
    homes.linked.delete(id);
  }
  return [...homes.linked.values()];
}

/** Whether `home` is still a link into `runDir` (a later --keep run may have pointed it elsewhere). */
export function homeLinksInto(home: string, runDir: string): boolean {
  try {
    if (!lstatSync(home).isSymbolicLink()) return false;
    return realpathSync(home).startsWith(`${realpathSync(runDir)}${path.sep}`);
  } catch {
    return false;
  }
}

function lstatOf(file: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
