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

/**
 * Every problem at once (a plan's cells, its axes, a Node axis): none is undefined, one is itself, more are
 * one failure under `heading` listing each, infrastructure when any of them is.
 */
export function allProblems(problems: readonly Failure[], heading: string): { ok: false; error: Failure } | undefined {
  if (problems.length === 0) return undefined;
  if (problems.length === 1) return { ok: false, error: problems[0]! };
  return fail(
    problems.some((p) => p.kind === 'infrastructure') ? 'infrastructure' : 'usage',
    heading,
    problems.map((p) => p.message),
  );
}
