// The lifecycle checks of a call in flight, run last on a session: a second `initialize` must lose neither
// the call nor the session, and `notifications/cancelled` for the `slow` step must leave the server answering.
// Each wait made by design goes to `onWait`, so the check's waiting is told from overhead.

import type { LifecycleDetails } from '../../results/types.js';
import { recordCompared } from '../../contract/compared.js';
import { sleep } from '../context.js';
import { settledWithin } from '../timer-verdict.js';
import { stepLabel } from '../client/expectations.js';
import { callParams, CLIENT_INFO, gone, notReplayed, replayable, slowStep, toolSteps, waited, type OnWait, type Seen } from './steps.js';
import { describeAnswer, within, type Answer, type Wire } from './wire.js';
import type { Step } from '../../contract/protocol.js';
import { defined } from '../../contract/fields.js';

/** A call marked slow that answers sooner cannot be cancelled in flight: a config warning. */
export const SLOW_MS = 300;
/** How long a call known to be slow is given to be under way before a second initialize or a cancellation is sent. */
export const UNDER_WAY_MS = 50;
/** After a cancellation, how long past the uncancelled call's own time (and half of it again) a late answer or an exit is awaited. */
export const LATE_MARGIN_MS = 200;
/** After the late window, how long an exit is still watched for (an exit then is the cancellation's doing too). */
export const EXIT_WATCH_MS = 100;
const NO_WAITS: OnWait = () => {};

/**
 * How long, from its sending, a cancelled call's answer (or the server's exit) is awaited: the time the same
 * call took uncancelled (`repeated-initialize` measured it on this session) and half of it again, plus
 * LATE_MARGIN_MS; without that measurement, the step bound `t`.
 */
export function lateWaitMs(slowMs: number | undefined, t: number): number {
  return slowMs ? Math.min(t, Math.round(1.5 * slowMs) + LATE_MARGIN_MS) : t;
}

export async function repeatedInitialize(
  wire: Wire,
  t: number,
  steps: readonly Step[],
  details: LifecycleDetails,
  onWait: OnWait = NO_WAITS,
): Promise<Seen & { slowMs?: number }> {
  // A step marked sideEffects is never sent again: the slow one only if it is not marked, else the first that is not.
  const marked = slowStep(steps);
  const slow = marked?.sideEffects === true ? undefined : marked;
  const flying = slow ?? replayable(steps)[0];
  const label = flying ? `\`${stepLabel(flying)}\`` : undefined;
  const sentAt = Date.now();
  const call = flying ? wire.request('tools/call', callParams(flying)) : undefined;
  // A slow call is given a moment to be under way; a quick one is only queued before the second initialize.
  if (slow) await sleep(UNDER_WAY_MS);
  const init = await within(
    wire.request('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: CLIENT_INFO }).answer,
    t,
  );
  const behaviour = init.kind === 'result' ? 'accepts' : init.kind === 'error' ? 'errors' : init.kind === 'closed' ? 'closes' : 'no answer';
  recordCompared(details, 'repeated-initialize', { outcome: behaviour });
  const flown = call ? await within(call.answer, t) : undefined;
  const callMs = Date.now() - sentAt;
  // The call in flight takes its own time (the slow step: as long as the config made it); the check waits for it.
  if (flying && flown) onWait({ for: 'the call in flight, answered', ms: callMs });
  const problems: string[] = [];
  if (behaviour === 'closes') problems.push(`the server closed the session on it (${describeAnswer(init)})`);
  if (behaviour === 'no answer') problems.push(`it got no answer (${describeAnswer(init)})`);
  // Not lost is what is judged, never the answer's content: the step is sent again, and may not be idempotent
  // (a second create_entities finds them there). The slow step, sent for this check, must get a result.
  if (flying && flown) {
    if (flown.kind === 'none' || flown.kind === 'closed') problems.push(`the call in flight (${label}) was lost: ${describeAnswer(flown)}`);
    else if (flown.kind === 'error' && slow)
      problems.push(`the call in flight (${label}) got ${describeAnswer(flown)} instead of its answer`);
  }
  const ping = await within(wire.request('ping', {}).answer, t);
  if (ping.kind !== 'result') problems.push(`the session no longer answers: ping got ${describeAnswer(ping)}`);
  const none = toolSteps(steps).length === 0 ? 'no tool step' : notReplayed(steps);
  const what = `a second initialize${label ? ` while ${label} was in flight` : ` (${none}: no call in flight)`}: the server ${behaviour === 'no answer' ? 'did not answer it' : `${behaviour}${init.kind === 'error' ? ` (${describeAnswer(init)})` : ''}`}`;
  const evidence = { behaviour, ...(label ? { inFlight: stepLabel(flying!), inFlightMs: callMs } : {}) };
  const why = gone(ping) ?? gone(flown ?? ping) ?? gone(init);
  const slowMs = slow && flown?.kind === 'result' ? callMs : undefined;
  if (problems.length)
    return {
      outcome: 'failed',
      message: `${what}; ${problems.join('; ')}`,
      short: behaviour,
      step: 'repeated initialize',
      evidence,
      ...defined({ gone: why }),
      ...(slowMs ? { slowMs } : {}),
    };
  const flownText = label ? `; the call in flight was answered (${callMs} ms)` : '';
  return { outcome: 'passed', message: `${what}${flownText}; ping answered`, short: behaviour, evidence, ...(slowMs ? { slowMs } : {}) };
}

/** Why the server is gone, when it goes within `ms` (an exit read after a late timer counts); else undefined. */
function exitedWithin(wire: Wire, ms: number): Promise<string | undefined> {
  return settledWithin<string, undefined>(wire.gone, ms, () => undefined);
}

/**
 * The call's answer if it comes within `ms`, else `none`. Its timer is no verdict on the server but the moment to
 * send the cancellation: fired late (a stalled harness), it still sends it, as an unloaded run would have, rather
 * than take an answer read after it for a config mistake (settledWithin's second look is not wanted here).
 */
function underWayWait(answer: Promise<Answer>, ms: number): Promise<Answer> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'none', why: `no answer within ${ms} ms` }), ms);
    void answer.then((a) => {
      clearTimeout(timer);
      resolve(a);
    });
  });
}

