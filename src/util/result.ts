// Failures travel as values: the CLI maps a failure kind to an exit code, nothing throws across layers.

export type FailureKind =
  /** Bad flags, bad config, a pin that does not exist: exit 2. */
  | 'usage'
  /** Registry unreachable, npm crashed: nothing was measured, exit 3. */
  | 'infrastructure';

export interface Failure {
  kind: FailureKind;
  /** One sentence naming the cause and what to do. */
  message: string;
  /** Extra lines, e.g. every config problem as `path: message`. */
  details?: string[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: Failure };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (kind: FailureKind, message: string, details?: string[]): { ok: false; error: Failure } => ({
  ok: false,
  error: details ? { kind, message, details } : { kind, message },
});

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
