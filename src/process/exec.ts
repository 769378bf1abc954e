// Every npm/tool spawn goes through here: no shell, bounded, cancellable, never throws.
import { execa } from 'execa';

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
  const result = await execa(command, args, {
    cwd: options.cwd,
    env: options.env,
    reject: false,
    shell: false,
    stdin: 'ignore',
    timeout: options.timeoutMs,
    cancelSignal: options.signal,
    forceKillAfterDelay: 2_000,
    stripFinalNewline: false,
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    ok: result.exitCode === 0 && !result.timedOut && !result.isCanceled,
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    timedOut: result.timedOut,
    cancelled: result.isCanceled,
    durationMs: Math.round(performance.now() - started),
    ...(result.failed && result.exitCode === undefined && !result.timedOut && !result.isCanceled ? { error: result.shortMessage } : {}),
  };
}
