// The stdio phase's sub-checks: `session` and the lifecycle edges run after it on the same session. The verdict is
// what they fold to (decidePhase), so an edge's failure fails the phase and a failed session leaves the edges unrun.

import type { PhaseResultOf, SubCheckResult } from '../../results/types.js';
import { byRevision, checkLine, checkResult, decidePhase, levelOf, notableChecks } from '../../contract/checks.js';
import type { CheckLevels } from '../../contract/protocol.js';
import { LIFECYCLE_IDS } from '../lifecycle/checks.js';

/** The session's result with every sub-check: its verdict, message and step now come from them. */
export function withStdioChecks(
  session: PhaseResultOf<'stdio'>,
  lifecycle: SubCheckResult[] | undefined,
  levels: CheckLevels,
): PhaseResultOf<'stdio'> {
  const what = `the session ${session.verdict === 'failed' ? 'failed' : 'was not measured'}${session.step ? ` at ${session.step}` : ''}`;
  // A session result without a message still names its cause: what happened and where, never a bare verdict.
  const cause = session.message || `${what} (the driver recorded no message)`;
  const own = checkResult(
    'session',
    levelOf('session', levels),
    session.verdict === 'passed'
      ? { outcome: 'passed', message: 'initialize, the lists, every step and ping answered; stdout carried only JSON-RPC' }
      : { outcome: session.verdict, message: cause, ...(session.step ? { step: session.step } : {}) },
  );
  const why = session.verdict === 'passed' ? 'not run' : `not run: ${what}`;
  // Judged by the revision the session negotiated (each edge cites that revision's text).
  const negotiated = session.details?.protocolVersion;
  const edges = (
    lifecycle ?? LIFECYCLE_IDS.map((id) => checkResult(id, levelOf(id, levels), { outcome: 'skipped', message: why, short: 'not run' }))
  ).map((c) => byRevision(c, typeof negotiated === 'string' ? negotiated : undefined));
  const checks = [own, ...edges];
  const verdict = decidePhase(checks);
  const decisive = notableChecks(edges).filter((c) => c.level === 'require');
  const failed = decisive.find((c) => c.outcome === 'failed') ?? decisive[0];
  const { message: _m, step: _s, ...rest } = session;
  const message = [...(own.outcome === 'passed' || own.level === 'off' ? [] : [cause]), ...decisive.map(checkLine)].filter(Boolean);
  const step = own.outcome !== 'passed' && own.level !== 'off' ? session.step : failed?.step;
  return {
    ...rest,
    verdict,
    ...(message.length && verdict !== 'passed' ? { message: message.join('; ') } : {}),
    ...(step && verdict !== 'passed' ? { step } : {}),
    checks,
  };
}
