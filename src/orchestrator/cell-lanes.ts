// A cell's variants side by side (docs/phases.md, "A cell's variants side by side"): one lane per Node release, each
// variant on its own copy of the tree; a lane's later variants run beside its first and take the shared bind and
// conformance once the earlier ones end (or run again in their turn); a phase confirmed alone waits for every driver
// beside; a server that wrote into its copy sends the cell back to in turn from that variant on.
import type { VariantLane } from '../cells/side/variant-side.js';
import { shareKey, sharedWith, type PhaseShare } from '../judge/phase-share.js';
import type { PlannedCell, PlannedVariant } from '../plan/plan.js';
import { semaphore } from './slots.js';

/** The lane a variant runs in: its Node release, the key its bind and conformance measurements are shared by. */
const laneOf = (variant: Pick<PlannedVariant, 'node'>): string => shareKey('bind', variant);

/** A cell whose variants can run side by side: a `node_modules` cell (not a strict leg) with two lanes or more. */
export function hasLanes(cell: Pick<PlannedCell, 'install' | 'variants'>): boolean {
  return !cell.install && new Set(cell.variants.map(laneOf)).size > 1;
}

/**
 * Variants side by side where cores would idle, decided from the plan and the machine, never the load: a cell with two
 * lanes or more, room for more drivers at once than cells (`concurrency`: `besidePerCore` by default, where in turn an
 * axes run has 2, as a cell's drivers mostly wait: docs/performance.md, sessions 11–12), on Linux (`cp -al`), `sideBySide`
 * not false.
 */
export function laneRoom(
  config: { sideBySide?: boolean },
  cells: readonly Pick<PlannedCell, 'install' | 'variants'>[],
  concurrency: number,
): boolean {
  return config.sideBySide !== false && process.platform === 'linux' && cells.some(hasLanes) && concurrency > cells.length;
}

/**
 * Drivers per core with variants side by side: 4 (a cell's lanes at once), 8 where a lane has later variants, which run
 * beside its first (they run neither bind nor conformance while they can take them over).
 */
export function besidePerCore(cells: readonly Pick<PlannedCell, 'install' | 'variants'>[]): number {
  const laterVariants = cells.some((c) => hasLanes(c) && new Set(c.variants.map(laneOf)).size < c.variants.length);
  return laterVariants ? 8 : 4;
}

export interface CellLanes {
  /**
   * One variant: `beside` on its lane, beside the cell's other lanes; its row stands once every earlier variant of the
   * cell has; else (a server of this variant or an earlier one wrote into its copy) `inTurn`, alone on the cell, with
   * the shared measurements of the variants that stand (and of those run again in turn before it). A later variant of a
   * lane whose earlier variant still runs goes beside it with `lane.later` (its shares, once the earlier rows stand); if
   * it sets `lane.again` (its run is not the one in turn would have made), it runs again in its lane's turn.
   */
  run<R>(
    variant: Pick<PlannedVariant, 'id' | 'node'>,
    beside: (lane: VariantLane) => Promise<R>,
    inTurn: (shares: PhaseShare) => Promise<R>,
  ): Promise<R>;
}

export function cellLanes(variants: readonly Pick<PlannedVariant, 'id' | 'node'>[], shares: PhaseShare): CellLanes {
  const turns = new Map<string, ReturnType<typeof semaphore>>();
  const lock = besideOrAlone();
  const settled = variants.map(() => deferred());
  const ended = variants.map(() => false);
  const indexOf = (id: string) => variants.findIndex((v) => v.id === id);
  const earlierStand = (i: number) => Promise.all(settled.slice(0, i).map((d) => d.promise));
  let inTurnFrom: number | undefined;
  let turnShares: PhaseShare | undefined;
  const standing = (i: number) => inTurnFrom === undefined || i < inTurnFrom;
  return {
    async run(variant, beside, inTurn) {
      const i = indexOf(variant.id);
      try {
        const key = laneOf(variant);
        const turn = turns.get(key) ?? semaphore(1);
        turns.set(key, turn);
        // Beside its lane's earlier variants: the shares are read once their rows stand, exactly as in its turn.
        const early = standing(i) && variants.some((v, j) => j < i && !ended[j] && laneOf(v) === key);
        let first: { row: Awaited<ReturnType<typeof beside>>; wrote: string | undefined } | undefined;
        if (early) {
          const lane: VariantLane = {
            beside: lock.beside,
            alone: lock.alone,
            later: async () => {
              const from = performance.now();
              await earlierStand(i);
              lane.waitedMs = performance.now() - from;
              return sharedWith(shares, variant);
            },
          };
          const row = await beside(lane);
          if (lane.again === undefined || lane.wrote !== undefined) first = { row, wrote: lane.wrote };
        }
        if (!first)
          first = await turn(async () => {
            if (!standing(i)) return undefined;
            const lane: VariantLane = { beside: lock.beside, alone: lock.alone };
            const row = await beside(lane);
            return { row, wrote: lane.wrote };
          });
        // In turn, a variant sees what every earlier one wrote: its row stands only once theirs do.
        await earlierStand(i);
        if (first?.wrote !== undefined && standing(i)) inTurnFrom = i;
        if (first && standing(i)) return first.row;
        turnShares ??= new Map([...shares].filter(([, s]) => indexOf(s.variant) < inTurnFrom!));
        const own = turnShares;
        return await lock.alone(() => inTurn(own));
      } finally {
        ended[i] = true;
        settled[i]?.resolve();
      }
    },
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Drivers beside each other, or one alone on the cell: an `alone` waits for those running and goes before later ones. */
export function besideOrAlone(): Pick<VariantLane, 'beside' | 'alone'> {
  let running = 0;
  let alone = false;
  const waitingAlone: (() => void)[] = [];
  const waitingBeside: (() => void)[] = [];
  const wake = () => {
    if (alone) return;
    if (waitingAlone.length) {
      if (running === 0) {
        alone = true;
        waitingAlone.shift()!();
      }
      return;
    }
    running += waitingBeside.length;
    waitingBeside.splice(0).forEach((go) => go());
  };
  return {
    async beside(task) {
      if (alone || waitingAlone.length) await new Promise<void>((go) => waitingBeside.push(go));
      else running++;
      try {
        return await task();
      } finally {
        running--;
        wake();
      }
    },
    async alone(task) {
      if (alone || running > 0 || waitingAlone.length) await new Promise<void>((go) => waitingAlone.push(go));
      else alone = true;
      try {
        return await task();
      } finally {
        alone = false;
        wake();
      }
    },
  };
}
