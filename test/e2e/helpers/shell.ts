// A shell command as a user types it (the README's quick start): `sh -c`, a minimal environment, the test caches.
import { execFile } from 'node:child_process';
import { TEST_CACHE_ENV } from '../../helpers/node-runtimes.js';

export interface ShellOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A program run as a user runs it: a minimal environment with the test caches, `extraEnv` on top (a `TMPDIR` there
 * keeps the run's directories out of other tests' sight). `timeoutMs` is a hang guard, not a speed check.
 */
export function exec(
  file: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string | undefined> = {},
  timeoutMs = 480_000,
): Promise<ShellOutcome> {
  // A key given as undefined is left out (CI: undefined, a laptop's shell).
  const given: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...TEST_CACHE_ENV,
    NO_COLOR: '1',
    CI: 'true',
    ...extraEnv,
  };
  const env = Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `tmp` is the command's TMPDIR; `timeoutMs` is a hang guard, not a speed check. */
export function sh(
  command: string,
  cwd: string,
  tmp: string,
  timeoutMs = 480_000,
  extraEnv: Record<string, string | undefined> = {},
): Promise<ShellOutcome> {
  return exec('sh', ['-c', command], cwd, { TMPDIR: tmp, ...extraEnv }, timeoutMs);
}
