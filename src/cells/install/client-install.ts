// A client variant's client: a verified entry of the per-user client cache, or with the cache off an install
// of its own, at <runDir>/clients/<id>/ with the driver shipped beside its node_modules, so the driver's bare
// imports resolve to that client only. Installed at most once per run, and one install set once per run
// whatever the pins that resolved to it (`shared`).
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { PlannedClient } from '../../plan/clients.js';
import type { ClientInstallRef } from '../../results/types.js';
import { clientCacheDir, clientKey, lockfileHash } from '../../cache/client-cache.js';
import type { CacheNote } from '../../cache/writable.js';
import { installThroughCache, type CachedToolInstall } from '../../cache/cached-tool.js';
import { installDriver, type DriverLayout } from '../driver-ship.js';
import { installFailureCause as cause, installManifest, type InstallOutcome } from '../../npm/install.js';
import { describeInfraError } from '../../util/infra.js';
import { errorMessage, fail, ok, type Result } from '../../util/result.js';

export interface ClientInstall {
  dir: string;
  /** The driver shipped into the client's install. */
  driver: DriverLayout;
  durationMs: number;
  attempts: number;
  /** Where the client's node_modules came from: results.json records it with the variant. */
  ref: ClientInstallRef;
  /** What the run should say about the cache: a damaged entry replaced, a cache that could not be written. */
  cacheNotes: CacheNote[];
}

export interface ClientInstallOptions {
  attempts: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The cache root; undefined: no cache (an install of its own in the run). Default: clientCacheDir(). */
  cacheDir?: string | undefined;
  /** Runs the npm install when one is needed (the run's install slots); a cache hit takes no slot. */
  slot?: <T>(task: () => Promise<T>) => Promise<T>;
  /**
   * The run's cache look-ups and installs by cache entry key: two clients of one install set (`latest@1` and
   * `1.32.2`, say) asked at once share one npm install instead of both missing the cache and installing it.
   */
  shared?: Map<string, Promise<CachedToolInstall>>;
}

export function clientDir(runDir: string, client: Pick<PlannedClient, 'id'>): string {
  return path.join(runDir, 'clients', client.id);
}

/**
 * The client's install for this run: a cache hit, else a new cache entry, else (cache off) an install in the
 * run dir. Any failure is infrastructure (the plan found the versions on the registry, and the client is the
 * harness's instrument, not the server under test).
 */
export async function installClient(runDir: string, client: PlannedClient, options: ClientInstallOptions): Promise<Result<ClientInstall>> {
  const dir = clientDir(runDir, client);
  const root = 'cacheDir' in options ? options.cacheDir : clientCacheDir();
  const what = `the client ${client.package}@${client.version} (${client.pin})`;
  const started = performance.now();
  // Asked before any await, so a second client of the same set asked in the same turn finds this one's.
  const through = root === undefined ? undefined : throughCache(root, client, options);
  // Awaited below; if this call fails first (its own dir), its sharers still hear the outcome.
  through?.catch(() => undefined);
  try {
    await mkdir(dir, { recursive: true });
    let notes: CacheNote[] = [];
    if (root !== undefined && through) {
      const cached = await through;
      notes = cached.notes;
      if (cached.kind === 'failed')
        return fail('infrastructure', `${what} could not be installed into the client cache ${root}: ${cause(cached.install)}`);
      if (cached.kind === 'entry') {
        const { entry } = cached;
        // The run's view of the entry: its node_modules, beside the driver shipped for this run.
        await symlink(path.join(entry.dir, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
        const ref: ClientInstallRef = {
          source: cached.source,
          lockfileSha256: entry.lockfileSha256,
          installedAt: entry.installedAt,
          cacheEntry: path.relative(root, entry.dir).split(path.sep).join('/'),
        };
        const durationMs = Math.round(performance.now() - started);
        return ok({ dir, driver: await installDriver(dir), durationMs, attempts: cached.attempts, ref, cacheNotes: notes });
      }
    }
    const install = await npmInstall(dir, client, options);
    if (install.kind !== 'installed') return fail('infrastructure', `${what} could not be installed into ${dir}: ${cause(install)}`);
    const ref: ClientInstallRef = { source: 'run', lockfileSha256: await lockfileHash(dir), installedAt: new Date().toISOString() };
    return ok({
      dir,
      driver: await installDriver(dir),
      durationMs: install.durationMs,
      attempts: install.attempts,
      ref,
      cacheNotes: notes,
    });
  } catch (error) {
    return fail('infrastructure', `${what} could not be installed into ${dir}: ${describeInfraError(error) ?? errorMessage(error)}`);
  }
}

/** The cache's entry for the client's install set: this run's look-up (and install) of that key if one is under way. */
function throughCache(root: string, client: PlannedClient, options: ClientInstallOptions): Promise<CachedToolInstall> {
  const make = () => installThroughCache(root, client, (partial) => npmInstall(partial, client, options));
  const key = `${root}\0${clientKey(client)}`;
  const shared = options.shared;
  if (!shared) return make();
  let pending = shared.get(key);
  if (!pending) shared.set(key, (pending = make()));
  return pending;
}

/** The client's install set, installed by npm into `dir`. */
async function npmInstall(dir: string, client: PlannedClient, options: ClientInstallOptions): Promise<InstallOutcome> {
  const slot = options.slot ?? ((task) => task());
  return slot(() => npmInstallNow(dir, client, options));
}

async function npmInstallNow(dir: string, client: PlannedClient, options: ClientInstallOptions): Promise<InstallOutcome> {
  const manifest = {
    name: 'mcp-matrix-client',
    private: true,
    description: `mcp-matrix client ${client.id}`,
    dependencies: client.installSet,
  };
  return installManifest(dir, manifest, options);
}
