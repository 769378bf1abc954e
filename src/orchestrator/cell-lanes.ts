// A cell's variants side by side (docs/phases.md, "A cell's variants side by side"): one lane per Node release (the
// variants that share a bind or conformance measurement take turns, as in turn), each variant on its own copy of the
// tree; a phase confirmed alone waits for every driver beside; a server that wrote into its copy sends the cell back to
// in turn from that variant on, every later variant run again in turn on the cell's own tree.
import type { VariantLane } from '../cells/side/variant-side.js';
import { shareKey, type PhaseShare } from '../judge/phase-share.js';
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
 * lanes or more, room for more drivers at once than cells (`concurrency`: 4 per core by default, where in turn an axes run
 * has 2, as a cell's drivers mostly wait: docs/performance.md, session 11), on Linux (`cp -al`), `sideBySide` not false.
 */
export function laneRoom(
  config: { sideBySide?: boolean },
  cells: readonly Pick<PlannedCell, 'install' | 'variants'>[],
  concurrency: number,
): boolean {
  return config.sideBySide !== false && process.platform === 'linux' && cells.some(hasLanes) && concurrency > cells.length;
}

export interface CellLanes {
  /**
   * One variant: `beside` on its lane, beside the cell's other lanes; its row stands once every earlier variant of the
   * cell has; else (a server of this variant or an earlier one wrote into its copy) `inTurn`, alone on the cell, with
   * the shared measurements of the variants that stand (and of those run again in turn before it).
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
  const indexOf = (id: string) => variants.findIndex((v) => v.id === id);
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
        const first = await turn(async () => {
          if (!standing(i)) return undefined;
          const lane: VariantLane = { beside: lock.beside, alone: lock.alone };
          const row = await beside(lane);
          return { row, wrote: lane.wrote };
        });
        // In turn, a variant sees what every earlier one wrote: its row stands only once theirs do.
        await Promise.all(settled.slice(0, i).map((d) => d.promise));
        if (first?.wrote !== undefined && standing(i)) inTurnFrom = i;
        if (first && standing(i)) return first.row;
        turnShares ??= new Map([...shares].filter(([, s]) => indexOf(s.variant) < inTurnFrom!));
        const own = turnShares;
        return await lock.alone(() => inTurn(own));
      } finally {
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
