// One directory per `vitest run`, shared by every test file (test/helpers/run-cache.ts): what one file
// builds there (the compiled driver, npm-installed SDK trees and clients) the others take instead of
// building it again. Removed when the run ends by a detached `rm` (a few hundred MB of node_modules take
// tens of seconds to unlink on a busy disk; the run need not wait), and a run killed before its teardown
// leaves a directory the next run's setup removes (its owner pid is gone).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

export default function setup(): () => void {
  if (process.env.MM_TEST_RUN_DIR) return () => {};
  sweep();
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  process.env.MM_TEST_RUN_DIR = dir;
  return () => {
    delete process.env.MM_TEST_RUN_DIR;
    removeDetached(dir);
  };
}
