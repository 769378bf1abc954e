// The lifecycle edges, run by the stdio and http phases on a live session after its steps, over raw JSON-RPC
// (wire.ts): unknown method and tool, invalid arguments, then the in-flight pair (in-flight.ts). Each is a
// sub-check; a server's choice where the spec allows one is recorded and handed to the run's parity.

import type { LifecycleDetails, LifecycleTimes, SubCheckResult } from '../../results/types.js';

export type { LifecycleTimes };
import { checkResult, levelOf } from '../../contract/checks.js';
import { recordCompared } from '../../contract/compared.js';
import { defined } from '../../contract/fields.js';
import { cancellation, repeatedInitialize } from './in-flight.js';
import { gone, notReplayed, replayable, toolSteps, type OnWait, type Seen, type Wait } from './steps.js';
import { describeAnswer, within, type Answer, type Wire } from './wire.js';
import type { CheckLevels, Step } from '../../contract/protocol.js';

export const LIFECYCLE_IDS = ['unknown-method', 'unknown-tool', 'invalid-arguments', 'repeated-initialize', 'cancellation'] as const;
export type LifecycleId = (typeof LIFECYCLE_IDS)[number];

export const UNKNOWN_METHOD = 'mcp-matrix/no-such-method';
export const UNKNOWN_TOOL = 'mcp-matrix-no-such-tool';

export interface LifecycleSpec {
  steps: Step[];
  timeoutMs: number;
  checks: CheckLevels;
}

/** An answer to a tool call that must not succeed: `error` or `isError`, else null (a success, or none). */
export function errorShape(a: Answer): { answer: 'error'; code?: number } | { answer: 'isError' } | null {
  if (a.kind === 'error') return { answer: 'error', ...defined({ code: a.code }) };
  if (a.kind === 'result' && a.result.isError === true) return { answer: 'isError' };
  return null;
}

const shapeText = (s: NonNullable<ReturnType<typeof errorShape>>): string =>
  s.answer === 'isError' ? 'an isError result' : `the error ${s.answer === 'error' && s.code !== undefined ? s.code : '(no code)'}`;

/** Runs every lifecycle check in order on one session; `details` gets what parity compares. */
export async function lifecycleChecks(wire: Wire, spec: LifecycleSpec, details: LifecycleDetails): Promise<SubCheckResult[]> {
  const t = spec.timeoutMs;
  const startedAt = Date.now();
  const times: LifecycleTimes['checks'] = [];
  let goneWhy: { why: string; during: string } | undefined;
  let slowMs: number | undefined;
  let ended = false;
  const runs: Record<LifecycleId, (onWait: OnWait) => Promise<Seen>> = {
    'unknown-method': () => unknownMethod(wire, t),
    'unknown-tool': () => unknownTool(wire, t, details),
    'invalid-arguments': () => invalidArguments(wire, t, spec.steps, details),
    'repeated-initialize': async (onWait) => {
      const r = await repeatedInitialize(wire, t, spec.steps, details, onWait);
      slowMs = r.slowMs;
      return r;
    },
    cancellation: async (onWait) => {
      ended = true;
      return cancellation(wire, t, spec.steps, slowMs, onWait);
    },
  };
  const out: SubCheckResult[] = [];
  for (const id of LIFECYCLE_IDS) {
    const level = levelOf(id, spec.checks);
    if (level === 'off') {
      out.push(checkResult(id, level, { outcome: 'skipped', message: '' }));
      continue;
    }
    if (goneWhy) {
      out.push(
        checkResult(id, level, { outcome: 'skipped', message: `not run: ${goneWhy.why} during ${goneWhy.during}`, short: 'not run' }),
      );
      continue;
    }
    const from = Date.now();
    const waits: Wait[] = [];
    const { gone: why, ...finding } = await runs[id]((w) => waits.push(w));
    times.push({ id, durationMs: Date.now() - from, ...(waits.length ? { waits } : {}) });
    if (why) goneWhy = { why, during: id };
    // A slow step that answered at once is the config's mistake: shown as a warning, never the server's failure.
    out.push(
      finding.outcome === 'not-measured' && finding.message.startsWith('config:')
        ? checkResult(id, 'warn', finding)
        : checkResult(id, level, finding),
    );
  }
  if (!ended) await wire.end();
  details.lifecycle = { durationMs: Date.now() - startedAt, checks: times };
  return out;
}

async function unknownMethod(wire: Wire, t: number): Promise<Seen> {
  const a = await within(wire.request(UNKNOWN_METHOD, {}).answer, t);
  const step = UNKNOWN_METHOD;
  if (a.kind === 'error' && a.code === -32601) return { outcome: 'passed', message: `\`${UNKNOWN_METHOD}\` got -32601`, short: '-32601' };
  const short = a.kind === 'error' ? `${a.code ?? 'no code'} (want -32601)` : a.kind === 'result' ? 'a result (want -32601)' : 'no answer';
  return {
    outcome: 'failed',
    message: `a request for the unknown method \`${UNKNOWN_METHOD}\` got ${describeAnswer(a)} (want the error -32601, Method not found)`,
    short,
    step,
    ...defined({ gone: gone(a) }),
  };
}

