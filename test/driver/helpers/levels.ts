// The check levels of a hand-built driver spec, resolved as the harness resolves them (config/resolve.ts):
// the driver defaults none, so a test names only the levels it changes and this fills the rest.

import { resolveChecks } from '../../../src/config/resolve.js';
import type { CheckLevels, DriverSpec } from '../../../src/contract/protocol.js';
import type { CheckLevel } from '../../../src/results/types.js';

type Phases = DriverSpec['phases'];
/** A phase's spec as a test writes it: its `checks` partial or absent. */
type Unresolved<P> = P extends { checks: CheckLevels } ? Omit<P, 'checks'> & { checks?: Partial<Record<string, CheckLevel>> } : P;
/** A driver spec's phases before their levels are resolved. */
export type UnresolvedPhases = { [K in keyof Phases]: Unresolved<Phases[K]> };

/** Every check of `phase` at its catalogue default for `auth` (http: `bearer` unless given), `over` on top. */
export function levels(phase: 'stdio' | 'http' | 'leaks', over: Partial<Record<string, CheckLevel>> = {}, auth?: string): CheckLevels {
  return resolveChecks(phase, auth ?? (phase === 'http' ? 'bearer' : 'none'), over);
}

/** `spec` (one phase's) with every level resolved, those it names kept. */
export function resolved<P extends object>(
  phase: 'stdio' | 'http' | 'leaks',
  spec: P & { auth?: 'bearer' | 'none' | 'oauth'; checks?: Partial<Record<string, CheckLevel>> },
): Omit<P, 'checks'> & { checks: CheckLevels } {
  return { ...spec, checks: levels(phase, spec.checks ?? {}, spec.auth) };
}

/** Every running phase's levels resolved, as the harness sends them. */
export function withLevels(phases: UnresolvedPhases): Phases {
  return {
    ...phases,
    stdio: phases.stdio && resolved('stdio', phases.stdio),
    http: phases.http && resolved('http', phases.http),
    leaks: phases.leaks && resolved('leaks', phases.leaks),
  };
}
