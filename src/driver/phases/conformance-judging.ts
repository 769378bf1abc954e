// The conformance phase's judging: a scenario from the suite's own checks (a FAILURE fails it, no checks is
// not-measured), the phase from its scenarios, and each scenario as a sub-check beside the harness's own check of
// the same requirement. Pure functions; conformance.ts runs the suite.

import type { CheckLevel, PhaseResult, SubCheckResult } from '../../results/types.js';
import { CHECKS, decidePhase } from '../../contract/checks.js';

/** One check of the suite's checks.json, as far as the verdict needs it. */
export interface SuiteCheck {
  id: string;
  status: string;
  errorMessage?: string;
  specReferences?: { id?: string; url?: string }[];
}

export interface ScenarioResult {
  name: string;
  verdict: 'passed' | 'failed' | 'not-measured';
  /** The first failed check (`id: message`), the warnings, or why the scenario could not be judged. */
  message?: string;
  checks: { id: string; status: string; message?: string }[];
  durationMs: number;
  /** `warn`: outside the scenario's own scope (see outOfScope): shown, never a verdict. */
  level: CheckLevel;
  /** The spec pages the suite's checks cite (their URLs). */
  specUrls: string[];
}

/** The scenario's verdict from its checks: any FAILURE fails it; WARNING passes with the warning named; any other status is not measured. */
export function judgeScenario(name: string, checks: SuiteCheck[], durationMs: number): ScenarioResult {
  const listed = checks.map((c) => ({ id: c.id, status: c.status, ...(c.errorMessage ? { message: c.errorMessage } : {}) }));
  const specUrls = [...new Set(checks.flatMap((c) => (c.specReferences ?? []).map((r) => r.url ?? '')).filter(Boolean))];
  const base = { name, checks: listed, durationMs, level: 'require' as const, specUrls };
  const judged = checks.filter((c) => c.status !== 'INFO');
  if (judged.length === 0) return { ...base, verdict: 'not-measured', message: 'the suite recorded no check' };
  const failures = judged.filter((c) => c.status === 'FAILURE');
  if (failures.length)
    return { ...base, verdict: 'failed', message: failures.map((c) => `${c.id}: ${c.errorMessage ?? 'FAILURE'}`).join('; ') };
  // A status the suite may add later (`SKIPPED`, say) is not a pass: the scenario was not judged by rules we know.
  const unknown = judged.filter((c) => c.status !== 'SUCCESS' && c.status !== 'WARNING');
  if (unknown.length)
    return {
      ...base,
      verdict: 'not-measured',
      message: `the suite reported a status the harness does not know: ${unknown.map((c) => `${c.id}: ${c.status}`).join('; ')}`,
    };
  const warnings = judged.filter((c) => c.status === 'WARNING');
  const message = warnings.length ? `warning: ${warnings.map((c) => `${c.id}: ${c.errorMessage ?? 'WARNING'}`).join('; ')}` : undefined;
  return { ...base, verdict: 'passed', ...(message ? { message } : {}) };
}

/**
 * A scenario whose scope is servers without authentication, run behind the bearer token (added by the proxy):
 * its failure is shown, never a verdict (a cross-origin page cannot attach the header).
 */
export function outOfScope(run: ScenarioResult): ScenarioResult {
  const why = 'level warn: the scenario is for servers without authentication and this endpoint requires a bearer token';
  return { ...run, level: 'warn', message: run.message ? `${run.message} (${why})` : `(${why})` };
}

/** The phase's verdict (the sub-checks' fold) and one-line message from its scenarios. */
export function summarize(scenarios: ScenarioResult[]): Pick<PhaseResult, 'verdict' | 'message' | 'step'> {
  const name = (s: ScenarioResult) => `${s.name} (${s.message ?? s.verdict})`;
  const failed = scenarios.filter((s) => s.verdict === 'failed' && s.level === 'require');
  const unmeasured = scenarios.filter((s) => s.verdict === 'not-measured' && s.level === 'require');
  const warned = scenarios.filter((s) => s.verdict === 'failed' && s.level === 'warn');
  // A warn-level scenario the suite could not judge is neither passed nor a failure: named apart, never counted as passed.
  const warnedLost = scenarios.filter((s) => s.verdict === 'not-measured' && s.level === 'warn');
  const notes = [
    ...(unmeasured.length ? [`not measured: ${unmeasured.map(name).join('; ')}`] : []),
    ...(warned.length ? [`warn: ${warned.map(name).join('; ')}`] : []),
    ...(warnedLost.length ? [`not measured (warn): ${warnedLost.map(name).join('; ')}`] : []),
  ];
  if (scenarios.length === 0) return { verdict: 'not-measured', message: 'no scenario of the suite applies to this server' };
  const verdict = decidePhase(scenarios.map((s) => ({ level: s.level, outcome: s.verdict })));
  if (verdict === 'failed')
    return {
      verdict,
      step: failed[0]!.name,
      message: [`${failed.length} of ${scenarios.length} scenario(s) failed: ${failed.map(name).join('; ')}`, ...notes].join('; '),
    };
  if (verdict === 'not-measured') return { verdict, step: unmeasured[0]!.name, message: notes.join('; ') };
  // Only the passed ones are listed after "passed:"; the others are named by the notes, with their cause.
  const passed = scenarios.filter((s) => s.verdict === 'passed');
  return {
    verdict,
    message: [`${passed.length}/${scenarios.length} scenarios passed: ${passed.map((s) => s.name).join(', ')}`, ...notes].join('; '),
  };
}

/**
 * A scenario as a sub-check of the phase, judged by the suite; `sameAs` names our own check of the same
 * requirement: one whose spec section the suite's checks cite (`…/2025-11-25/basic/transports#security-warning`).
 */
export function scenarioCheck(s: ScenarioResult, judge: string): SubCheckResult {
  // Each id once: the lifecycle checks are listed once per phase (stdio, http).
  const ours = [
    ...new Set(
      CHECKS.filter(
        (c) =>
          c.spec &&
          c.spec.revision.startsWith('MCP ') &&
          s.specUrls.some((u) => u.endsWith(`/${c.spec!.revision.slice(4)}/${c.spec!.section}`)),
      ).map((c) => c.id),
    ),
  ];
  return {
    id: s.name,
    outcome: s.verdict,
    level: s.level,
    message: s.message ?? (s.verdict === 'passed' ? 'passed' : s.verdict),
    ...(s.verdict === 'failed' ? { step: s.name } : {}),
    evidence: {
      checks: s.checks,
      durationMs: s.durationMs,
      ...(s.specUrls.length ? { spec: s.specUrls } : {}),
      ...(ours.length > 1 ? { sameAs: ours } : {}),
    },
    judge,
    ...(ours.length ? { sameAs: ours[0]! } : {}),
  };
}

/** Whether the server's `initialize` capabilities hold `tools` / `resources.subscribe`. */
export function advertises(capabilities: Record<string, unknown>, capability: string): boolean {
  let at: unknown = capabilities;
  for (const key of capability.split('.')) {
    if (!at || typeof at !== 'object' || !(key in at)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return at !== undefined && at !== null && at !== false;
}
