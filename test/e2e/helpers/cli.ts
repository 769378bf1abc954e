// Run the built CLI as a user would: a real process, a minimal environment, no colours.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../../src/results/types.js';
import { TEST_CACHE_ENV } from '../../helpers/node-runtimes.js';
import { conformanceWarm } from '../../helpers/warm-up.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'mcp-matrix.js');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** A week: how long the suite's CLI runs reuse a resolution (MCP_MATRIX_REUSE_WINDOW_MS), as fixture-cell.ts keeps its installs. */
const SUITE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** The config's own reuse window (10 minutes unless it sets one) instead of the suite's week: for files whose subject is resolution or reuse. */
export const CONFIG_WINDOW: Record<string, string> = { MCP_MATRIX_REUSE_WINDOW_MS: '' };

export async function cli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliOutcome> {
  // The suite and its Node may be on their way into the test caches (test/helpers/warm-up.ts): not a second download.
  if (options.env?.MCP_MATRIX_CONFORMANCE === 'on') await conformanceWarm();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: options.cwd ?? ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NO_COLOR: '1',
          // A local run, as on a user's laptop: within the reuse window (issue 34) a run takes the registry's look-ups
          // and npm's resolution of a cell made minutes ago by another test's run, and swaps its own tarball in, with no
          // npm process (~2 CPU-s of a one-cell run's ~7). MM_TEST_CI=on: every run a CI run (every cell resolved now),
          // to check that path or to measure the difference. A test about CI's behaviour passes `CI` itself.
          ...(process.env.MM_TEST_CI === 'on' ? { CI: 'true' } : {}),
          // The harness's caches: the test caches, never the user's own. Client variants share one client cache per
          // machine; install reuse (issue 22) shares one tree cache, as users' runs do (MM_TEST_TREE_CACHE=off: every cell
          // a plain npm install, to measure the difference).
          ...TEST_CACHE_ENV,
          // A package run once per `vitest run` was never inside a 10-minute window: every warm run resolved each of its
          // cells with npm again (~2 CPU-s a cell) and looked its pins up. The last run's resolution is reused for a week
          // (docs/performance.md, session 11); CONFIG_WINDOW opts a run out.
          MCP_MATRIX_REUSE_WINDOW_MS: String(SUITE_WINDOW_MS),
          // The conformance suite costs ~0.4 s CPU per scenario: only the tests that judge it turn it on
          // (MCP_MATRIX_CONFORMANCE: 'on'), on one shared Node 22 runtime.
          MCP_MATRIX_CONFORMANCE: 'off',
          // Phases side by side cost copies and drivers; the suite's runs take turns (their verdicts are the same:
          // docs/performance.md, session 10); test/cells/side/ tests the side-by-side path.
          MCP_MATRIX_SIDE_BY_SIDE: 'off',
          ...options.env,
        },
        timeout: options.timeoutMs ?? 600_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error && typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : error ? -1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export { SUITE_TMP, tempDir } from '../../helpers/temp-dir.js';

/**
 * A config file in a temp dir whose `package` points at a fixture of this repository. It imports `mcp-matrix`, as a
 * user's config does: the CLI resolves it to its own dist/index.js (config/self.ts), where a path to src/index.ts
 * would have jiti transpile three more files on every run (~0.2 CPU-s).
 */
export async function writeConfig(dir: string, body: string): Promise<string> {
  const file = path.join(dir, 'matrix.config.ts');
  await writeFile(file, `import { defineConfig } from 'mcp-matrix';\nexport default defineConfig(${body});\n`);
  return file;
}

export async function readResults(outDir: string): Promise<RunResult> {
  return JSON.parse(await readFile(path.join(outDir, 'results.json'), 'utf8')) as RunResult;
}
