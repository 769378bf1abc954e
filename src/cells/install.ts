// npm install into a cell, retrying only network-type failures; attempts are evidence. A failure is
// classified by its cause (npm's structured --json error, npm's debug log, the free space left),
// not by npm's last words: a full disk often surfaces as EJSONPARSE on a truncated package.json.
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';
import { freeBytes, infraCause, LOW_SPACE_BYTES, machineCodeIn, megabytes, npmJsonError } from '../util/infra.js';

export { npmJsonError };

export type InstallOutcome =
  | { kind: 'installed'; attempts: number; durationMs: number }
  /** Deterministic: no such version, unresolvable peers, integrity. Never retried; a verdict. */
  | { kind: 'failed'; attempts: number; durationMs: number; code: string; message: string }
  /**
   * Infrastructure, not a verdict: network-type failures until attempts ran out, or the machine
   * (disk full, no file descriptors, no permission); `cause` then names it in one sentence.
   */
  | { kind: 'not-measured'; attempts: number; durationMs: number; code: string; message: string; cause?: string };

const NETWORK_CODES =
  /^(ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|EPIPE|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNABORTED|E5\d\d|E429|E408|FETCH_ERROR)$/;

export function classifyNpmError(stderr: string, stdout = ''): { code: string; network: boolean; message: string } {
  const code =
    npmJsonError(stdout)?.code ??
    /npm (?:error|ERR!) code (\S+)/.exec(stderr)?.[1] ??
    /\b(E[A-Z0-9_]{3,})\b/.exec(stderr.replace(/^npm warn.*$/gm, ''))?.[1] ??
    'UNKNOWN';
  const errno = /npm (?:error|ERR!) errno (\S+)/.exec(stderr)?.[1];
  const network =
    NETWORK_CODES.test(code) ||
    (errno !== undefined && NETWORK_CODES.test(errno)) ||
    (/network|socket hang up|timed out/i.test(stderr) && code === 'UNKNOWN');
  const lines = stderr
    .split('\n')
    .filter((l) => !/^npm warn/i.test(l))
    .map((l) => l.replace(/^npm (?:error|ERR!) ?/, '').trim())
    .filter((l) => l && !/^(code|errno|syscall|path|A complete log|Log files were not written|at \S+ \(|$)/.test(l));
  // ERESOLVE: the conflicting requirement comes after "Could not resolve dependency:", past the first lines; name it first.
  const conflict = lines.findIndex((l) => /^Could not resolve dependency:?$/.test(l));
  if (conflict >= 0 && lines[conflict + 1]) lines.splice(1, 0, `${lines[conflict + 1]} conflicts with what the cell pins`);
  return { code, network, message: lines.slice(0, 6).join(' · ') || `npm failed (${code})` };
}

export interface InstallOptions {
  attempts: number;
  timeoutMs: number;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Backoff base; tests shorten it. */
  backoffMs?: number;
}

export async function installCell(cellDir: string, options: InstallOptions): Promise<InstallOutcome> {
  const started = performance.now();
  let last = { code: 'UNKNOWN', message: '' };
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    // --loglevel=warn: tar's ENOSPC reaches us only as TAR_ENTRY_ERROR warnings, even when npm exits 0.
    const out = await run('npm', ['install', '--json', '--no-audit', '--no-fund', '--prefer-offline', '--no-progress', '--loglevel=warn'], {
      cwd: cellDir,
      env: options.env,
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const durationMs = Math.round(performance.now() - started);
    if (out.cancelled) return { kind: 'not-measured', attempts: attempt, durationMs, code: 'ABORTED', message: 'install interrupted' };
    if (out.ok) {
      const machine = machineCodeIn(out.stderr);
      if (!machine) return { kind: 'installed', attempts: attempt, durationMs };
      const cause = `${infraCause(machine)} (${machine}, in npm's warnings while it installed into ${cellDir}): the install is incomplete`;
      return { kind: 'not-measured', attempts: attempt, durationMs, code: machine, message: firstLines(out.stderr), cause };
    }
    const c = out.timedOut
      ? { code: 'ETIMEDOUT', network: true, message: `npm install did not finish within ${options.timeoutMs} ms` }
      : classifyNpmError(out.stderr || out.error || '', out.stdout);
    last = c;
    if (!c.network) {
      const cause = await machineCause(c.code, out.stderr, out.stdout, cellDir);
      if (cause) return { kind: 'not-measured', attempts: attempt, durationMs, code: c.code, message: c.message, cause };
      return { kind: 'failed', attempts: attempt, durationMs, code: c.code, message: c.message };
    }
    if (attempt < options.attempts) await sleep((options.backoffMs ?? 1_000) * 2 ** (attempt - 1), options.signal);
  }
  return { kind: 'not-measured', attempts: options.attempts, durationMs: Math.round(performance.now() - started), ...last };
}

/**
 * Why a non-network npm failure is the machine's, or undefined when it may be the package's: npm's
 * own code (ENOSPC, EMFILE, EACCES/EPERM on a path npm was writing …), a machine-only code anywhere
 * in npm's output or its debug log, or too little free space left where the cell lives.
 */
export async function machineCause(code: string, stderr: string, stdout: string, cellDir: string): Promise<string | undefined> {
  const where = /npm (?:error|ERR!) path (.+)/.exec(stderr)?.[1]?.trim();
  const own = where && isInside(where, path.dirname(cellDir)) ? " (the harness's own directory)" : '';
  const direct = infraCause(code);
  if (direct) return `${direct} (${code}${where ? ` on ${where}${own}` : ''}): npm install could not complete`;
  const log = /A complete log of this run can be found in:?\s*(\S+)/.exec(stderr)?.[1];
  const found = machineCodeIn(`${stderr}\n${stdout}`) ?? (log ? machineCodeIn(await readBounded(log)) : undefined);
  if (found)
    return `${infraCause(found)} (${found}, found in npm's ${log && !machineCodeIn(stderr + stdout) ? `debug log ${log}` : 'output'}): npm install failed with ${code} because of it`;
  const free = await freeBytes(cellDir);
  if (free !== undefined && free < LOW_SPACE_BYTES)
    return `the disk is full (only ${megabytes(free)} free where the cell lives, ${path.dirname(cellDir)}): npm install failed with ${code} because of it`;
  return undefined;
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** npm's debug log can be tens of MB; a cause is found near its end. */
async function readBounded(file: string, max = 64 * 1024 * 1024): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, max);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

function firstLines(text: string, n = 3): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, n)
    .join(' · ');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
