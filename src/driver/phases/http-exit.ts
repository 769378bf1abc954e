// A server that exits under the http phase's probes: the first check without an answer names the exit once, as the
// server's doing, and every later check is skipped with that cause, rather than each reading ECONNREFUSED.

import type { CheckLevel, SubCheckResult } from '../../results/types.js';
import { checkResult, levelOf, type CheckId } from '../../contract/checks.js';
import { CATALOGUE_IDS, oauthStep, type OAuthCheck, type OAuthCheckId } from '../http/oauth.js';
import type { ServerProcess } from '../server/process.js';
import type { NoAnswer } from '../http/raw-http.js';

/** How the server ended (`code 7`, `signal SIGKILL`) and the check that met it. */
export interface ServerExit {
  how: string;
  during: string;
}

/** After a request got no answer: how the server ended, when it has exited (waiting up to 500 ms for it), else null. */
export async function exitOf(proc: ServerProcess): Promise<{ how: string; at: number } | null> {
  const exit = proc.exitInfo ?? (await proc.waitExit(500));
  return exit ? { how: exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`, at: exit.at } : null;
}

/** Nobody listened when the request went out (fetch's cause, node:http's code): it exited before it, not under it. */
export function refusedConnection(error: unknown): boolean {
  const code = (e: unknown): unknown => (e as NodeJS.ErrnoException | undefined)?.code;
  return code(error) === 'ECONNREFUSED' || code((error as { cause?: unknown } | undefined)?.cause) === 'ECONNREFUSED';
}

/** The check that met the exit: `the server exited (code 7) under the request without a token (see its stderr)`. */
export function exitText(how: string, before: boolean, step: string): string {
  return `the server exited (${how}) ${before ? 'before' : 'under'} the ${step} (see its stderr)`;
}

/** Why a later check was not run: `the server exited (code 7) during no-token-401`. */
export function exitCause(exit: ServerExit): string {
  return `the server exited (${exit.how}) during ${exit.during}`;
}

/** A later check: `not run: the server exited (code 7) during no-token-401`. */
export function notRunText(exit: ServerExit): string {
  return `not run: ${exitCause(exit)}`;
}

/**
 * Why the lifecycle edges (after the round trip) were not run when it failed: the exit a check met and named
 * (`evidence.exited`), else an exit under the round trip itself, else the round trip's failure.
 */
export function lifecycleNotRunCause(reported: readonly SubCheckResult[], proc: Pick<ServerProcess, 'exitInfo'>): string {
  const met = reported.find((c) => c.evidence?.exited !== undefined);
  if (met) return exitCause({ how: String(met.evidence!.exited), during: met.id });
  const exit = proc.exitInfo;
  if (exit) return exitCause({ how: exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`, during: 'the round trip' });
  return 'the round trip failed';
}

/** Checks never run because the server had exited, each recorded skipped with the cause (an `off` one as off). */
export function notRunChecks<K extends string>(
  ids: readonly CheckId<K>[],
  levels: Readonly<Record<NoInfer<K>, CheckLevel>>,
  exit: ServerExit,
): SubCheckResult[] {
  return ids.map((id) => checkResult(id, levelOf(id, levels), { outcome: 'skipped', message: notRunText(exit), short: 'not run' }));
}

/** The OAuth checks a server that exited before them never met, in report order (their round trip is the bearer one). */
export function notRunOAuth(exit: ServerExit): OAuthCheck[] {
  return OAUTH_PROBES.map((id) => ({ id, outcome: 'not run', text: notRunText(exit), short: 'not run', step: oauthStep(id) }));
}

const OAUTH_PROBES: OAuthCheckId[] = ['discovery', 'metadata', 'audience', 'expired', 'otherKey', 'algNone'];

/** The request each OAuth probe sends, as an exit under it is named. */
const OAUTH_REQUESTS: Partial<Record<OAuthCheckId, string>> = {
  discovery: 'protected resource metadata discovery',
  audience: 'request with a token for another audience',
  expired: 'request with an expired token',
  otherKey: 'request with a token signed by another key',
  algNone: 'request with an unsigned token (alg none)',
};

/**
 * The OAuth checks after their requests (sent together from `startedAt`): when some got no answer and the server has
 * exited, the first of those in report order names the exit, the later unanswered ones are not run (metadata too, when
 * discovery met it); those answered keep their judgement. `noAnswer`: each probe's error (discovery's: true, when a
 * URI it tried got none and it found no document).
 */
export function oauthAfterExit(
  checks: OAuthCheck[],
  noAnswer: Partial<Record<OAuthCheckId, NoAnswer | true>>,
  exit: { how: string; at: number },
  startedAt: number,
): { checks: OAuthCheck[]; died: ServerExit } {
  const first = OAUTH_PROBES.find((id) => noAnswer[id])!;
  const died: ServerExit = { how: exit.how, during: CATALOGUE_IDS[first] };
  const error = noAnswer[first];
  const before = (error !== undefined && error !== true && refusedConnection(error)) || exit.at < startedAt;
  const met = (id: OAuthCheckId): boolean => noAnswer[id] !== undefined || (id === 'metadata' && noAnswer.discovery !== undefined);
  return {
    died,
    checks: checks.map((c) =>
      c.id === first
        ? {
            id: c.id,
            outcome: 'failed',
            text: exitText(exit.how, before, OAUTH_REQUESTS[c.id] ?? c.step),
            short: 'server exited',
            step: c.step,
            evidence: { exited: exit.how },
          }
        : met(c.id)
          ? { id: c.id, outcome: 'not run', text: notRunText(died), short: 'not run', step: c.step }
          : c,
    ),
  };
}
