// What the lifecycle checks' raw JSON-RPC wire (wire.ts) hands back: an answer that never rejects
// (a result, an error, nothing, or the server gone), and why a server is gone, its exit preferred over a
// broken pipe that only says the same later and less clearly.
import type { ServerProcess } from '../server/process.js';
import { settledWithin } from '../timer-verdict.js';

export type Answer =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; code?: number; message: string }
  /** No answer will come: the server's stream ended without one, or a wait ran out (`why` says which). */
  | { kind: 'none'; why: string }
  /** The server is gone: it exited, or (HTTP) the session is unknown to it. */
  | { kind: 'closed'; why: string };

export interface Call {
  id: string;
  answer: Promise<Answer>;
}

export interface Wire {
  request(method: string, params?: Record<string, unknown>): Call;
  /** Null when delivered; else why not. */
  notify(method: string, params?: Record<string, unknown>): Promise<string | null>;
  /** Resolves, with why, once the server is gone. */
  gone: Promise<string>;
  /** Ends the session (HTTP: DELETE, whose refusal is returned), abandoning every call still open. */
  end(): Promise<string | null>;
}

/**
 * `call`'s answer, or `none` once `ms` ran out (`why` says so; the bound shown is never negative). An answer
 * already read when the timer fires late (the harness was descheduled) still wins: settledWithin.
 */
export function within(answer: Promise<Answer>, ms: number, why = `no answer within ${Math.max(0, ms)} ms`): Promise<Answer> {
  return settledWithin(answer, ms, (): Answer => ({ kind: 'none', why }));
}

export const ID_PREFIX = 'mcp-matrix-lifecycle-';
/** How long a failed write waits for the server's exit, which names the cause better than EPIPE. */
const WRITE_GRACE_MS = 1000;

/** The JSON-RPC response as an Answer. */
export function answerOf(message: Record<string, unknown>): Answer {
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (error && typeof error === 'object')
    return { kind: 'error', ...(typeof error.code === 'number' ? { code: error.code } : {}), message: String(error.message ?? '') };
  return { kind: 'result', result: (message.result ?? {}) as Record<string, unknown> };
}

export function goneWhy(proc: ServerProcess): Promise<string> {
  return proc.closed.then((e) => `the server exited (${e.signal ? `signal ${e.signal}` : `code ${e.code}`})`);
}

/** A write that failed: the server's exit when it comes within the grace (the true cause), else the write error. */
export function writeFailed(gone: Promise<string>, e: unknown): Promise<string> {
  const problem = `could not write to its stdin: ${e instanceof Error ? e.message : String(e)}`;
  return settledWithin(gone, WRITE_GRACE_MS, () => problem, true);
}
