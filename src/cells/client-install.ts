// A client variant's client: a verified entry of the per-user client cache (src/cells/client-cache.ts), or,
// with the cache off, an install of its own in the run. Either way the run gets <runDir>/clients/<client id>/
// with the driver shipped into it and the client's node_modules beside it: the driver's bare imports then
// resolve to that client and nothing else. Installed at most once per run, and reused across runs.
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { PlannedClient } from '../plan/clients.js';
import type { ClientInstallRef } from '../results/types.js';
import { clientCacheDir, findClient, lockfileHash, storeClient } from './client-cache.js';
import { installDriver, type DriverLayout } from './driver-ship.js';
import { installFailureCause as cause, installManifest, type InstallOutcome } from './install.js';
import { describeInfraError } from '../util/infra.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

export interface ClientInstall {
  dir: string;
  /** The driver shipped into the client's install. */
  driver: DriverLayout;
  durationMs: number;
  attempts: number;
  /** Where the client's node_modules came from: results.json records it with the variant. */
  ref: ClientInstallRef;
}

export interface ClientInstallOptions {
  attempts: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The cache root; undefined: no cache (an install of its own in the run). Default: clientCacheDir(). */
  cacheDir?: string | undefined;
  /** Runs the npm install when one is needed (the run's install slots); a cache hit takes no slot. */
  slot?: <T>(task: () => Promise<T>) => Promise<T>;
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
  try {
    await mkdir(dir, { recursive: true });
    if (root === undefined) {
      const install = await npmInstall(dir, client, options);
      if (install.kind !== 'installed') return fail('infrastructure', `${what} could not be installed into ${dir}: ${cause(install)}`);
      const ref: ClientInstallRef = { source: 'run', lockfileSha256: await lockfileHash(dir), installedAt: new Date().toISOString() };
      return ok({ dir, driver: await installDriver(dir), durationMs: install.durationMs, attempts: install.attempts, ref });
    }
    let entry = await findClient(root, client);
    let attempts = 0;
    let source: ClientInstallRef['source'] = 'cache';
    if (!entry) {
      const stored = await storeClient(root, client, async (partial) => {
        const install = await npmInstall(partial, client, options);
        attempts = install.attempts;
        return install.kind === 'installed' ? undefined : install;
      });
      if ('failed' in stored)
        return fail('infrastructure', `${what} could not be installed into the client cache ${root}: ${cause(stored.failed)}`);
      entry = stored.entry;
      source = 'installed';
    }
    // The run's view of the entry: its node_modules, beside the driver shipped for this run.
    await symlink(path.join(entry.dir, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
    const ref: ClientInstallRef = {
      source,
      lockfileSha256: entry.lockfileSha256,
      installedAt: entry.installedAt,
      cacheEntry: path.relative(root, entry.dir).split(path.sep).join('/'),
    };
    return ok({ dir, driver: await installDriver(dir), durationMs: Math.round(performance.now() - started), attempts, ref });
  } catch (error) {
    return fail(
      'infrastructure',
      `${what} could not be installed into ${root ?? dir}: ${describeInfraError(error) ?? errorMessage(error)}`,
    );
  }
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
