// Why npm failed, from its structured --json error, its stderr, its debug log and the free space left:
// the cause decides between a verdict on the package and a not-measured machine fault.
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { freeBytes, infraCause, LOW_SPACE_BYTES, machineCodeIn, megabytes } from '../util/infra.js';

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

/** npm's structured error (`--json` prints `{ "error": { code, summary, detail } }` on stdout). */
export function npmJsonError(stdout: string): { code?: string; summary?: string } | undefined {
  const start = stdout.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(stdout.slice(start)) as { error?: { code?: unknown; summary?: unknown } };
    const e = parsed.error;
    if (!e || typeof e !== 'object') return undefined;
    return {
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.summary === 'string' ? { summary: e.summary } : {}),
    };
  } catch {
    return undefined;
  }
}
