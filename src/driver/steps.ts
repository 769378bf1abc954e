// Runs one configured Step through the adapter and checks it: shared by the stdio and http phases.

import type { McpSession } from './adapter.js';
import { checkPromptResult, checkResourceResult, checkToolResult, stepLabel } from './expectations.js';
import type { Step } from './protocol.js';

export interface StepOutcome {
  step: string;
  ms: number;
  /** Why the step failed its expectation; a thrown error (timeout, protocol error) propagates instead. */
  problem?: string;
}

type Bound = <T>(promise: Promise<T>, what: string) => Promise<T>;

export async function runStep(session: McpSession, step: Step, bounded: Bound): Promise<StepOutcome> {
  const label = stepLabel(step);
  const started = Date.now();
  let problem: string | null;
  if ('tool' in step) {
    problem = checkToolResult(step, await bounded(callTool(session, step), label));
  } else if ('resource' in step) {
    problem = checkResourceResult(step, await bounded(session.readResource(step.resource), label));
  } else {
    problem = checkPromptResult(step, await bounded(session.getPrompt(step.prompt, step.arguments), label));
  }
  const outcome: StepOutcome = { step: label, ms: Date.now() - started };
  if (problem) outcome.problem = problem;
  return outcome;
}

/**
 * A step that expects `isError` also accepts a JSON-RPC error (numeric code): v1 1.21+ answers an
 * unknown tool with an isError result, v2 with error -32602, and both mean the same to a user.
 */
async function callTool(session: McpSession, step: Extract<Step, { tool: string }>): Promise<Record<string, unknown>> {
  try {
    return await session.callTool(step.tool, step.arguments);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    // -32000/-32001 (and 1.0.x's -1/-2) are v1's connection-closed and timeout, not answers.
    if (step.expect?.isError !== true || typeof code !== 'number' || [-32000, -32001, -1, -2].includes(code)) throw error;
    return { isError: true, content: [{ type: 'text', text: (error as Error).message }], jsonRpcError: code };
  }
}
