// The http phase's round trip (http.ts runs it last): a full SDK session with the right credentials,
// its steps and what each answered, named by the step that failed. Apart from the refusal checks because
// it is the one sub-check that goes through the adapter's client.

import type { HttpDetails } from '../../results/types.js';
import type { HttpSpec } from '../../contract/protocol.js';
import { isUnauthorized, type McpSession, type SdkAdapter } from '../client/adapter.js';
import { errorText, exitNote, RequestWindow, StepTimeout, withTimeout } from '../context.js';
import { stepLabel } from '../client/expectations.js';
import { failed, okCheck, type SubCheck } from './http-refusals.js';
import type { ServerProcess } from '../server/process.js';
import { runStep } from '../client/steps.js';
import { recordCompared } from '../../contract/compared.js';
import { defined } from '../../contract/fields.js';

/** The server under the round trip: it answered initialize; it died under the request in flight. */
export interface RoundTripServer {
  answered(): void;
  diedUnder(inFlight: RequestWindow): void;
  proc: ServerProcess;
}

/** What the round trip adds to the phase's details: all of it when it passed, what parity compares when it failed. */
export type RoundTripEvidence = Pick<HttpDetails, 'protocolVersion' | 'tools' | 'compared' | 'failedSteps' | 'call'>;

/** initialize, list tools, the first configured tool step, ping, session DELETE. */
export async function roundTripCheck(
  spec: HttpSpec,
  adapter: SdkAdapter,
  url: string,
  headers: Record<string, string>,
  server: RoundTripServer,
): Promise<{ outcome: 'ok' | 'failed'; check: SubCheck; evidence: RoundTripEvidence }> {
  const evidence: RoundTripEvidence = {};
  const session: McpSession = adapter.session(spec.timeoutMs + 1000);
  const bounded = <T>(p: Promise<T>, what: string): Promise<T> => withTimeout(p, spec.timeoutMs, what);
  let step = 'initialize';
  /** The request in flight: a server that dies under it leaves the client holding what it made for it. */
  const inFlight = new RequestWindow(step);
  const fail = (problem: string) => ({
    outcome: 'failed' as const,
    check: failed(`failed: ${problem}`, `failed at ${step}`, step),
    evidence,
  });
  try {
    try {
      await bounded(session.connect(adapter.httpTransport(url, headers)), 'initialize');
      server.answered();
    } catch (error) {
      if (isUnauthorized(error) && spec.auth !== 'none')
        return fail(`initialize: the right token was refused with 401: ${errorText(error)}`);
      throw error;
    }
    evidence.protocolVersion = session.protocolVersion();
    step = 'list tools';
    inFlight.begin(step);
    const tools = await bounded(session.list('tools'), 'tools/list');
    evidence.tools = tools?.length ?? 0;
    const call = spec.steps.find((x) => 'tool' in x);
    if (call) {
      step = stepLabel(call);
      inFlight.begin(step);
      const outcome = await runStep(session, call, bounded);
      // Parity compares a failed step's answer too (src/judge/split-steps.ts names the cells that answered otherwise).
      if (outcome.answer) recordCompared(evidence, outcome.step, outcome.answer);
      if (outcome.problem) {
        evidence.failedSteps = [{ item: outcome.step, step: outcome.step, ...defined({ unexpectedIsError: outcome.unexpectedIsError }) }];
        return fail(`${step}: ${outcome.problem}`);
      }
      evidence.call = { step: outcome.step, ms: outcome.ms };
    }
    step = 'ping';
    inFlight.begin(step);
    await bounded(session.ping(), 'ping');
    step = 'terminate session';
    inFlight.begin(step);
    await bounded(session.terminateSession(), 'session DELETE');
    return { outcome: 'ok', check: okCheck('ok'), evidence };
  } catch (error) {
    // A server that died under the request (it is stopped only after the round trip): name its exit, as stdio does.
    const { proc } = server;
    const exit = proc.exitInfo ?? (error instanceof StepTimeout ? null : await proc.waitExit(500));
    if (exit) server.diedUnder(inFlight);
    const crash = exitNote(exit);
    return fail(`${error instanceof StepTimeout ? '' : `${step}: `}${errorText(error)}${crash}`);
  } finally {
    await withTimeout(session.close(), 2000, 'client close').catch(() => {});
  }
}
