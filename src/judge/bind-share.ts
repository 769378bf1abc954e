// bind never uses the client: the variants of one cell on one Node release share the first clean bind
// measurement, and a variant that takes it over reports the measured verdict with its origin.
import type { PlannedVariant } from '../plan/plan.js';
import type { PhaseResult } from '../results/types.js';

/** The bind results measured on a cell's install, by Node release (see `bindToShare`). */
export type BindShare = Map<string, { variant: string; result: PhaseResult }>;

/** The key of a variant's bind measurement within its cell: the Node release its server runs on. */
export function bindKey(variant: PlannedVariant): string {
  return variant.node?.version ?? 'host';
}

/**
 * A measured bind worth sharing with the cell's other variants on the same Node: passed or failed (a
 * verdict on the server, not the harness's luck), and its server judged clean by leaks (or leaks off),
 * so a variant that takes it over loses nothing its own bind run would have told it.
 */
export function bindToShare(phases: PhaseResult[]): PhaseResult | undefined {
  const bind = phases.find((p) => p.phase === 'bind');
  const leaks = phases.find((p) => p.phase === 'leaks');
  if (!bind || (bind.verdict !== 'passed' && bind.verdict !== 'failed')) return undefined;
  if (!leaks || (leaks.verdict !== 'passed' && leaks.verdict !== 'skipped')) return undefined;
  return bind;
}

/** The shared bind as a variant that did not run it reports it: same verdict and message, its origin in the details. */
export function sharedBind(from: { variant: string; result: PhaseResult }): PhaseResult {
  const { result } = from;
  return {
    ...result,
    durationMs: 0,
    details: {
      ...result.details,
      measuredBy: from.variant,
      measuredMs: result.durationMs,
      shared: 'bind does not use the client: measured once per cell and Node release',
    },
  };
}

/** Why a kept spec run again by hand does not run bind: another variant measured it (undefined: it runs). */
export function sharedBindSkip(bind: PhaseResult | undefined): string | undefined {
  return bind && typeof bind.details?.measuredBy === 'string'
    ? `measured by ${bind.details.measuredBy}: bind is run once per cell and Node release`
    : undefined;
}
