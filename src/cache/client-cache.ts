// Client installs kept across runs in a per-user cache: the client is the harness's instrument, not the
// package under test. An entry is checked before every use against its manifest (manifest.ts), used for a week
// at most, never changed once complete (a new install is renamed into place), and bounded in size (bound.ts).
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheLimit, entryBytes, evict, removeAside, type SizedEntry } from './bound.js';
import { checkManifest, writeManifest } from './manifest.js';
import { makeCacheDir } from './writable.js';
import { entryName, lastUsedMs, PARTIAL, sweepIfStale, touchMarker } from './entry-dirs.js';
import { turnedOff, userCacheDir } from './location.js';
import { sha256 } from '../util/sha256.js';

/** Written last inside an entry before it is renamed into place: a dir with it is complete. */
export const CLIENT_MARKER = '.mcp-matrix-client.json';
/** An entry is used for this long after its install; then the next run installs a fresh one. */
export const CLIENT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Nobody can still be using an entry this old (no run lasts days): it is removed. */
const REMOVE_AFTER_MS = 2 * CLIENT_MAX_AGE_MS;

/** What a cached client is: the install set it was made from, when, and the lockfile it resolved to. */
export interface ClientEntry {
  /** The entry's directory (its `node_modules` is the client's). */
  dir: string;
  installedAt: string;
  lockfileSha256: string;
}

interface Marker {
  package: string;
  version: string;
  installSet: Record<string, string>;
  installedAt: string;
  lockfileSha256: string;
}

export interface CachedClient {
  package: string;
  version: string;
  installSet: Record<string, string>;
}

/**
 * `$MCP_MATRIX_CLIENT_CACHE` (`off` for a fresh client install in every run), else
 * `${XDG_CACHE_HOME:-~/.cache}/mcp-matrix/clients` (`%LOCALAPPDATA%\mcp-matrix\clients` on Windows).
 */
export function clientCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const set = env.MCP_MATRIX_CLIENT_CACHE;
  if (turnedOff(set)) return undefined;
  return set ? path.resolve(set) : userCacheDir('clients', env, platform);
}

/** `@modelcontextprotocol+sdk@1.32.2-<hash of the install set>`: one key per exact install set. */
export function clientKey(client: CachedClient): string {
  const set = Object.entries(client.installSet).sort(([a], [b]) => a.localeCompare(b));
  const hash = sha256(JSON.stringify(set)).slice(0, 12);
  return `${client.package.replace('/', '+')}@${client.version}-${hash}`;
}

/**
 * The newest complete, intact entry younger than the age limit; older and stale leftovers are removed, and so
 * is a damaged entry (`onDamage` hears which and why). The entry found is marked as used now.
 */
export async function findClient(
  root: string,
  client: CachedClient,
  now = Date.now(),
  onDamage?: (dir: string, reason: string) => void,
): Promise<ClientEntry | undefined> {
  const keyDir = path.join(root, clientKey(client));
  const names = await readdir(keyDir).catch(() => [] as string[]);
  const found: ClientEntry[] = [];
  for (const name of names) {
    const dir = path.join(keyDir, name);
    if (name.startsWith(PARTIAL)) {
      await sweepIfStale(dir, now);
      continue;
    }
    const seen = await inspect(dir, client);
    if ('damage' in seen) {
      onDamage?.(dir, seen.damage);
      await discard(dir);
      continue;
    }
    const entry = seen.entry;
    const age = now - Date.parse(entry.installedAt);
    if (age >= 0 && age < CLIENT_MAX_AGE_MS) found.push(entry);
    else if (age >= REMOVE_AFTER_MS) await discard(dir);
  }
  const newest = found.sort((a, b) => b.installedAt.localeCompare(a.installedAt))[0];
  if (newest) await markUsed(newest.dir);
  return newest;
}

/** The entry was used now (its marker's time): a read-only cache is used all the same. */
export async function markUsed(dir: string, at = new Date()): Promise<void> {
  await touchMarker(dir, CLIENT_MARKER, at);
}

/** Moved aside in one rename (no run sees half of it), then removed; another run may have moved it first. */
function discard(dir: string): Promise<void> {
  return removeAside(dir, asideOf(dir));
}

function asideOf(dir: string): string {
  return path.join(path.dirname(dir), `${PARTIAL}gone-${path.basename(dir)}`);
}

/** A complete entry of any key, as the size bound and `mcp-matrix cache` list it. */
export interface ListedClient extends SizedEntry {
  key: string;
  package?: string;
  version?: string;
  installedAt?: string;
}

/** Every complete entry in the cache (partial installs are not entries). */
export async function listClients(root: string): Promise<ListedClient[]> {
  const out: ListedClient[] = [];
  for (const key of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(path.join(root, key)).catch(() => [] as string[])) {
      if (name.startsWith(PARTIAL)) continue;
      const dir = path.join(root, key, name);
      const marker = await readFile(path.join(dir, CLIENT_MARKER), 'utf8')
        .then((t) => JSON.parse(t) as Partial<Marker>)
        .catch(() => ({}) as Partial<Marker>);
      const used = await lastUsedMs(dir, CLIENT_MARKER);
      out.push({
        dir,
        key,
        bytes: await entryBytes(dir),
        lastUsedMs: used,
        ...(typeof marker.package === 'string' ? { package: marker.package } : {}),
        ...(typeof marker.version === 'string' ? { version: marker.version } : {}),
        ...(typeof marker.installedAt === 'string' ? { installedAt: marker.installedAt } : {}),
      });
    }
  }
  return out;
}

