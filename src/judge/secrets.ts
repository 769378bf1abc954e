// The secrets a server needs (config `secrets`): each reaches only its phases and is masked everywhere. When one is
// absent (a fork's pull request) those phases are not measured, since a server is never failed for a key it lacked.
import { SECRET_PHASES } from '../config/resolve.js';
import type { ForkPolicy, SecretPhase, SecretSpec } from '../contract/config.js';
import type { PhaseResult } from '../results/types.js';

type Env = Record<string, string | undefined>;

/** The secrets that are unset or empty in this run's environment. */
export function absentSecrets(secrets: readonly SecretSpec[], env: Env): SecretSpec[] {
  return secrets.filter((s) => !env[s.name]);
}

/** The secrets a phase is given: the present ones that it needs. */
export function secretEnv(secrets: readonly SecretSpec[], phase: SecretPhase, env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of secrets) if (s.phases.includes(phase) && env[s.name]) out[s.name] = env[s.name]!;
  return out;
}

/** Every present secret's value, for the redactors. */
export function secretValues(secrets: readonly SecretSpec[], env: Env): string[] {
  return secrets.flatMap((s) => (env[s.name] ? [env[s.name]!] : []));
}

/** The pull request part of a GitHub event payload: all that tells a fork's run apart. */
export interface PullRequestEvent {
  pull_request?: { head?: { repo?: { fork?: boolean; full_name?: string } | null }; base?: { repo?: { full_name?: string } } };
}

/** Why secrets may be absent in this run, from GitHub's environment (and its event payload); '' off GitHub. */
export function absenceContext(env: Env, event: PullRequestEvent | undefined): string {
  if (env.GITHUB_ACTIONS !== 'true') return '';
  if (env.GITHUB_ACTOR === 'dependabot[bot]')
    return 'this run was triggered by Dependabot, and GitHub gives Dependabot runs only the Dependabot secrets';
  const pr = event?.pull_request;
  const head = pr?.head?.repo;
  const fromFork =
    env.GITHUB_EVENT_NAME?.startsWith('pull_request') === true &&
    // A deleted fork's head repository is null: still a fork's pull request.
    (head === null || head?.fork === true || (head?.full_name !== undefined && head.full_name !== pr?.base?.repo?.full_name));
  if (fromFork)
    return `this run is a pull request from a fork${head?.full_name ? ` (${head.full_name})` : ''}, and GitHub gives fork pull requests no secrets`;
  return '';
}

/** Where a message names the fork policy that let a fork's run pass: the text every report shows. */
export const FORK_PASS = "secretsOnFork: 'not-measured' lets this run pass on the phases it measured";

/**
 * The result that stands in for each phase a missing secret keeps from running. `context` is set on a fork's or
 * Dependabot's run (absenceContext): there the fork policy decides, and its default lets the gate pass on what
 * was measured (the phase reads as skipped, its message says NOT MEASURED and why).
 */
export function secretGaps(
  absent: readonly SecretSpec[],
  context: string,
  onFork: ForkPolicy = 'not-measured',
): Map<SecretPhase, PhaseResult> {
  const gaps = new Map<SecretPhase, PhaseResult>();
  for (const phase of SECRET_PHASES) {
    const missing = absent.filter((s) => s.phases.includes(phase));
    if (missing.length === 0) continue;
    const names = missing.map((s) => s.name).join(', ');
    const why = context || "in this run's environment; in CI, give it to the run step's env:";
    const them = missing.length > 1 ? 'them' : 'it';
    const chosen = missing.every((s) => s.whenAbsent === 'skipped');
    const forkPass = !chosen && context !== '' && onFork === 'not-measured';
    // Not measured unless every missing secret says a run without it may skip the phase, or the fork policy does.
    const skip = chosen || forkPass;
    gaps.set(phase, {
      phase,
      verdict: skip ? 'skipped' : 'not-measured',
      durationMs: 0,
      step: 'secrets',
      message: forkPass
        ? `NOT MEASURED: secret ${names} ${missing.length > 1 ? 'are' : 'is'} not set (${why}); the config says this phase needs ${them}. ${FORK_PASS}; the run on the base repository measures this one`
        : `not run: secret ${names} ${missing.length > 1 ? 'are' : 'is'} not set (${why}); the config says this phase needs ${them}, so it was not measured${chosen ? ' (whenAbsent: skipped)' : ''}`,
    });
  }
  return gaps;
}

/** One line for the run's log: which secrets are absent and which phases they keep from running. */
export function absenceWarning(absent: readonly SecretSpec[], context: string, onFork: ForkPolicy = 'not-measured'): string | undefined {
  if (absent.length === 0) return undefined;
  const list = absent.map((s) => `${s.name} (${s.phases.join(', ')})`).join('; ');
  const reads = absent.every((s) => s.whenAbsent === 'skipped')
    ? 'skipped'
    : context && onFork === 'not-measured'
      ? `not measured, and the gate passes on the rest (${FORK_PASS.replace(' lets this run pass on the phases it measured', '')})`
      : 'not measured';
  return `secret(s) not set: ${list}${context ? `: ${context}` : ''}. Those phases are not run, and read as ${reads}, never failed.`;
}

/** What a run knows about its secrets, worked out once: each phase's gap or extra environment, and the masks. */
export interface RunSecrets {
  gaps: Map<SecretPhase, PhaseResult>;
  env(phase: SecretPhase): Record<string, string>;
  mask: string[];
  warning?: string;
}

export function runSecrets(
  secrets: readonly SecretSpec[],
  env: Env,
  event: PullRequestEvent | undefined,
  onFork: ForkPolicy = 'not-measured',
): RunSecrets {
  const absent = absentSecrets(secrets, env);
  const context = absent.length > 0 ? absenceContext(env, event) : '';
  const warning = absenceWarning(absent, context, onFork);
  return {
    gaps: secretGaps(absent, context, onFork),
    env: (phase) => secretEnv(secrets, phase, env),
    mask: secretValues(secrets, env),
    ...(warning ? { warning } : {}),
  };
}
