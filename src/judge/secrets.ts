// The secrets a server needs from the environment (config `secrets`). Each reaches only the phases that
// need it, its value is masked in every output, and when it is absent (a fork's or Dependabot's pull
// request gets no secrets on GitHub) those phases are not run: not measured (or skipped, when the
// config says so), with the reason named. A server is never failed for want of a key it was not given.
import { SECRET_PHASES } from '../config/resolve.js';
import type { SecretPhase, SecretSpec } from '../config/types.js';
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

/** The result that stands in for each phase a missing secret keeps from running. */
export function secretGaps(absent: readonly SecretSpec[], context: string): Map<SecretPhase, PhaseResult> {
  const gaps = new Map<SecretPhase, PhaseResult>();
  for (const phase of SECRET_PHASES) {
    const missing = absent.filter((s) => s.phases.includes(phase));
    if (missing.length === 0) continue;
    const names = missing.map((s) => s.name).join(', ');
    const why = context || "in this run's environment; in CI, give it to the run step's env:";
    // Not measured unless every missing secret says a run without it may skip the phase.
    const skip = missing.every((s) => s.whenAbsent === 'skipped');
    gaps.set(phase, {
      phase,
      verdict: skip ? 'skipped' : 'not-measured',
      durationMs: 0,
      step: 'secrets',
      message: `not run: secret ${names} ${missing.length > 1 ? 'are' : 'is'} not set (${why}); the config says this phase needs ${missing.length > 1 ? 'them' : 'it'}, so it was not measured${skip ? ' (whenAbsent: skipped)' : ''}`,
    });
  }
  return gaps;
}

/** One line for the run's log: which secrets are absent and which phases they keep from running. */
export function absenceWarning(absent: readonly SecretSpec[], context: string): string | undefined {
  if (absent.length === 0) return undefined;
  const list = absent.map((s) => `${s.name} (${s.phases.join(', ')})`).join('; ');
  return `secret(s) not set: ${list}${context ? `: ${context}` : ''}. Those phases are not run, and read as ${
    absent.every((s) => s.whenAbsent === 'skipped') ? 'skipped' : 'not measured'
  }, never failed.`;
}

/** What a run knows about its secrets, worked out once: each phase's gap or extra environment, and the masks. */
export interface RunSecrets {
  gaps: Map<SecretPhase, PhaseResult>;
  env(phase: SecretPhase): Record<string, string>;
  mask: string[];
  warning?: string;
}

export function runSecrets(secrets: readonly SecretSpec[], env: Env, event: PullRequestEvent | undefined): RunSecrets {
  const absent = absentSecrets(secrets, env);
  const context = absent.length > 0 ? absenceContext(env, event) : '';
  const warning = absenceWarning(absent, context);
  return {
    gaps: secretGaps(absent, context),
    env: (phase) => secretEnv(secrets, phase, env),
    mask: secretValues(secrets, env),
    ...(warning ? { warning } : {}),
  };
}
