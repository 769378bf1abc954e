// The http phase's lifecycle edges (../lifecycle/checks.ts) on a session of their own, opened with the
// phase's credentials after the round trip; not run when the round trip failed (its failure is the cause, or the
// server's exit that an earlier check named), unless only by `isError` without `expect` (http.ts decides).

import type { LifecycleDetails, SubCheckResult } from '../../results/types.js';
import { checkResult, levelOf } from '../../contract/checks.js';
import { LIFECYCLE_IDS, lifecycleChecks, type LifecycleSpec } from '../lifecycle/checks.js';
import { httpSession } from '../lifecycle/wire.js';
import type { ServerProcess } from '../server/process.js';

export async function httpLifecycle(
  spec: LifecycleSpec,
  url: string,
  authorization: string | undefined,
  proc: ServerProcess,
  roundTripOk: boolean,
  details: LifecycleDetails,
  /** Why they are not run when the round trip failed: a server's exit, named (http-exit.ts), else its failure. */
  notRunCause = 'the round trip failed',
): Promise<SubCheckResult[]> {
  // The failure to open a session is the first edge's that is on: an edge set to off would hide it.
  const firstOn = LIFECYCLE_IDS.findIndex((id) => levelOf(id, spec.checks) !== 'off');
  const notRun = (why: string, first?: string): SubCheckResult[] =>
    LIFECYCLE_IDS.map((id, i) => {
      const level = levelOf(id, spec.checks);
      if (first && i === firstOn)
        return checkResult(id, level, { outcome: 'failed', message: first, short: 'no session', step: 'lifecycle session' });
      return checkResult(id, level, { outcome: 'skipped', message: `not run: ${why}`, short: 'not run' });
    });
  if (!roundTripOk) return notRun(notRunCause);
  const openedAt = Date.now();
  const session = await httpSession(url, authorization, proc, spec.timeoutMs, { name: 'mcp-matrix-driver', version: '0.1.0' });
  const sessionMs = Date.now() - openedAt;
  if (typeof session === 'string') {
    details.lifecycle = { durationMs: sessionMs, sessionMs, checks: [] };
    return notRun('no session of their own', `the lifecycle checks' ${session}`);
  }
  const checks = await lifecycleChecks(session.wire, spec, details);
  // The session's opening is the checks' time too.
  details.lifecycle = { ...details.lifecycle!, durationMs: Date.now() - openedAt, sessionMs };
  return checks;
}
