// The harness's per-user caches as `mcp-matrix cache` sees them: where each is (and the variable that moves
// it), its entries with their size and last use, and the deep check of one entry (every file hashed against
// what was recorded when it was stored). None of them holds anything under test: each is an instrument.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { duBytes, type SizedEntry } from '../cache/bound.js';
import { clientCacheDir, damageOf, listClients } from '../cache/client-cache.js';
import { inspectRuntime, listRuntimes, nodeCacheDir } from '../cells/runtime/node-runtime.js';
import { findTree, listTree, TREE_MARKER, treeCacheDir, treeDifference, type TreeFile } from '../cells/install/tree-cache.js';
import { RETURNED, returnedDifference } from '../cells/install/tree-return.js';
import { lastUsedMs, PARTIAL } from '../cache/entry-dirs.js';
import { readdir, stat } from 'node:fs/promises';
import { cacheDirOf } from '../cache/location.js';
import { configCacheDir, listConfigEntries, parseEntry } from '../config/transpile-cache.js';

export interface CacheEntry extends SizedEntry {
  /** What it holds, e.g. `@modelcontextprotocol/sdk@1.32.2` or `Node 22.22.0`. */
  label: string;
}

export interface CacheKind {
  name: 'clients' | 'node' | 'trees' | 'configs' | 'pnpm' | 'yarn';
  what: string;
  /** The variable that moves it (or turns it off). */
  variable: string;
  /** undefined: turned off. */
  root: string | undefined;
  list(root: string): Promise<CacheEntry[]>;
  /** Every file of the entry hashed: what is wrong, or undefined. */
  damage(entry: CacheEntry): Promise<string | undefined>;
  /** A cache the harness does not hash (a package manager's own store, which checks what it takes): why. */
  unverified?: string;
}

export function cacheKinds(env: NodeJS.ProcessEnv = process.env): CacheKind[] {
  return [
    {
      name: 'clients',
      what: "client variants' clients, the conformance suite, and pnpm or Yarn for packing (pnpm also for strict legs)",
      variable: 'MCP_MATRIX_CLIENT_CACHE',
      root: clientCacheDir(env),
      list: async (root) =>
        (await listClients(root)).map((e) => ({ ...e, label: e.package ? `${e.package}@${e.version ?? '?'}` : path.basename(e.dir) })),
      damage: (entry) => damageOf(entry.dir),
    },
    {
      name: 'node',
      what: 'Node runtimes of node-axis variants and the conformance suite',
      variable: 'MCP_MATRIX_NODE_CACHE',
      root: nodeCacheDir(env),
      list: async (root) => (await listRuntimes(root)).map((e) => ({ ...e, label: `Node ${e.version ?? e.name}` })),
      damage: async (entry) => {
        const version = entry.label.replace(/^Node /, '');
        const seen = await inspectRuntime(entry.dir, version, process.platform, true);
        return typeof seen === 'string' ? seen : seen === undefined ? 'gone' : undefined;
      },
    },
    {
      name: 'trees',
      what: 'pristine dependency trees for install reuse',
      variable: 'MCP_MATRIX_TREE_CACHE',
      root: treeCacheDir(env),
      list: listTrees,
      damage: async (entry) =>
        path.basename(path.dirname(path.dirname(entry.dir))) === RETURNED ? returnedDamage(entry.dir) : treeDamage(entry.dir),
    },
    storeKind(
      'pnpm',
      "pnpm's content-addressed store for the pnpm-strict legs",
      'MCP_MATRIX_PNPM_STORE',
      cacheDirOf('MCP_MATRIX_PNPM_STORE', 'pnpm-store', env),
      'pnpm checks each file against its content address as it links it',
    ),
    storeKind(
      'yarn',
      "Yarn's global folder (its cache of package zips) for the yarn-pnp legs",
      'MCP_MATRIX_YARN_CACHE',
      cacheDirOf('MCP_MATRIX_YARN_CACHE', 'yarn', env),
      "Yarn checks each zip against its lockfile's checksum as it installs it",
    ),
    {
      name: 'configs',
      what: 'config files as jiti transpiled them (TypeScript to JavaScript)',
      variable: 'MCP_MATRIX_CONFIG_CACHE',
      root: configCacheDir(env),
      list: async (root) =>
        listConfigEntries(root).map((e) => ({ dir: e.file, bytes: e.bytes, lastUsedMs: e.lastUsedMs, label: e.filename })),
      damage: async (entry) => {
        const read = parseEntry(await readFile(entry.dir, 'utf8'));
        return 'why' in read ? read.why : undefined;
      },
    },
  ];
}

/** A package manager's own store: each top-level folder one entry (pnpm's `v10`, Yarn's `cache`), last used when last written. */
function storeKind(name: 'pnpm' | 'yarn', what: string, variable: string, root: string | undefined, unverified: string): CacheKind {
  return {
    name,
    what,
    variable,
    root,
    unverified,
    list: async (at) => {
      const out: CacheEntry[] = [];
      for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
        if (!entry.isDirectory() || entry.name.startsWith(PARTIAL)) continue;
        const dir = path.join(at, entry.name);
        out.push({ dir, bytes: await duBytes(dir), lastUsedMs: (await stat(dir)).mtimeMs, label: `${name} ${entry.name}` });
      }
      return out;
    },
    damage: async () => undefined,
  };
}

async function listTrees(root: string): Promise<CacheEntry[]> {
  const out: CacheEntry[] = [];
  for (const key of await readdir(root).catch(() => [] as string[])) {
    // Hints and records are not entries; `clear` removes them with the rest.
    if (key.startsWith('.')) continue;
    for (const name of await readdir(path.join(root, key)).catch(() => [] as string[])) {
      if (name.startsWith(PARTIAL)) continue;
      const dir = path.join(root, key, name);
      out.push({ dir, bytes: await duBytes(dir), lastUsedMs: await lastUsedMs(dir, TREE_MARKER), label: `tree ${key.slice(0, 12)}` });
    }
  }
  // A cell's tree handed back for the next swap of its key (tree-return.ts): its disk use is the cache's too.
  for (const key of await readdir(path.join(root, RETURNED)).catch(() => [] as string[])) {
    for (const name of await readdir(path.join(root, RETURNED, key)).catch(() => [] as string[])) {
      const dir = path.join(root, RETURNED, key, name);
      out.push({
        dir,
        bytes: await duBytes(dir),
        lastUsedMs: Number(name.slice(0, 15)) || 0,
        label: `handed-back tree ${key.slice(0, 12)}`,
      });
    }
  }
  return out;
}

/** A handed-back tree against the newest entry of its key, as the next swap checks it before taking it. */
async function returnedDamage(dir: string): Promise<string | undefined> {
  const key = path.basename(path.dirname(dir));
  const entry = await findTree(path.dirname(path.dirname(path.dirname(dir))), key);
  return entry ? returnedDifference(dir, entry, 'changed') : `no entry of its key ${key.slice(0, 12)} is stored`;
}

/** The tree against the files its marker recorded (hashes, modes, links), as a cell's copy is checked. */
async function treeDamage(dir: string): Promise<string | undefined> {
  const marker = await readFile(path.join(dir, TREE_MARKER), 'utf8')
    .then((t) => JSON.parse(t) as { files?: TreeFile[] })
    .catch(() => undefined);
  if (!Array.isArray(marker?.files)) return `no readable ${TREE_MARKER}`;
  const now = await listTree(path.join(dir, 'node_modules')).catch((e: Error) => e);
  if (now instanceof Error) return now.message;
  return treeDifference(marker.files, now, 'changed');
}
