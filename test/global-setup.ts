// One directory per `vitest run`, shared by every test file (test/helpers/run-cache.ts): what one file
// builds there (the compiled driver, npm-installed SDK trees and clients) the others take instead of
// building it again. Removed when the run ends by a detached `rm` (a few hundred MB of node_modules take
// tens of seconds to unlink on a busy disk; the run need not wait), and a run killed before its teardown
// leaves a directory the next run's setup removes (its owner pid is gone). A run that takes the e2e project whole
// also starts what several of its files need (test/helpers/warm-up.ts) beside the first files.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { warmUp } from './helpers/warm-up.js';

const PREFIX = 'mm-test-run-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeDetached(dir: string): void {
  spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' }).unref();
}

/** Directories of runs whose vitest is gone (killed before its teardown). */
function sweep(): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = join(tmpdir(), name);
    let owner = 0;
    try {
      owner = Number(readFileSync(join(dir, 'owner'), 'utf8')) || 0;
    } catch {
      continue; // being created, or not ours
    }
    if (!alive(owner)) removeDetached(dir);
  }
}

/**
 * The e2e project with no file filter (`vitest run`, `.ci/run`, `--project e2e`): MM_TEST_WARM=on|off overrides.
 * A run of a few named files warms nothing, so a targeted run costs what it did.
 */
function takesE2eWhole(project: TestProject): boolean {
  const set = process.env.MM_TEST_WARM;
  if (set) return set === 'on';
  const vitest = project.vitest as typeof project.vitest & { filenamePattern?: string[] };
  return !vitest.filenamePattern?.length && vitest.projects.some((p) => p.name === 'e2e');
}

export default function setup(project: TestProject): () => void {
  // In-process runs (the API's tests, the broken fixtures' cells) take turns as the CLI's do (helpers/cli.ts).
  process.env.MCP_MATRIX_SIDE_BY_SIDE ??= 'off';
  if (process.env.MM_TEST_RUN_DIR) return () => {};
  sweep();
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  process.env.MM_TEST_RUN_DIR = dir;
  if (takesE2eWhole(project)) warmUp();
  return () => {
    delete process.env.MM_TEST_RUN_DIR;
    removeDetached(dir);
  };
}
