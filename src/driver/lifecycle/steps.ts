// What the lifecycle checks share (checks.ts and in-flight.ts): a check's finding,
// the configured tool steps and the call each makes, whether an answer says the server is gone, and the
// waits a check makes by design (recorded, so the bench can tell a check's waiting from overhead).

import type { LifecycleWait } from '../../results/types.js';
import type { CheckFinding } from '../../contract/checks.js';
import type { Answer } from './wire.js';
import type { Step } from '../../contract/protocol.js';

export const CLIENT_INFO = { name: 'mcp-matrix-driver', version: '0.1.0' };

export type ToolStep = Extract<Step, { tool: string }>;

/** A check's finding, and whether the server is gone after it (the later checks are then not run). */
export interface Seen extends CheckFinding {
  gone?: string;
}

export const toolSteps = (steps: readonly Step[]): ToolStep[] => steps.filter((s): s is ToolStep => 'tool' in s);
export const slowStep = (steps: readonly Step[]): ToolStep | undefined => toolSteps(steps).find((s) => s.slow === true);
/** The tool steps a lifecycle check may call again: not those marked `sideEffects` (the config says a call changes state). */
export const replayable = (steps: readonly Step[]): ToolStep[] => toolSteps(steps).filter((s) => s.sideEffects !== true);
/** Why a marked step is not called again, for a check's message: `` `tools/call send` is marked `sideEffects: true` ``. */
export function notReplayed(steps: readonly Step[]): string | undefined {
  const marked = [
    ...new Set(
      toolSteps(steps)
        .filter((s) => s.sideEffects === true)
        .map((s) => `\`tools/call ${s.tool}\``),
    ),
  ];
  if (marked.length === 0) return undefined;
  return `${marked.join(', ')} ${marked.length > 1 ? 'are' : 'is'} marked \`sideEffects: true\` (not called again)`;
}
export const callParams = (s: ToolStep) => ({ name: s.tool, arguments: s.arguments ?? {} });
export const gone = (a: Answer): string | undefined => (a.kind === 'closed' ? a.why : undefined);

/** A wait a check makes by design: `ms` as it lasted; `deadlineMs` when it waits for nothing to come (it runs out then). */
export type Wait = LifecycleWait;
export type OnWait = (wait: Wait) => void;

/** `p`, a wait for nothing to come up to `deadlineMs`, with the time spent on it reported to `onWait`. */
export async function waited<T>(onWait: OnWait, what: string, p: Promise<T>, deadlineMs: number): Promise<T> {
  const from = Date.now();
  const value = await p;
  onWait({ for: what, ms: Date.now() - from, deadlineMs });
  return value;
}