async function unknownTool(wire: Wire, t: number, details: LifecycleDetails): Promise<Seen> {
  const a = await within(wire.request('tools/call', { name: UNKNOWN_TOOL, arguments: {} }).answer, t);
  const shape = errorShape(a);
  if (shape) {
    recordCompared(details, 'unknown-tool', shape);
    const text = shapeText(shape);
    return {
      outcome: 'passed',
      message: `a call to the unknown tool \`${UNKNOWN_TOOL}\` got ${text}`,
      short: shape.answer,
      evidence: { behaviour: shape.answer, ...shape },
    };
  }
  return {
    outcome: 'failed',
    message: `a call to the unknown tool \`${UNKNOWN_TOOL}\` got ${a.kind === 'result' ? 'a success result' : describeAnswer(a)} (want an error or an isError result)`,
    short: a.kind === 'result' ? 'success' : 'no answer',
    step: `tools/call ${UNKNOWN_TOOL}`,
    ...defined({ gone: gone(a) }),
  };
}

const WRONG: Record<string, unknown> = {
  string: 12345,
  number: 'not a number',
  integer: 'not an integer',
  boolean: 'not a boolean',
  array: 'not an array',
  object: 'not an object',
};

/** Arguments `schema` refuses, made from a configured call's own: one required key left out, else one typed key of the wrong type. */
export function invalidArgumentsFor(schema: unknown, base: Record<string, unknown>): { args: Record<string, unknown>; why: string } | null {
  const s = (schema ?? {}) as { required?: unknown; properties?: unknown };
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === 'string') : [];
  if (required.length > 0) {
    const key = required[0]!;
    const { [key]: _left, ...rest } = base;
    return { args: rest, why: `without the required \`${key}\`` };
  }
  const props = s.properties && typeof s.properties === 'object' ? (s.properties as Record<string, { type?: unknown }>) : {};
  for (const [key, p] of Object.entries(props)) {
    const type = typeof p?.type === 'string' ? p.type : undefined;
    if (type && type in WRONG)
      return { args: { ...base, [key]: WRONG[type] }, why: `\`${key}\` is ${JSON.stringify(WRONG[type])}, not a ${type}` };
  }
  return null;
}

async function listTools(wire: Wire, t: number): Promise<Record<string, unknown>[] | Answer> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const a = await within(wire.request('tools/list', cursor ? { cursor } : {}).answer, t);
    if (a.kind !== 'result') return a;
    tools.push(...((a.result.tools as Record<string, unknown>[] | undefined) ?? []));
    cursor = typeof a.result.nextCursor === 'string' ? a.result.nextCursor : undefined;
    if (!cursor) break;
  }
  return tools;
}

async function invalidArguments(wire: Wire, t: number, steps: readonly Step[], details: LifecycleDetails): Promise<Seen> {
  if (toolSteps(steps).length === 0)
    return { outcome: 'skipped', message: 'n/a: no tool step in the config (the check calls only tools the config calls)', short: 'n/a' };
  const configured = replayable(steps);
  const marked = notReplayed(steps);
  if (configured.length === 0) return { outcome: 'skipped', message: `n/a: every configured tool step: ${marked}`, short: 'n/a' };
  const tools = await listTools(wire, t);
  if (!Array.isArray(tools))
    return {
      outcome: 'failed',
      message: `tools/list got ${describeAnswer(tools)}`,
      short: 'tools/list failed',
      step: 'tools/list',
      ...defined({ gone: gone(tools) }),
    };
  for (const s of configured) {
    const tool = tools.find((x) => x.name === s.tool);
    const bad = tool && invalidArgumentsFor(tool.inputSchema, s.arguments ?? {});
    if (!bad) continue;
    const sent = `\`tools/call ${s.tool}\` with ${JSON.stringify(bad.args)} (${bad.why})`;
    const a = await within(wire.request('tools/call', { name: s.tool, arguments: bad.args }).answer, t);
    const shape = errorShape(a);
    if (shape) {
      recordCompared(details, 'invalid-arguments', shape);
      return {
        outcome: 'passed',
        message: `${sent} got ${shapeText(shape)}`,
        short: shape.answer,
        evidence: { behaviour: shape.answer, ...shape, tool: s.tool },
      };
    }
    const text = a.kind === 'result' ? `a success result: ${JSON.stringify(a.result).slice(0, 200)}` : describeAnswer(a);
    return {
      outcome: 'failed',
      message: `${sent} got ${text} (want an error or an isError result: the arguments do not match its inputSchema)`,
      short: a.kind === 'result' ? 'success' : 'no answer',
      step: `tools/call ${s.tool}`,
      ...defined({ gone: gone(a) }),
    };
  }
  const names = [...new Set(configured.map((s) => s.tool))].join(', ');
  return {
    outcome: 'skipped',
    message: `n/a: no configured tool (${names}) declares a required or typed argument${marked ? `; ${marked}` : ''}`,
    short: 'n/a',
  };
}
