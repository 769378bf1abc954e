// Did the server start at all? A bin that cannot run, or a crash while loading, exits non-zero too: that is
// "could not start", never a refusal. Evidence is an error nobody handled (the probe's crash record, else
// Node's uncaught-error report in stderr); a logged error is not evidence.

import { existsSync, readFileSync } from 'node:fs';

export interface StartFailure {
  /** `could-not-start`: it never reached its own code; `crashed`: a programming error, not a deliberate exit. */
  kind: 'could-not-start' | 'crashed';
  /** One line: the error as the runtime gave it. */
  cause: string;
  /** Where the evidence came from. */
  source: 'probe' | 'stderr' | 'exit code';
}

/** Node's errors for code that cannot be loaded, before any of it runs. */
const LOAD_CODES = new Set([
  'ERR_MODULE_NOT_FOUND',
  'MODULE_NOT_FOUND',
  'ERR_UNSUPPORTED_DIR_IMPORT',
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_REQUIRE_ESM',
  'ERR_PACKAGE_PATH_NOT_EXPORTED',
  'ERR_PACKAGE_IMPORT_NOT_DEFINED',
  'ERR_INVALID_PACKAGE_CONFIG',
  'ERR_INVALID_PACKAGE_TARGET',
  'ERR_UNSUPPORTED_ESM_URL_SCHEME',
  'ERR_IMPORT_ATTRIBUTE_MISSING',
  'ERR_IMPORT_ASSERTION_TYPE_MISSING',
]);

/** Programming errors: nobody refuses a bind by reading a property of undefined. */
const CRASH_NAMES = new Set(['TypeError', 'ReferenceError']);

/** The last line of Node's report of an uncaught error (Node >= 18); a logged error has none. */
const FATAL_TRAILER = /^Node\.js v\d+\.\d+\.\d+\s*$/;
/** An error's first line in that report: `Error [ERR_X]: …`, `SyntaxError: …`, at column 0. */
const ERROR_HEADER = /^(\w*Error)(?: \[(\w+)\])?: .+$/;

/** The uncaught error Node reported last in `stderr`: its name, code and first line; none without the report's trailer. */
export function fatalReport(stderr: string): { name: string; code?: string; line: string } | undefined {
  const lines = stderr.split('\n');
  let end = lines.length - 1;
  while (end >= 0 && !FATAL_TRAILER.test(lines[end]!)) end--;
  let start = end - 1;
  while (start >= 0 && !ERROR_HEADER.test(lines[start]!)) start--;
  if (end < 0 || start < 0) return undefined;
  const line = lines[start]!.trim();
  const [, name, bracketed] = ERROR_HEADER.exec(line)!;
  // CommonJS prints the code below the stack (`code: 'MODULE_NOT_FOUND'`), not in the first line.
  const code = bracketed ?? /^\s*code: '(\w+)'/m.exec(lines.slice(start, end).join('\n'))?.[1];
  return { name: name!, ...(code ? { code } : {}), line };
}

/**
 * The start failure behind a non-zero exit, if the evidence shows one. `records` are the probe's
 * (any process of the group), `stderr` the server's captured tail, `viaNode` whether the harness ran
 * the bin with Node (then 126/127 are ordinary exit codes, not the shell's "cannot execute").
 */
export function startFailure(
  records: Record<string, unknown>[],
  stderr: string,
  exitCode: number | null,
  viaNode: boolean,
): StartFailure | undefined {
  for (const r of records) {
    // One the server's own handler took did not end it (the probe re-records it if the handler exited at once).
    if (r.type !== 'crash' || r.handled === true) continue;
    const name = typeof r.name === 'string' ? r.name : 'Error';
    const code = typeof r.code === 'string' ? r.code : undefined;
    const message = typeof r.message === 'string' ? r.message : '';
    const cause = `${name}${code ? ` [${code}]` : ''}: ${message}`;
    if ((code && LOAD_CODES.has(code)) || name === 'SyntaxError') return { kind: 'could-not-start', cause, source: 'probe' };
    if (CRASH_NAMES.has(name)) return { kind: 'crashed', cause, source: 'probe' };
  }
  const fatal = fatalReport(stderr);
  if (fatal && ((fatal.code && LOAD_CODES.has(fatal.code)) || fatal.name === 'SyntaxError')) {
    const cause = fatal.code && !fatal.line.includes(fatal.code) ? `${fatal.line} (${fatal.code})` : fatal.line;
    return { kind: 'could-not-start', cause, source: 'stderr' };
  }
  if (!viaNode && (exitCode === 126 || exitCode === 127)) {
    const last = stderr.trim().split('\n').pop()?.trim();
    const meaning = exitCode === 127 ? 'a command it runs was not found' : 'a command it runs is not executable';
    return { kind: 'could-not-start', cause: `exit code ${exitCode} (${meaning})${last ? `: ${last}` : ''}`, source: 'exit code' };
  }
  return undefined;
}

/** The interpreter a `#!` line names (`/usr/bin/env` resolves later, so it is not the one to blame). */
function shebangOf(bin: string): string | undefined {
  try {
    const first = readFileSync(bin, 'utf8').slice(0, 256).split('\n')[0] ?? '';
    return first.startsWith('#!') ? first.slice(2).trim() : undefined;
  } catch {
    return undefined;
  }
}

export interface SpawnFailure {
  /** `failed`: the package's bin cannot be executed; `not-measured`: the machine could not start a process. */
  verdict: 'failed' | 'not-measured';
  cause: string;
}

/** Why `spawn` itself failed, in the package's terms when the package is to blame. */
export function spawnFailure(error: NodeJS.ErrnoException, bin: string, shown: string): SpawnFailure {
  const code = error.code ?? 'error';
  const interpreter = shebangOf(bin);
  const program = interpreter?.split(/\s+/)[0];
  if (code === 'ENOENT') {
    if (!existsSync(bin)) return { verdict: 'failed', cause: `${shown} does not exist (spawn ENOENT)` };
    if (program && !existsSync(program)) {
      return { verdict: 'failed', cause: `the interpreter its #! line names, ${program}, does not exist (spawn ENOENT)` };
    }
    return { verdict: 'failed', cause: `${shown} could not be executed (spawn ENOENT)` };
  }
  if (code === 'EACCES') return { verdict: 'failed', cause: `${shown} (or its interpreter) is not executable (spawn EACCES)` };
  if (code === 'ENOEXEC') return { verdict: 'failed', cause: `${shown} is not an executable format and has no #! line (spawn ENOEXEC)` };
  return { verdict: 'not-measured', cause: `the machine could not start a process (spawn ${code}: ${error.message})` };
}

/**
 * EADDRINUSE on `port`, from the probe's crash record or stderr: the harness picked a free port, yet
 * another process held it by the time the server listened (a race, not the server's behaviour).
 */
export function portInUse(records: Record<string, unknown>[], stderr: string, port: number): string | undefined {
  const mentions = (text: string): boolean => text.includes('EADDRINUSE') && new RegExp(`:${port}\\b`).test(text);
  for (const r of records) {
    if (r.type === 'crash' && typeof r.message === 'string' && mentions(r.message)) {
      return r.message;
    }
  }
  return stderr.split('\n').find(mentions)?.trim();
}
