// What several test files need and would otherwise each make when they get to it (on a fresh machine, two files at
// once both download it): started by the global setup when a run takes the e2e project whole, beside the first
// files, through run-cache.ts' lock and marker, so that a file that needs one waits for it instead of making it again.
// A warm-up that fails leaves no marker: the file's own run then makes it (and reports what went wrong), as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureConformanceSuite } from '../../src/cells/conformance/conformance-suite.js';
import { harnessTarball } from '../e2e/helpers/harness-tarball.js';
import { TEST_CLIENT_CACHE, TEST_NODE_CACHE } from './node-runtimes.js';
import { shared } from './run-cache.js';

const CONFORMANCE = 'warm-conformance-suite';

/** The official conformance suite and its Node (22.x), in the test caches, as a CLI run with the phase on takes them. */
async function conformanceSuite(): Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'mm-warm-'));
  try {
    const suite = await ensureConformanceSuite({
      runDir,
      cacheDir: TEST_CLIENT_CACHE,
      nodeCacheDir: TEST_NODE_CACHE,
      attempts: 2,
      timeoutMs: 300_000,
    });
    if (!suite.ok) throw new Error(suite.error.message);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** Starts every warm-up; never rejects (a failed one is made again by the file that needs it). */
export function warmUp(): void {
  const quiet = (p: Promise<unknown> | undefined) => void p?.catch(() => undefined);
  quiet(shared(CONFORMANCE, conformanceSuite));
  // The harness packed (quickstart, publish, api-package install it); shared by name, made once either way.
  quiet(harnessTarball(tmpdir()));
}

/**
 * Before a CLI run with the conformance phase on: waits while the warm-up installs the suite. Outside a run with the
 * global setup, or once the warm-up has ended (made or failed), it returns at once.
 */
export async function conformanceWarm(): Promise<void> {
  await shared(CONFORMANCE, async () => undefined)?.catch(() => undefined);
}
