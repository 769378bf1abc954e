// A fresh directory under the suite's temp dir: what unit tests need of test/e2e/helpers/cli.ts, without the
// modules that file loads to start the CLI (the conformance suite's warm-up, the harness tarball).
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * The temp dir as this process had it on loading: an in-process fixture run (fixture-cell.ts) sets a TMPDIR of its own
 * for its length, and a dir made meanwhile (another lane's output dir) must not land in it and be taken for its leftover.
 */
export const SUITE_TMP = os.tmpdir();

export async function tempDir(prefix = 'mm-e2e-'): Promise<string> {
  return mkdtemp(path.join(SUITE_TMP, prefix));
}