/** The size bound, after an entry was stored (never that one); removes least recently used entries first. */
export async function boundClients(root: string, keep?: string, limit = cacheLimit()): Promise<string[]> {
  const gone = await evict(await listClients(root), limit, asideOf, keep);
  return gone.map((e) => e.dir);
}

/**
 * Installs a new entry: `install(dir)` fills a partial directory (package.json, then npm install), the
 * marker goes in last, and one rename makes it visible. Throws what the file system throws; the install's
 * own failure comes back as `{ failed }` and leaves nothing behind.
 */
export async function storeClient<F>(
  root: string,
  client: CachedClient,
  install: (dir: string) => Promise<F | undefined>,
  now = () => new Date(),
): Promise<{ entry: ClientEntry } | { failed: F }> {
  const keyDir = path.join(root, clientKey(client));
  await makeCacheDir(keyDir);
  const partial = await mkdtemp(path.join(keyDir, PARTIAL));
  try {
    const failed = await install(partial);
    if (failed !== undefined) return { failed };
    const installedAt = now().toISOString();
    const lockfileSha256 = await lockfileHash(partial);
    const marker: Marker = { package: client.package, version: client.version, installSet: client.installSet, installedAt, lockfileSha256 };
    await writeManifest(partial, [CLIENT_MARKER]);
    await writeFile(path.join(partial, CLIENT_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    // Unique per install: racing runs never rename onto each other.
    const dir = path.join(keyDir, entryName(installedAt, partial));
    await rename(partial, dir);
    await boundClients(root, dir).catch(() => undefined);
    return { entry: { dir, installedAt, lockfileSha256 } };
  } finally {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The entry as its marker describes it, if it still is that (see inspect). */
export async function verify(dir: string, client: CachedClient): Promise<ClientEntry | undefined> {
  const seen = await inspect(dir, client);
  return 'entry' in seen ? seen.entry : undefined;
}

/**
 * The entry if it still is what its marker says: same install set, the lockfile it was installed with, every
 * locked package present at its locked version, and every file as its manifest recorded it; else the damage.
 */
export async function inspect(dir: string, client: CachedClient, deep = false): Promise<{ entry: ClientEntry } | { damage: string }> {
  try {
    const marker = JSON.parse(await readFile(path.join(dir, CLIENT_MARKER), 'utf8')) as Partial<Marker>;
    if (marker.package !== client.package || marker.version !== client.version)
      return { damage: `its marker names ${marker.package}@${marker.version}` };
    if (JSON.stringify(sorted(marker.installSet ?? {})) !== JSON.stringify(sorted(client.installSet)))
      return { damage: 'its marker names another install set' };
    if (typeof marker.installedAt !== 'string' || Number.isNaN(Date.parse(marker.installedAt)))
      return { damage: 'its marker has no install time' };
    const lock = await readFile(path.join(dir, 'package-lock.json'));
    if (sha256(lock) !== marker.lockfileSha256) return { damage: 'package-lock.json is not the one installed' };
    const packages = (JSON.parse(lock.toString('utf8')) as { packages?: Record<string, { version?: string; link?: boolean }> }).packages;
    if (!packages) return { damage: 'package-lock.json lists no packages' };
    for (const [where, locked] of Object.entries(packages)) {
      if (where === '' || locked.link || !locked.version) continue;
      const manifest = JSON.parse(await readFile(path.join(dir, where, 'package.json'), 'utf8')) as { version?: string };
      if (manifest.version !== locked.version) return { damage: `${where} is ${manifest.version}, locked at ${locked.version}` };
    }
    const files = await checkManifest(dir, { deep });
    if (!files.intact) return { damage: files.reason };
    return { entry: { dir, installedAt: marker.installedAt, lockfileSha256: marker.lockfileSha256! } };
  } catch (error) {
    return { damage: (error as Error).message };
  }
}

/** `mcp-matrix cache verify`: the entry against its own marker, every file hashed; the damage, or undefined. */
export async function damageOf(dir: string): Promise<string | undefined> {
  const marker = await readFile(path.join(dir, CLIENT_MARKER), 'utf8')
    .then((t) => JSON.parse(t) as Partial<Marker>)
    .catch(() => undefined);
  if (!marker) return `no readable ${CLIENT_MARKER}`;
  const client = { package: String(marker.package), version: String(marker.version), installSet: marker.installSet ?? {} };
  const seen = await inspect(dir, client, true);
  return 'damage' in seen ? seen.damage : undefined;
}

export async function lockfileHash(dir: string): Promise<string> {
  return sha256(await readFile(path.join(dir, 'package-lock.json')));
}

function sorted(set: Record<string, string>): [string, string][] {
  return Object.entries(set).sort(([a], [b]) => a.localeCompare(b));
}
