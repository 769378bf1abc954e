// What the harness could not measure is never the server's verdict: each way a cell stops short becomes
// `not-measured` here, with its cause. npm refusing the pin is the one install outcome that is `failed`.
import semver from 'semver';
import { PHASES, type PhaseName, type PhaseResult, type PhaseResultOf } from '../results/types.js';
import { describeInfraError } from '../util/infra.js';
import { errorMessage } from '../util/result.js';

/**
 * The environment result of an install that did not complete: the package manager's refusal fails it, anything else
 * is not measured. `tool`: the cell's installer (npm, or pnpm for a strict leg), named in the step and the message.
 */
export function installFailure(
  install: { kind: 'failed' | 'not-measured'; attempts: number; durationMs: number; code: string; message: string; cause?: string },
  pin: { primary: string; version: string; packageName: string; range?: string },
  tool: 'npm' | 'pnpm' | 'yarn' = 'npm',
): PhaseResultOf<'environment'> {
  const what = install.kind === 'failed' ? 'failed' : 'not-measured';
  // npm usually refuses a pin outside a declared peer range (ERESOLVE): say the plain cause first.
  const outside =
    install.kind === 'failed' && pin.range && !semver.satisfies(pin.version, pin.range)
      ? `pin ${pin.primary}@${pin.version} is outside the range "${pin.range}" that ${pin.packageName} declares; `
      : '';
  const cause = install.kind === 'not-measured' ? install.cause : undefined;
  return {
    phase: 'environment',
    verdict: what,
    durationMs: install.durationMs,
    step: `${tool} install`,
    message: cause
      ? cause === install.message
        ? cause
        : `${cause} (${tool}: ${install.message})`
      : `${outside}${tool} install ${install.kind === 'failed' ? 'failed' : `could not complete after ${install.attempts} attempt(s)`} (${install.code}): ${install.message}`,
    details: { attempts: install.attempts, code: install.code },
  };
}

/** The harness's own failure (a full disk while writing the cell, a bug): never the server's. */
export function harnessError(error: unknown, aborted: boolean, phase: PhaseName = 'environment'): PhaseResult {
  const message = aborted ? 'interrupted' : `harness error: ${describeInfraError(error) ?? errorMessage(error)}`;
  return { phase, verdict: 'not-measured', durationMs: 0, message };
}

/** The first phase without a result: where the harness stopped. */
export function nextPhase(results: ReadonlyMap<PhaseName, PhaseResult>): PhaseName {
  return PHASES.find((p) => !results.has(p)) ?? 'leaks';
}

/** A phase that has no result once the variant ended: why it did not run. */
export function notRun(phase: PhaseName, results: ReadonlyMap<PhaseName, PhaseResult>, aborted: boolean, stopped?: string): PhaseResult {
  const env = results.get('environment');
  const message = aborted
    ? 'interrupted before this phase ran'
    : stopped
      ? `not run: ${stopped}`
      : env && env.verdict !== 'passed' && (env.step === 'npm install' || env.step === 'pnpm install' || env.step === 'yarn install')
        ? 'not run: the cell could not be installed'
        : 'not run: the harness stopped before this phase';
  return { phase, verdict: 'not-measured', durationMs: 0, message };
}

/** The variant's client or Node runtime could not be installed: the harness's instrument, so environment is not measured. */
export function instrumentMissing(environment: PhaseResult, failure: { step: string; message: string }): PhaseResult {
  return { ...unmeasured(environment, failure.message), step: failure.step, message: failure.message };
}

/** A phase the harness could not stand behind: not measured, its sub-checks too (so they fold to its verdict). */
export function unmeasured(phase: PhaseResult, why: string): PhaseResult {
  const checks = phase.checks?.map((c) =>
    c.outcome === 'passed' || c.outcome === 'failed'
      ? { ...c, outcome: 'not-measured' as const, message: `${why} (it saw: ${c.message})` }
      : c,
  );
  return { ...phase, verdict: 'not-measured', ...(checks ? { checks } : {}) };
}

/** A conformance suite that could not be installed measured nothing: not-measured with its cause, never skipped or failed. */
export function suiteMissing(message: string): PhaseResult {
  return { phase: 'conformance', verdict: 'not-measured', durationMs: 0, step: 'suite install', message };
}

/**
 * A driver that crashed, was killed or hit the backstop measured nothing more: only the server's own
 * behaviour, reported by the driver, may fail a phase. Undefined when the phase it was in has a result.
 */
export function driverStopped(
  outcome: { results: readonly PhaseResult[]; current?: PhaseName; message: string },
  aborted: boolean,
): PhaseResult | undefined {
  const phase = outcome.current ?? 'stdio';
  if (outcome.results.some((r) => r.phase === phase)) return undefined;
  return {
    phase,
    verdict: 'not-measured',
    durationMs: 0,
    message: aborted ? 'interrupted' : `${outcome.message}; the harness could not measure this phase (not a verdict on the server)`,
  };
}
