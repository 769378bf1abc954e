// Every npm/tool spawn goes through here: no shell, bounded, cancellable, never throws. Each tool runs
// in its own process group (npm install starts node-gyp, git, lifecycle scripts …), registered with
// the tracker and killed as a group on abort, on timeout and when it ends: nothing it started outlives it.
import { execa } from 'execa';
import { killGroup, track, untrack } from './tracker.js';

export interface ExecOutcome {
  ok: boolean;
  exitCode?: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** Spawn failure (command not found …). */
  error?: string;
}

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export async function run(command: string, args: string[], options: ExecOptions = {}): Promise<ExecOutcome> {
  const started = performance.now();
  if (options.signal?.aborted) return { ok: false, stdout: '', stderr: '', timedOut: false, cancelled: true, durationMs: 0 };
  const child = execa(command, args, {
    cwd: options.cwd,
    env: options.env,
    reject: false,
    shell: false,
    stdin: 'ignore',
    detached: true,
    timeout: options.timeoutMs,
    cancelSignal: options.signal,
    forceKillAfterDelay: 2_000,
    stripFinalNewline: false,
    maxBuffer: 64 * 1024 * 1024,
  });
  const pid = child.pid;
  if (pid !== undefined) track(pid);
  // An abort takes the whole group at once: Ctrl-C must not wait for npm to wind down.
  const abort = () => pid !== undefined && killGroup(pid, 'SIGKILL');
  options.signal?.addEventListener('abort', abort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  if (options.timeoutMs !== undefined && pid !== undefined) timer = setTimeout(abort, options.timeoutMs + 2_000);
  const result = await child;
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', abort);
  if (pid !== undefined) {
    killGroup(pid, 'SIGKILL');
    untrack(pid);
  }
  const cancelled = result.isCanceled || Boolean(options.signal?.aborted);
  return {
    ok: result.exitCode === 0 && !result.timedOut && !cancelled,
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    timedOut: result.timedOut,
    cancelled,
    durationMs: Math.round(performance.now() - started),
    ...(result.failed && result.exitCode === undefined && !result.timedOut && !cancelled ? { error: result.shortMessage } : {}),
  };
}
