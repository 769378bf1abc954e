// bind and conformance never use the client: the variants of one cell on one Node release share the first
// clean measurement of each, and a variant that takes one over reports the measured verdict with its origin.
import { withDetails } from '../contract/fields.js';
import type { PlannedVariant } from '../plan/plan.js';
import type { PhaseResult } from '../results/types.js';

/** The phases whose servers and judges are the same whatever client a variant runs: bind, the conformance suite. */
export const SHARED_PHASES = ['bind', 'conformance'] as const;
export type SharedPhase = (typeof SHARED_PHASES)[number];

/** The shared phases' results measured on a cell's install, by phase and Node release (see `shareKey`). */
export type PhaseShare = Map<string, { variant: string; result: PhaseResult }>;

/** Shared results as a variant that takes them over reports them (`sharedResult`), by phase. */
export type SharedResults = Partial<Record<SharedPhase, PhaseResult>>;

/** The key of a variant's measurement of a shared phase within its cell: the phase and the Node release its server runs on. */
export function shareKey(phase: SharedPhase, variant: Pick<PlannedVariant, 'node'>): string {
  return `${phase} on ${variant.node?.version ?? 'host'}`;
}

/**
 * A measured result worth sharing with the cell's other variants on the same Node: passed or failed (a
 * verdict on the server, not the harness's luck), and its servers judged clean by leaks (or leaks off),
 * so a variant that takes it over loses nothing its own run would have told it.
 */
export function toShare(phase: SharedPhase, phases: PhaseResult[]): PhaseResult | undefined {
  const measured = phases.find((p) => p.phase === phase);
  const leaks = phases.find((p) => p.phase === 'leaks');
  if (!measured || (measured.verdict !== 'passed' && measured.verdict !== 'failed')) return undefined;
  if (!leaks || (leaks.verdict !== 'passed' && leaks.verdict !== 'skipped')) return undefined;
  return measured;
}

/** The shared result as a variant that did not run it reports it: same verdict, message and checks, its origin in the details. */
export function sharedResult(from: { variant: string; result: PhaseResult }): PhaseResult {
  const { result } = from;
  return withDetails(
    { ...result, durationMs: 0 },
    {
      measuredBy: from.variant,
      measuredMs: result.durationMs,
      shared: `${result.phase} does not use the client: measured once per cell and Node release`,
    },
  );
}

/** The results this variant takes over from the cell's earlier variants on its Node release. */
export function sharedWith(share: PhaseShare | undefined, variant: Pick<PlannedVariant, 'node'>): SharedResults {
  const taken: SharedResults = {};
  for (const phase of SHARED_PHASES) {
    const from = share?.get(shareKey(phase, variant));
    if (from) taken[phase] = sharedResult(from);
  }
  return taken;
}

/** Why a kept spec run again by hand does not run a shared phase: another variant measured it (undefined: it runs). */
export function sharedSkip(result: PhaseResult | undefined): string | undefined {
  return result && typeof result.details?.measuredBy === 'string'
    ? `measured by ${result.details.measuredBy}: ${result.phase} is run once per cell and Node release`
    : undefined;
}
