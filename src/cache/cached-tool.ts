// A tool's install (a variant's client, the conformance suite) through the per-user client cache: a verified
// entry, else a new one. When the cache cannot be written the caller installs into the run's own directory
// and the run carries one warning naming the cause: the cache never stops a run.
import path from 'node:path';
import { UNRECORDED } from './manifest.js';
import { cacheProblem, type CacheNote } from './writable.js';
import { findClient, storeClient, type CachedClient, type ClientEntry } from './client-cache.js';
import { installFailureCause, type InstallOutcome } from '../npm/install.js';

export type CachedToolInstall =
  | { kind: 'entry'; entry: ClientEntry; source: 'cache' | 'installed'; attempts: number; notes: CacheNote[] }
  /** npm could not install the tool (not the machine's fault): installing elsewhere would fail the same way. */
  | { kind: 'failed'; install: Exclude<InstallOutcome, { kind: 'installed' }>; notes: CacheNote[] }
  /** The cache cannot be written: install into the run instead. */
  | { kind: 'unwritable'; notes: CacheNote[] };

export async function installThroughCache(
  root: string,
  tool: CachedClient,
  npmInstall: (dir: string) => Promise<InstallOutcome>,
): Promise<CachedToolInstall> {
  const notes: CacheNote[] = [];
  // An entry of an older mcp-matrix is replaced quietly: that is an upgrade, not damage.
  const healed = (dir: string, reason: string) =>
    reason !== UNRECORDED &&
    notes.push({
      cache: dir,
      message: `the client cache entry ${path.relative(root, dir).split(path.sep).join('/')} in ${root} was damaged (${reason}): it was removed, and ${tool.package}@${tool.version} installed again`,
    });
  const found = await findClient(root, tool, Date.now(), healed);
  if (found) return { kind: 'entry', entry: found, source: 'cache', attempts: 0, notes };
  let attempts = 0;
  const unwritable = (cause: string): CachedToolInstall => ({
    kind: 'unwritable',
    notes: [
      ...notes,
      {
        cache: root,
        message: `${cause}; the harness's tools (clients, the conformance suite) are installed into the run's own directory instead`,
      },
    ],
  });
  try {
    const stored = await storeClient(root, tool, async (partial) => {
      const install = await npmInstall(partial);
      attempts = install.attempts;
      return install.kind === 'installed' ? undefined : install;
    });
    if ('entry' in stored) return { kind: 'entry', entry: stored.entry, source: 'installed', attempts, notes };
    // The machine (a full disk, no permission where the cache is): the run's own directory may do.
    if (stored.failed.kind === 'not-measured' && stored.failed.cause)
      return unwritable(`the client cache ${root} cannot be written: ${installFailureCause(stored.failed)}`);
    return { kind: 'failed', install: stored.failed, notes };
  } catch (error) {
    return unwritable(cacheProblem('the client cache', root, error));
  }
}