export async function cancellation(
  wire: Wire,
  t: number,
  steps: readonly Step[],
  slowMs: number | undefined,
  onWait: OnWait = NO_WAITS,
): Promise<Seen> {
  const slow = slowStep(steps);
  if (!slow || slow.sideEffects === true) {
    const ended = await wire.end();
    const why = slow
      ? `n/a: the slow step \`${stepLabel(slow)}\` is marked \`sideEffects: true\` (not called again to be cancelled)`
      : 'n/a: no tool step is marked `slow: true` (the call to cancel)';
    return ended
      ? { outcome: 'failed', message: `the session did not close cleanly: ${ended}`, short: 'close failed', step: 'session close' }
      : { outcome: 'skipped', message: why, short: 'n/a' };
  }
  const label = `\`${stepLabel(slow)}\``;
  const sentAt = Date.now();
  const call = wire.request('tools/call', callParams(slow));
  // Known slow (measured uncancelled above): cancelled once under way, as the second initialize was sent.
  // Else it is given SLOW_MS to show that it is slow, which a call that answers sooner is not (a config warning).
  const underWay = slowMs !== undefined && slowMs >= SLOW_MS ? UNDER_WAY_MS : SLOW_MS;
  const early = await waited(onWait, 'the call to be under way', underWayWait(call.answer, underWay), underWay);
  if (early.kind !== 'none') {
    await wire.end();
    if (early.kind === 'closed')
      return {
        outcome: 'failed',
        message: `${label} (marked slow) was sent to be cancelled, and ${early.why}`,
        short: 'server gone',
        step: stepLabel(slow),
        gone: early.why,
      };
    return {
      outcome: 'not-measured',
      message: `config: ${label} is marked slow but answered in ${Date.now() - sentAt} ms, before notifications/cancelled could be sent; mark a call that takes ${SLOW_MS} ms or more (not judged)`,
      short: 'not slow',
    };
  }
  const step = `notifications/cancelled for ${stepLabel(slow)}`;
  const notified = await wire.notify('notifications/cancelled', { requestId: call.id, reason: 'mcp-matrix: cancellation check' });
  const ping = await within(wire.request('ping', {}).answer, t);
  // The window counts from the call's sending; what is left of it may be nothing (a loaded machine spent it).
  const lateMs = lateWaitMs(slowMs, t);
  const wait = Math.max(0, lateMs - (Date.now() - sentAt));
  const none = `no answer within ${lateMs} ms of its sending${wait > 0 ? '' : ' (the window had passed when the wait began)'}`;
  const late =
    ping.kind === 'result' ? await waited(onWait, 'a late answer to the cancelled call', within(call.answer, wait, none), wait) : undefined;
  // An exit is the finding whenever it came: before ping's answer, or after it.
  const why =
    gone(ping) ??
    (late && gone(late)) ??
    (await waited(onWait, 'an exit after the cancellation', exitedWithin(wire, EXIT_WATCH_MS), EXIT_WATCH_MS));
  const ended = await wire.end();
  if (why)
    return { outcome: 'failed', message: `after notifications/cancelled for ${label}, ${why}`, short: 'server gone', step, gone: why };
  if (notified)
    return {
      outcome: 'failed',
      message: `notifications/cancelled for ${label} could not be delivered (${notified}); the next request (ping) got ${describeAnswer(ping)}`,
      short: 'not delivered',
      step,
    };
  if (ping.kind !== 'result' || !late)
    return {
      outcome: 'failed',
      message: `after notifications/cancelled for ${label}, the next request (ping) got ${describeAnswer(ping)}`,
      short: 'no answer',
      step,
    };
  const cancelled = late.kind === 'result' || late.kind === 'error' ? 'answered' : 'dropped';
  const seen = cancelled === 'answered' ? `answered (${describeAnswer(late)})` : `dropped (${describeAnswer(late)})`;
  if (ended)
    return {
      outcome: 'failed',
      message: `after notifications/cancelled for ${label}, ping answered, but the session did not close cleanly: ${ended}`,
      short: 'close failed',
      step,
    };
  return {
    outcome: 'passed',
    message: `notifications/cancelled for ${label}: the cancelled call was ${seen}; the next request (ping) was answered and the session closed cleanly`,
    short: cancelled,
    evidence: { behaviour: cancelled },
  };
}
