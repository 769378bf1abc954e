// Runs one configured Step through the adapter and checks it, for the stdio and http phases. A failure says what was
// sent and what came back; a tool step without `arguments` refused as invalid params is re-sent once with `{}`.

import { ClientCannotRead, type McpSession } from './adapter.js';
import { normaliseAnswer } from './answer.js';
import { checkPromptResult, checkResourceResult, checkToolResult, stepLabel } from './expectations.js';
import type { ClientSpec, Step } from '../../contract/protocol.js';

/** How a tool call's `arguments` went out: as configured, `{}` for a step without any, or left out. */
export type ArgumentsSent = 'configured' | 'empty' | 'omitted';

export interface StepOutcome {
  step: string;
  ms: number;
  /** Tool steps only. */
  arguments?: ArgumentsSent;
  /**
   * A call (or prompts/get) without `arguments` refused as invalid params was re-sent with `{}`: `accepted`
   * (the step still fails, naming the difference) or `refused` (the same refusal either way).
   */
  emptyRetry?: 'accepted' | 'refused';
  /**
   * Why the step failed: its expectation, or a JSON-RPC error answer; it ends with the request as sent
   * and the answer. A timeout or a lost connection (no answer at all) propagates as an error instead.
   */
  problem?: string;
  /** The answer as answer parity compares it across cells (src/driver/client/answer.ts), before any retry; a failed step's too. */
  answer?: Record<string, unknown>;
  /**
   * The step has no `expect` and failed only because the tool answered `isError: true`. Alone that is a failure;
   * where another cell answered the same call without it, the cells disagree and the config does not say which
   * is right (src/judge/split-steps.ts).
   */
  unexpectedIsError?: true;
}

type Bound = <T>(promise: Promise<T>, what: string) => Promise<T>;

const ANSWER_CHARS = 400;

/** What a tool step sends as `arguments` (undefined: no field). */
export function toolArguments(
  step: Extract<Step, { tool: string }>,
  noArguments: ClientSpec['noArguments'],
): { args: Record<string, unknown> | undefined; sent: ArgumentsSent } {
  if (step.arguments !== undefined) return { args: step.arguments, sent: 'configured' };
  return noArguments === 'omit' ? { args: undefined, sent: 'omitted' } : { args: {}, sent: 'empty' };
}

/** The request as it goes on the wire (method and params), in one line. */
export function describeRequest(step: Step, noArguments: ClientSpec['noArguments']): string {
  if ('tool' in step) {
    const { args, sent } = toolArguments(step, noArguments);
    const params = args === undefined ? { name: step.tool } : { name: step.tool, arguments: args };
    return `tools/call ${JSON.stringify(params)}${sent === 'omitted' ? ' (arguments omitted)' : sent === 'empty' ? ' (no arguments configured: sent {})' : ''}`;
  }
  if ('resource' in step) return `resources/read ${JSON.stringify({ uri: step.resource })}`;
  return `prompts/get ${JSON.stringify(step.arguments ? { name: step.prompt, arguments: step.arguments } : { name: step.prompt })}${step.arguments ? '' : ' (arguments omitted)'}`;
}

function bounded(text: string): string {
  return text.length > ANSWER_CHARS ? `${text.slice(0, ANSWER_CHARS)}…` : text;
}

/** -32000/-32001 (and 1.0.x's -1/-2) are v1's connection-closed and timeout, and v2's codes are strings: not answers. */
function rpcErrorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && ![-32000, -32001, -1, -2].includes(code) ? code : undefined;
}

