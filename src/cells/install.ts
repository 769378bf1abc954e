// npm install into a cell, retrying only network-type failures; attempts are evidence.
import { run } from '../process/exec.js';

export type InstallOutcome =
  | { kind: 'installed'; attempts: number; durationMs: number }
  /** Deterministic: no such version, unresolvable peers, integrity. Never retried; a verdict. */
  | { kind: 'failed'; attempts: number; durationMs: number; code: string; message: string }
  /** Network-type failures until attempts ran out: infrastructure, not a verdict. */
  | { kind: 'not-measured'; attempts: number; durationMs: number; code: string; message: string };

const NETWORK_CODES =
  /^(ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|EPIPE|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNABORTED|E5\d\d|E429|E408|FETCH_ERROR)$/;

export function classifyNpmError(stderr: string): { code: string; network: boolean; message: string } {
  const code = /npm (?:error|ERR!) code (\S+)/.exec(stderr)?.[1] ?? /\b(E[A-Z0-9_]{3,})\b/.exec(stderr)?.[1] ?? 'UNKNOWN';
  const errno = /npm (?:error|ERR!) errno (\S+)/.exec(stderr)?.[1];
  const network =
    NETWORK_CODES.test(code) ||
    (errno !== undefined && NETWORK_CODES.test(errno)) ||
    (/network|socket hang up|timed out/i.test(stderr) && code === 'UNKNOWN');
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^npm (?:error|ERR!) ?/, '').trim())
    .filter((l) => l && !/^(code|errno|A complete log|Log files were not written|at \S+ \(|$)/.test(l));
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
    const out = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-progress', '--loglevel=error'], {
      cwd: cellDir,
      env: options.env,
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const durationMs = Math.round(performance.now() - started);
    if (out.ok) return { kind: 'installed', attempts: attempt, durationMs };
    if (out.cancelled) return { kind: 'not-measured', attempts: attempt, durationMs, code: 'ABORTED', message: 'install interrupted' };
    const c = out.timedOut
      ? { code: 'ETIMEDOUT', network: true, message: `npm install did not finish within ${options.timeoutMs} ms` }
      : classifyNpmError(out.stderr || out.error || '');
    last = c;
    if (!c.network) return { kind: 'failed', attempts: attempt, durationMs, code: c.code, message: c.message };
    if (attempt < options.attempts) await sleep((options.backoffMs ?? 1_000) * 2 ** (attempt - 1), options.signal);
  }
  return { kind: 'not-measured', attempts: options.attempts, durationMs: Math.round(performance.now() - started), ...last };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
