// The rules that read the check catalogue (catalogue.ts): a check's default and configured level, the fold of
// a phase's sub-checks into its verdict (decidePhase), a check as a line. Pure functions, importing types only:
// the driver records checks with them inside a cell, and the harness reads the same rules.

import type { CheckLevel, SubCheckResult, Verdict } from '../results/types.js';
import { CHECKS, MCP_REVISIONS } from './catalogue.js';
import type { CheckDefinition } from './check-definition.js';
import { defined } from './fields.js';

export { CHECK_LEVELS, type CheckDefinition, type CheckPhase } from './check-definition.js';
export { CHECKS, MCP_REVISIONS } from './catalogue.js';

export function checkDefinition(id: string): CheckDefinition | undefined {
  return CHECKS.find((c) => c.id === id);
}

/** The ids of one phase's checks, in report order. */
export function checkIds(phase: CheckDefinition['phase']): string[] {
  return CHECKS.filter((c) => c.phase === phase).map((c) => c.id);
}

/** A check's level when the config does not set it; `auth` is the phase's `http.auth`. */
export function defaultLevel(def: CheckDefinition, auth: string): CheckLevel {
  const d = def.defaultLevel;
  return typeof d === 'string' ? d : auth === 'none' ? d.open : d.guarded;
}

/**
 * The verdict a phase's sub-checks fold to (the rule verdict.ts audits stored files with): `failed`
 * when a `require` check failed; `not-measured` when a `require` check could not be measured; else
 * `passed` when any check ran, `skipped` when none did. A `warn` check never changes the verdict; a
 * `not-applicable` one (the negotiated revision lacks its requirement) neither fails nor passes, as a skipped one.
 */
export function decidePhase(checks: readonly Pick<SubCheckResult, 'level' | 'outcome'>[]): Verdict {
  const required = checks.filter((c) => c.level === 'require');
  if (required.some((c) => c.outcome === 'failed')) return 'failed';
  if (required.some((c) => c.outcome === 'not-measured')) return 'not-measured';
  return checks.some((c) => c.outcome !== 'skipped' && c.outcome !== 'not-applicable') ? 'passed' : 'skipped';
}

const DATED = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A check judged by the MCP revision the cell negotiated (`negotiated`, from its client's initialize): an MCP
 * requirement cites that revision; one that revision does not have (it came later, or was removed) is
 * `not-applicable (revision X)`, whatever the server did (kept in `evidence.seen`). Unchanged: a check without an MCP
 * history, a second judge's, an `off` one, or no dated revision read (the catalogue's revision stands).
 */
export function byRevision(c: SubCheckResult, negotiated: string | undefined): SubCheckResult {
  const def = c.judge ? undefined : checkDefinition(c.id);
  const history = def?.revisions;
  if (!history || !def.spec || negotiated === undefined || !DATED.test(negotiated) || c.level === 'off') return c;
  const { section } = def.spec;
  const later = negotiated < history.since;
  if (!later && (history.until === undefined || negotiated < history.until))
    return { ...c, spec: { revision: `MCP ${negotiated}`, section }, revision: negotiated };
  // Cite the text that has it: the revision it arrived in, or the last before its removal.
  const cited = later ? history.since : ([...MCP_REVISIONS].reverse().find((r) => r < history.until!) ?? history.since);
  const why = later ? `it arrived in ${history.since}` : `${history.until} removed it`;
  return {
    id: c.id,
    outcome: 'not-applicable',
    level: c.level,
    ...defined({ requirement: c.requirement }),
    spec: { revision: `MCP ${cited}`, section },
    revision: negotiated,
    message: `not applicable (revision ${negotiated}): MCP ${negotiated} has no ${history.what}; ${why}`,
    short: `n/a (${negotiated})`,
    evidence: { ...c.evidence, seen: { outcome: c.outcome, message: c.message } },
  };
}

/**
 * The requirement a check comes from, for messages: `MUST, MCP 2025-11-25 basic/transports#…, level require`;
 * `SDK default, TypeScript SDK 1.24.0 GHSA-…, level warn (harness policy)` where the level is a harness policy.
 */
export function checkSource(c: Pick<SubCheckResult, 'requirement' | 'spec' | 'level'> & Partial<Pick<SubCheckResult, 'id'>>): string {
  const what = c.requirement ? `${c.requirement}${c.spec ? `, ${c.spec.revision} ${c.spec.section}` : ''}` : 'harness';
  return `${what}, level ${c.level}${policyLevel(c) ? ' (harness policy)' : ''}`;
}

/** The check runs at a default level its catalogue entry sets by a named policy, not by its keyword's rule. */
function policyLevel(c: Pick<SubCheckResult, 'requirement' | 'level'> & Partial<Pick<SubCheckResult, 'id'>>): boolean {
  const def = c.id === undefined ? undefined : checkDefinition(c.id);
  if (def?.policy === undefined || c.requirement === undefined) return false;
  const d = def.defaultLevel;
  const defaults = typeof d === 'string' ? [d] : [d.open, d.guarded];
  const byKeyword = c.requirement === 'MUST' ? 'require' : c.requirement === 'SHOULD' ? 'warn' : undefined;
  return defaults.includes(c.level) && c.level !== byKeyword;
}

/** One check as a line: `origin: a foreign Origin got 200 (want 403) [MUST, MCP 2025-11-25 …, level require]`. */
export function checkLine(c: SubCheckResult): string {
  return `${c.id}: ${c.message} [${checkSource(c)}]`;
}

/** The checks a reader must see: those that failed or were not measured, at level require or warn. */
export function notableChecks(checks: readonly SubCheckResult[]): SubCheckResult[] {
  return checks.filter((c) => c.level !== 'off' && (c.outcome === 'failed' || c.outcome === 'not-measured' || c.outcome === 'contested'));
}

/**
 * What a check saw, before its catalogue entry and level are attached. `spec`: the revision it was judged by, when
 * the server's own negotiated revision decides it (origin), instead of the catalogue's.
 */
export type CheckFinding = Pick<SubCheckResult, 'outcome' | 'message'> &
  Partial<Pick<SubCheckResult, 'short' | 'step' | 'evidence' | 'spec'>>;

/** A check id as the code names it: a literal (`'origin'`) or a union of them, never any string. */
export type CheckId<K extends string> = K & (string extends K ? never : unknown);

/**
 * The level a phase runs a check at, as the spec gives it: the harness resolved every one (config/resolve.ts) and
 * the driver checked them on reading the spec (driver/spec-levels.ts), so none is defaulted here. The types hold
 * it: `id` is a literal check id (never any string), and `levels` has that key (the spec's record, checked, has all).
 */
export function levelOf<K extends string>(id: CheckId<K>, levels: Readonly<Record<NoInfer<K>, CheckLevel>>): CheckLevel {
  return levels[id];
}

/** A check's reported result: the finding with its level, requirement and spec; an `off` check is recorded as skipped. */
export function checkResult(id: string, level: CheckLevel, finding: CheckFinding): SubCheckResult {
  const def = checkDefinition(id);
  if (!def) throw new Error(`unknown sub-check "${id}" (not in src/contract/catalogue.ts)`);
  const seen: CheckFinding = level === 'off' ? { outcome: 'skipped', message: 'off in the config (not run)', short: 'off' } : finding;
  const spec = seen.spec ?? def.spec;
  return {
    id,
    outcome: seen.outcome,
    level,
    ...defined({ requirement: def.requirement, spec }),
    message: seen.message,
    ...defined({ short: seen.short, step: seen.step, evidence: seen.evidence }),
  };
}
