// One directory per `vitest run`, shared by every test file (test/helpers/run-cache.ts): what one file
// builds there (the compiled driver, npm-installed SDK trees and clients) the others take instead of
// building it again. Removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  if (process.env.MM_TEST_RUN_DIR) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'mm-test-run-'));
  process.env.MM_TEST_RUN_DIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    delete process.env.MM_TEST_RUN_DIR;
  };
}
