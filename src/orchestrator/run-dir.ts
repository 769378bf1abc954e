// A run's directory from creation to removal: --keep's homes (`cells/<id>`) linked before the cells start,
// finished cells' directories taken away off their critical path, and at the end (or a forced exit, within
// its bound) every process the run started killed and the directory removed or kept.
import os from 'node:os';
import { linkKeptCells, pruneKeptHomes, type KeptHomes } from '../cells/kept.js';
import { cellDirOf, createRunDir, markKept, removeDir, removeRunDir, removeRunDirWithin } from '../cells/install/workspace.js';
import { killCarriers, settleCarriers } from '../process/cookie.js';
import { deferCleanup, killAll, onHardExit } from '../process/tracker.js';
import { describeInfraError } from '../util/infra.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';
import { markCell } from '../util/marks.js';
import { handBack, type Returnable } from '../cells/install/tree-return.js';

/** How long a forced exit waits for the run dir's removal before handing it off (the CLI's own bound is above it). */
const FORCED_REMOVAL_MS = 500;

/** How long the end of a run waits for SIGKILLed processes to be gone (a loaded machine is slow to reap). */
const SETTLE_MS = 3_000;

export interface RunDir {
  dir: string;
  /** --keep: the selected cells' homes, linked before they start, so an interrupted run keeps them too. */
  linkHomes(cwd: string, cellIds: string[]): void;
  /** A kept cell's home (`cells/<id>`), when it got one. */
  homeOf(cellId: string): string | undefined;
  /** Why a kept cell got no home, one line each. */
  refusedHomes(): string[];
  /**
   * Takes a finished cell's directory away off the cell's critical path (awaited before the run ends); with its
   * `tree`, at the run's end, once its processes are gone, the tree goes back to the tree cache first.
   */
  dispose(dir: string, tree?: Returnable): void;
  /** The run's end: its processes killed, then the directory removed (or kept); deferred when interrupted. */
  close(cookie: string | undefined, interrupted: boolean): Promise<void>;
}

/**
 * `warn` gets what the end of the run could not do (the directory's removal failed): the run is over, so it is
 * a warning, with the cause; the owner record goes last, so the next run in this temp dir sweeps what is left.
 */
export async function openRunDir(
  cookie: string | undefined,
  keep: boolean,
  warn: (line: string) => void = () => undefined,
): Promise<Result<RunDir>> {
  const created = await createRunDir(cookie).then(
    (dir) => ({ dir }),
    (error: unknown) => ({ error }),
  );
  // No room for the run directory (a full disk, no permission on TMPDIR): the machine's, not measured.
  if ('error' in created)
    return fail(
      'infrastructure',
      `cannot create the run directory in ${os.tmpdir()}: ${describeInfraError(created.error) ?? errorMessage(created.error)}`,
    );
  const runDir = created.dir;
  let homes: KeptHomes | undefined;
  const keepRun = () => markKept(runDir, homes ? pruneKeptHomes(homes) : []);
  // A forced exit removes the run directory within its bound, then hands the rest to a detached remover.
  const dropHardExit = onHardExit(() => (keep ? keepRun() : removeRunDirWithin(runDir, FORCED_REMOVAL_MS)));
  const disposals: Promise<void>[] = [];
  const returns: { dir: string; tree: Returnable }[] = [];
  const remove = (dir: string): Promise<void> =>
    removeDir(dir).then(
      () => markCell(dir, 'removed'),
      () => undefined,
    );
  return ok({
    dir: runDir,
    linkHomes(cwd, cellIds) {
      homes = linkKeptCells(
        cwd,
        cellIds.map((id) => ({ id, dir: cellDirOf(runDir, id) })),
      );
    },
    homeOf: (cellId) => homes?.linked.get(cellId),
    refusedHomes: () => [...(homes?.refused.values() ?? [])],
    dispose: (dir, tree) => void (tree ? returns.push({ dir, tree }) : disposals.push(remove(dir))),
    async close(cookie, interrupted) {
      killAll();
      // Whatever escaped a process group but still carries the run's cookie.
      if (cookie) killCarriers(cookie);
      const cleanup = (async () => {
        // The CLI exits only once they are gone, not merely signalled.
        if (cookie) await settleCarriers(cookie, SETTLE_MS);
        // A tree goes back only now, when nothing the run started can write into it; never from an interrupted run.
        for (const r of returns)
          disposals.push((interrupted ? Promise.resolve() : handBack(r.dir, r.tree).then(() => undefined)).then(() => remove(r.dir)));
        await Promise.all(disposals);
        if (keep) keepRun();
        else
          await removeRunDir(runDir).catch((error: unknown) =>
            warn(
              `could not remove the run directory ${runDir}: ${describeInfraError(error) ?? errorMessage(error)}; the next run in ${os.tmpdir()} sweeps it`,
            ),
          );
        dropHardExit();
      })();
      // Interrupted: the partial results go out first; the CLI waits for this before it exits.
      if (interrupted) deferCleanup(cleanup);
      else await cleanup;
    },
  });
}
