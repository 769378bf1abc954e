// A cell installed as a strict user installs it: real pnpm (pinned, from the npm registry, once per machine in the
// client cache) with `hoist=false`, so each package resolves only what it declares. Same cell manifest, tarball and
// pins as npm's cell; pnpm's store lives under the per-user cache. Never throws.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { clientCacheDir } from '../../cache/client-cache.js';
import { cacheDirOf } from '../../cache/location.js';
import type { PackageManager } from '../../pack/package-manager.js';
import { ensurePmTool, pmEnv, PNPM_VERSION } from '../../pack/pm-tool.js';
import { run } from '../../process/exec.js';
import type { InstallSourceRef } from '../../results/types.js';
import { errorMessage } from '../../util/result.js';
import type { InstallOutcome } from '../../npm/install.js';

export interface StrictInstallOptions {
  attempts: number;
  timeoutMs: number;
  /** Where pnpm and its store go when the caches are off. */
  runDir: string;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** pnpm's store: `$MCP_MATRIX_PNPM_STORE`, else `~/.cache/mcp-matrix/pnpm-store`; `off`: one in the run directory. */
export function pnpmStoreDir(runDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return cacheDirOf('MCP_MATRIX_PNPM_STORE', 'pnpm-store', env) ?? path.join(runDir, 'pnpm-store');
}

/** The settings that make the layout strict: nothing hoisted, not even into pnpm's hidden `.pnpm/node_modules`. */
export const STRICT_NPMRC = ['hoist=false', 'public-hoist-pattern=', 'shamefully-hoist=false', 'node-linker=isolated'];

export async function installStrict(
  cellDir: string,
  options: StrictInstallOptions,
): Promise<{ install: InstallOutcome; source: InstallSourceRef; cacheNote?: undefined }> {
  const { elapsed, notMeasured } = installClock();
  const store = pnpmStoreDir(options.runDir, options.env);
  const source: InstallSourceRef = { source: 'pnpm-strict', pnpm: PNPM_VERSION, store };
  const pnpm: PackageManager = {
    name: 'pnpm',
    version: PNPM_VERSION,
    from: { kind: 'default' },
    yarnBerry: false,
    pnp: false,
    root: cellDir,
  };
  const tool = await ensurePmTool(pnpm, {
    runDir: options.runDir,
    attempts: options.attempts,
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    // The environment given decides the caches (a test's, not the user's).
    ...(options.env ? { cacheDir: clientCacheDir(options.env) } : {}),
    neededFor: "for this cell's strict install (install: 'pnpm-strict')",
  });
  if (!tool.ok) return { install: notMeasured('PNPM', tool.error.message, 1, tool.error.message), source };
  try {
    await writeFile(path.join(cellDir, '.npmrc'), [...STRICT_NPMRC, `store-dir=${store}`, ''].join('\n'));
  } catch (error) {
    const message = errorMessage(error);
    return { install: notMeasured('EWRITE', message, 1, `the cell's .npmrc could not be written: ${message}`), source };
  }
  let last = { code: 'UNKNOWN', message: '' };
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    // CI=true makes pnpm demand a lockfile (--frozen-lockfile); a fresh cell has none.
    const out = await run(
      tool.value.command,
      [
        ...tool.value.prefix,
        'install',
        '--no-frozen-lockfile',
        '--prefer-offline',
        '--reporter=append-only',
        '--config.confirmModulesPurge=false',
      ],
      {
        cwd: cellDir,
        env: { ...pmEnv(tool.value), ...options.env, npm_config_update_notifier: 'false' },
        timeoutMs: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    if (out.exitCode === 0) return { install: { kind: 'installed', attempts: attempt, durationMs: elapsed() }, source };
    if (out.cancelled) return { install: notMeasured('ABORTED', 'install interrupted', attempt), source };
    if (out.timedOut) {
      last = { code: 'ETIMEDOUT', message: `pnpm install did not finish within ${options.timeoutMs} ms` };
      continue;
    }
    const text = `${out.stderr}\n${out.stdout}`;
    const code = /\b(ERR_PNPM_[A-Z_]+|E[A-Z]{3,})\b/.exec(text)?.[1] ?? `exit ${out.exitCode}`;
    last = { code, message: firstLines(text) };
    // pnpm's refusal of what the cell asks (no such version, a peer it cannot satisfy) is deterministic: a verdict. So
    // is a `file:` dependency of the package's (pnpm resolves it from the project, where it is not): the cell's own
    // dependencies are a tarball and registry pins, never a directory.
    if (/ERR_PNPM_(NO_MATCHING_VERSION|PEER_DEP_ISSUES|FETCH_404|NO_VERSIONS|LINKED_PKG_DIR_NOT_FOUND)/.test(code))
      return { install: { kind: 'failed', attempts: attempt, durationMs: elapsed(), ...last }, source };
  }
  return { install: notMeasured(last.code, last.message, options.attempts), source };
}

/**
 * A strict install's clock, and its outcome when the registry or the machine stopped it (never the package's fault);
 * `cause`: a sentence naming the machine's or the harness's part, shown instead of the manager's own output.
 */
export function installClock(): {
  elapsed(): number;
  notMeasured(code: string, message: string, attempts?: number, cause?: string): InstallOutcome;
} {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return {
    elapsed,
    notMeasured: (code, message, attempts = 1, cause) => ({
      kind: 'not-measured',
      attempts,
      durationMs: elapsed(),
      code,
      message,
      ...(cause ? { cause } : {}),
    }),
  };
}

function firstLines(text: string, n = 4): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(Progress|Packages:|\+{3,})/.test(l))
    .slice(0, n)
    .join(' · ');
}
