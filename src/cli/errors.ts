// The CLI's errors by stable code, each mapped to one exit code at the boundary (cli.ts): a failure value
// a command returned, or anything thrown past it, becomes one of these with its cause kept.
import { didYouMean } from '../util/did-you-mean.js';
import { describeInfraError } from '../util/infra.js';
import type { Failure } from '../util/result.js';

export type ErrorCode = 'MM_USAGE' | 'MM_NOT_MEASURED' | 'MM_HARNESS';

export const EXIT_CODES: Readonly<Record<ErrorCode, 2 | 3>> = { MM_USAGE: 2, MM_NOT_MEASURED: 3, MM_HARNESS: 3 };

export class CliError extends Error {
  readonly code: ErrorCode;
  readonly details: readonly string[];
  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: readonly string[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.details = options.details ?? [];
  }
}

/** A command's failure value: usage (exit 2) or not measured (exit 3). */
export function failureError(failure: Failure): CliError {
  return new CliError(failure.kind === 'usage' ? 'MM_USAGE' : 'MM_NOT_MEASURED', failure.message, {
    ...(failure.details ? { details: failure.details } : {}),
  });
}

/** What was thrown past a command: cac's parse errors are usage; anything else escaped the harness itself (not measured). */
export function thrownError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (!(error instanceof Error) || error.name === 'CACError')
    return new CliError('MM_USAGE', `${error instanceof Error ? error.message : String(error)} (see --help)`, { cause: error });
  return new CliError('MM_HARNESS', `harness error: ${describeInfraError(error) ?? error.message}`, { cause: error });
}

/** cac's "Unknown option `--x`" as a usage error naming the command's own flags, or undefined for any other error. */
export function unknownOption(error: unknown, command: string, options: readonly { rawName: string }[]): CliError | undefined {
  const flag = error instanceof Error ? /^Unknown option `(.+)`$/.exec(error.message)?.[1] : undefined;
  if (flag === undefined) return undefined;
  const flags = options.flatMap((o) => o.rawName.split(/[\s,]+/).filter((w) => w.startsWith('--')));
  return new CliError('MM_USAGE', `${command} has no option ${flag}${didYouMean(flag, flags)} (mcp-matrix help ${command})`, {
    cause: error,
  });
}