export async function runStep(session: McpSession, step: Step, bound: Bound): Promise<StepOutcome> {
  const label = stepLabel(step);
  const started = Date.now();
  const outcome: StepOutcome = { step: label, ms: 0 };
  let answer: Record<string, unknown>;
  let problem: string | null;
  session.takeWireResult?.();
  try {
    if ('tool' in step) {
      const { args, sent } = toolArguments(step, session.noArguments);
      outcome.arguments = sent;
      answer = await bound(callTool(session, step, args), label);
      problem = checkToolResult(step, answer);
    } else if ('resource' in step) {
      answer = await bound(session.readResource(step.resource), label);
      problem = checkResourceResult(step, answer);
    } else {
      answer = await bound(session.getPrompt(step.prompt, step.arguments), label);
      problem = checkPromptResult(step, answer);
    }
  } catch (error) {
    if (error instanceof ClientCannotRead) {
      // The server answered, but with what the client (and the protocol it negotiated) cannot read.
      answer = error.answer as Record<string, unknown>;
      problem = error.message;
    } else {
      const code = rpcErrorCode(error);
      if (code === undefined) throw error;
      // The server answered with a JSON-RPC error: that is its answer to this request.
      answer = { error: { code, message: (error as Error).message } };
      problem = `answered with error ${code}: ${(error as Error).message}`;
    }
  }
  outcome.ms = Date.now() - started;
  outcome.answer = comparedAnswer(step, answer, session.takeWireResult?.());
  if (problem && 'tool' in step && outcome.arguments === 'omitted' && step.expect?.isError !== true && invalidParams(answer)) {
    // The spec makes `arguments` optional: a server that refuses the call without it but takes `{}` has a
    // difference a host that omits it (the SDK's own `callTool({ name })`) meets. Re-sent once to tell.
    const retry = await bound(callTool(session, step, {}), label).then(
      (a) => checkToolResult(step, a) === null,
      () => false,
    );
    outcome.emptyRetry = retry ? 'accepted' : 'refused';
    if (retry) problem = `rejects a call without \`arguments\`; accepts \`{}\`: ${problem}`;
  } else if (problem && 'prompt' in step && step.arguments === undefined && invalidParams(answer)) {
    // The same for a prompt: `arguments` is optional in prompts/get too, and the SDK's own client omits it.
    const retry = await bound(session.getPrompt(step.prompt, {}), label).then(
      (a) => checkPromptResult(step, a) === null,
      () => false,
    );
    outcome.emptyRetry = retry ? 'accepted' : 'refused';
    if (retry) problem = `rejects a prompts/get without \`arguments\`; accepts \`{}\`: ${problem}`;
  }
  if (problem && 'tool' in step && step.expect === undefined && outcome.emptyRetry === undefined && answer.isError === true)
    outcome.unexpectedIsError = true;
  if (problem) {
    const sent = describeRequest(step, session.noArguments);
    outcome.problem = `${problem} · sent ${sent} · answer ${bounded(JSON.stringify(answer) ?? 'undefined')}`;
  }
  return outcome;
}

/** What parity compares: the result as it came over the wire when there was one, else the JSON-RPC error's code. */
function comparedAnswer(step: Step, answer: Record<string, unknown>, wire: unknown): Record<string, unknown> {
  if (wire !== undefined) return normaliseAnswer(step, wire);
  const error = answer.error as { code?: unknown } | undefined;
  const code = typeof answer.jsonRpcError === 'number' ? answer.jsonRpcError : typeof error?.code === 'number' ? error.code : undefined;
  return normaliseAnswer(step, answer, code);
}

/** An invalid-params refusal: error -32602, or (SDK 1.x) an isError result whose text carries it. */
export function invalidParams(answer: Record<string, unknown>): boolean {
  const error = answer.error as { code?: unknown } | undefined;
  if (error?.code === -32602) return true;
  if (answer.isError !== true || !Array.isArray(answer.content)) return false;
  return answer.content.some(
    (c: unknown) => typeof (c as { text?: unknown }).text === 'string' && /-32602/.test((c as { text: string }).text),
  );
}

/**
 * A step that expects `isError` also accepts a JSON-RPC error (numeric code): v1 1.21+ answers an
 * unknown tool with an isError result, v2 with error -32602, and both mean the same to a user.
 */
async function callTool(
  session: McpSession,
  step: Extract<Step, { tool: string }>,
  args: Record<string, unknown> | undefined,
): Promise<Record<string, unknown>> {
  try {
    return await session.callTool(step.tool, args);
  } catch (error) {
    const code = rpcErrorCode(error);
    if (step.expect?.isError !== true || code === undefined) throw error;
    return { isError: true, content: [{ type: 'text', text: (error as Error).message }], jsonRpcError: code };
  }
}
