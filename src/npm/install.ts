// npm install into a cell, retrying only network-type failures; attempts are evidence. Why npm
// failed is decided by src/npm/errors.ts (a full disk often surfaces as EJSONPARSE).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';
import { classifyNpmError } from './errors.js';
import { machineCause } from './machine-cause.js';
import { infraCause, machineCodeIn } from '../util/infra.js';

export type InstallOutcome =
  | { kind: 'installed'; attempts: number; durationMs: number }
  /** Deterministic: no such version, unresolvable peers, integrity. Never retried; a verdict. */
  | { kind: 'failed'; attempts: number; durationMs: number; code: string; message: string }
  /**
   * Infrastructure, not a verdict: network-type failures until attempts ran out, or the machine
   * (disk full, no file descriptors, no permission); `cause` then names it in one sentence.
   */
  | { kind: 'not-measured'; attempts: number; durationMs: number; code: string; message: string; cause?: string };

export interface InstallOptions {
  attempts: number;
  timeoutMs: number;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Backoff base; tests shorten it. */
  backoffMs?: number;
  /** More npm flags (reuse's resolution runs with `--package-lock-only`). */
  args?: string[];
}

export async function installCell(cellDir: string, options: InstallOptions): Promise<InstallOutcome> {
  const started = performance.now();
  let last = { code: 'UNKNOWN', message: '' };
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    // --loglevel=warn: tar's ENOSPC reaches us only as TAR_ENTRY_ERROR warnings, even when npm exits 0.
    const out = await run(
      'npm',
      ['install', '--json', '--no-audit', '--no-fund', '--prefer-offline', '--no-progress', '--loglevel=warn', ...(options.args ?? [])],
      {
        cwd: cellDir,
        env: options.env,
        timeoutMs: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
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

/** A tool's own install (a client, the conformance suite): its manifest and a quiet .npmrc, then npm install. */
export async function installManifest(
  dir: string,
  manifest: Record<string, unknown>,
  options: { attempts: number; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<InstallOutcome> {
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(dir, '.npmrc'), 'fund=false\naudit=false\nupdate-notifier=false\nprefer-offline=true\n');
  return installCell(dir, {
    attempts: options.attempts,
    timeoutMs: options.timeoutMs,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** One sentence for an install that did not succeed: the machine's cause when known, else npm's code and message. */
export function installFailureCause(install: Exclude<InstallOutcome, { kind: 'installed' }>): string {
  return install.kind === 'not-measured' && install.cause ? install.cause : `npm install (${install.code}): ${install.message}`;
}
