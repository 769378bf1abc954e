// A cell's variants on its one server install: made once (in an install slot) and shared; the variants take turns on
// it (or run side by side on copies of it: cell-lanes.ts), share bind and conformance (judge/phase-share.ts), and
// after the last of them the install is re-checked (judge/environment/mutated-install.ts) and disposed of.
import type { CellContext, CellInstall } from '../cells/cell-context.js';
import type { DriverHooks } from '../cells/driver-launch.js';
import { installServer } from '../cells/install-server.js';
import { runVariant } from '../cells/run-cell.js';
import type { PhaseShare } from '../judge/phase-share.js';
import { recheckInstall } from '../judge/environment/mutated-install.js';
import type { PlannedCell } from '../plan/plan.js';
import type { CellResult } from '../results/types.js';
import type { RunUnit } from './run-units.js';
import { semaphore } from './slots.js';
import { cellLanes, hasLanes, type CellLanes } from './cell-lanes.js';
import type { VariantLane } from '../cells/side/variant-side.js';
import { markCell } from '../util/marks.js';

interface CellRun {
  installing: Promise<CellInstall>;
  turn: ReturnType<typeof semaphore>;
  left: number;
  shares: PhaseShare;
  /** The cell's variants side by side (cell-lanes.ts); absent: they take turns. */
  lanes?: CellLanes;
  /** Set after the last variant when the install changed under them: why. */
  mutated?: string;
}

export interface CellRuns {
  /** Runs one unit on its cell's shared install; `shown` is the row as the run reports it (a kept cell's home). */
  run(unit: RunUnit, hooks: DriverHooks): Promise<CellResult>;
  /** Why a cell's install changed while its variants ran, if it did. */
  mutated(cellId: string): string | undefined;
}

export function cellRuns(ctx: CellContext, installSlots: ReturnType<typeof semaphore>, shown: (row: CellResult) => CellResult): CellRuns {
  const runs = new Map<string, CellRun>();
  const installOf = (cell: PlannedCell, hooks: DriverHooks): CellRun => {
    let entry = runs.get(cell.id);
    if (!entry) {
      const sharedBy = cell.variants.length;
      const withShare: DriverHooks = {
        ...hooks,
        ...(hooks.onInstallEnd ? { onInstallEnd: (o) => hooks.onInstallEnd!({ ...o, ...(sharedBy > 1 ? { sharedBy } : {}) }) } : {}),
      };
      entry = {
        installing: installSlots(() => installServer(cell, ctx, withShare)),
        turn: semaphore(1),
        left: cell.variants.length,
        shares: new Map(),
      };
      if (ctx.variantsBeside && hasLanes(cell)) entry.lanes = cellLanes(cell.variants, entry.shares);
      runs.set(cell.id, entry);
    } else if (hooks.onInstallEnd) {
      // The other variants show the shared install's outcome once it is known.
      const show = hooks.onInstallEnd;
      void entry.installing.then((i) =>
        show({ ok: i.kind === 'installed', durationMs: i.installMs, attempts: i.attempts ?? 1, sharedBy: cell.variants.length }),
      );
    }
    return entry;
  };
  return {
    async run(unit, hooks) {
      const entry = installOf(unit.cell, hooks);
      // One variant at a time on a cell's install: a server may keep state in its package directory or
      // its working directory (a memory file next to its bin), and two variants must not share it at once.
      const go = (shares: PhaseShare, lane?: VariantLane) =>
        runVariant(unit.cell, unit.variant, entry.installing, ctx, hooks, shares, lane);
      const { lanes } = entry;
      const row = shown(
        await (lanes
          ? lanes.run(
              unit.variant,
              (lane) => go(entry.shares, lane),
              (shares) => go(shares),
            )
          : entry.turn(() => go(entry.shares))),
      );
      if (--entry.left === 0) {
        const install = await entry.installing;
        if (install.cellDir) markCell(install.cellDir, 'last-variant-end');
        if (install.kind === 'installed' && !ctx.signal.aborted) {
          entry.mutated = await recheckInstall(install.cellDir, install.env.evidence.lockfileSha256);
        }
        if (install.cellDir) markCell(install.cellDir, 'rechecked');
        // A tree the variants left as installed may go back to the tree cache (checked again before any reuse).
        const tree = install.kind === 'installed' && !entry.mutated && !ctx.signal.aborted ? install.returnable : undefined;
        if (install.cellDir && !ctx.keep) ctx.dispose(install.cellDir, tree);
      }
      return row;
    },
    mutated: (cellId) => runs.get(cellId)?.mutated,
  };
}
