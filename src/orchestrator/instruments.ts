// The harness's instruments a run installs (or asks for) at most once and shares across its cells: each client
// variant's client, each Node variant's runtime (a per-user cache), the conformance suite, npm's cafile for Yarn;
// the suite is started before the first cell (prepareShared), since every cell's driver waits for it.
import path from 'node:path';
import type { CacheNotes } from '../cache/notes.js';
import type { CellContext } from '../cells/cell-context.js';
import type { CachedToolInstall } from '../cache/cached-tool.js';
import { installClient, type ClientInstall } from '../cells/install/client-install.js';
import { ensureConformanceSuite, type ConformanceSuite } from '../cells/conformance/conformance-suite.js';
import { npmCaForYarn } from '../cells/install/yarn-pnp-install.js';
import { ensureNodeRuntime, type NodeRuntime } from '../cells/runtime/node-runtime.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Result } from '../util/result.js';
import { once, type semaphore } from './slots.js';

export function instruments(
  config: ResolvedConfig,
  runDir: string,
  signal: AbortSignal,
  slot: ReturnType<typeof semaphore>,
  notes: CacheNotes,
): Pick<CellContext, 'clientInstall' | 'nodeRuntime' | 'conformanceSuite' | 'yarnCa'> {
  const clients = new Map<string, Promise<Result<ClientInstall>>>();
  // Per install set (the client cache's key): two pins that resolved to one set share its install.
  const clientSets = new Map<string, Promise<CachedToolInstall>>();
  const runtimes = new Map<string, Promise<Result<NodeRuntime>>>();
  // The conformance suite: installed (or found in the cache) once per run, on its first use.
  let suite: Promise<Result<ConformanceSuite>> | undefined;
  // One npm start per run, not per Yarn cell (~0.13 CPU-s each): the run's environment is the same for every cell.
  let yarnCa: Promise<Record<string, string>> | undefined;
  const { attempts, timeoutMs } = config.install;
  return {
    // A client from the cache takes no install slot; only an npm install does.
    // What a cache says of itself (a damaged entry replaced, a cache that could not be written) goes to `notes`.
    clientInstall: (client) =>
      once(clients, client.id, () => notes.take(installClient(runDir, client, { attempts, timeoutMs, signal, slot, shared: clientSets }))),
    nodeRuntime: (node) =>
      once(runtimes, node.version, () => notes.take(ensureNodeRuntime(node, { signal, fallbackDir: path.join(runDir, 'node') }))),
    conformanceSuite: () => (suite ??= notes.take(ensureConformanceSuite({ runDir, attempts, timeoutMs, signal, slot }))),
    yarnCa: (cellDir) => (yarnCa ??= npmCaForYarn(cellDir, undefined)),
  };
}

/**
 * Starts, before the first cell, what every cell's driver would otherwise wait for: the conformance suite (its
 * cache entry checked file by file, its Node found, its catalogue read: ~0.6 s measured, docs/performance.md),
 * so it overlaps the first cell's install instead of holding that cell's driver. Settles once it is ready; a
 * suite that could not be made is each cell's to report (the same shared promise), never this function's.
 */
export function prepareShared(config: Pick<ResolvedConfig, 'conformance'>, tools: Pick<CellContext, 'conformanceSuite'>): Promise<void> {
  if (!config.conformance || !tools.conformanceSuite) return Promise.resolve();
  return tools.conformanceSuite().then(
    () => undefined,
    () => undefined,
  );
}
