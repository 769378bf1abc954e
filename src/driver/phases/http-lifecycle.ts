// The http phase's lifecycle edges (lifecycle-checks.ts) on a session of their own, opened with the
// phase's credentials after the round trip; not run when the round trip failed (its failure is the cause).

import type { SubCheckResult } from '../../results/types.js';
import { checkResult, levelOf } from '../checks.js';
import { LIFECYCLE_IDS, lifecycleChecks, type LifecycleSpec } from '../lifecycle-checks.js';
import { httpSession } from '../lifecycle-wire.js';
import type { ServerProcess } from '../server-process.js';

export async function httpLifecycle(
  spec: LifecycleSpec,
  url: string,
  authorization: string | undefined,
  proc: ServerProcess,
  roundTripOk: boolean,
  details: Record<string, unknown>,
): Promise<SubCheckResult[]> {
  const notRun = (why: string, first?: string): SubCheckResult[] =>
    LIFECYCLE_IDS.map((id, i) => {
      const level = levelOf(id, spec.checks, 'none');
      if (first && i === 0)
        return checkResult(id, level, { outcome: 'failed', message: first, short: 'no session', step: 'lifecycle session' });
      return checkResult(id, level, { outcome: 'skipped', message: `not run: ${why}`, short: 'not run' });
    });
  if (!roundTripOk) return notRun('the round trip failed');
  const session = await httpSession(url, authorization, proc, spec.timeoutMs, { name: 'mcp-matrix-driver', version: '0.1.0' });
  if (typeof session === 'string') return notRun('no session of their own', `the lifecycle checks' ${session}`);
  return lifecycleChecks(session.wire, spec, details);
}
