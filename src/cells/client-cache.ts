// Client installs kept across runs in a per-user cache, as the Node runtimes are: the client is the harness's
// instrument, not the package under test. An entry is installed once, checked before every use (its lockfile,
// and every locked package on disk at its locked version), and used for at most a week, so the client's own
// dependencies stay as fresh as a weekly install. Entries are never changed once complete: a new install gets
// a new directory, renamed into place in one step, so runs that race each end up with a complete copy.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Written last inside an entry before it is renamed into place: a dir with it is complete. */
export const CLIENT_MARKER = '.mcp-matrix-client.json';
const PARTIAL = '.partial-';
/** An entry is used for this long after its install; then the next run installs a fresh one. */
export const CLIENT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Nobody can still be using an entry this old (no run lasts days): it is removed. */
const REMOVE_AFTER_MS = 2 * CLIENT_MAX_AGE_MS;
/** A partial install older than this belongs to a run that died. */
const STALE_PARTIAL_MS = 6 * 60 * 60 * 1000;

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
  if (set !== undefined && set.trim().toLowerCase() === 'off') return undefined;
  if (set) return path.resolve(set);
  if (platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'mcp-matrix', 'clients');
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'mcp-matrix', 'clients');
}

/** `@modelcontextprotocol+sdk@1.32.2-<hash of the install set>`: one key per exact install set. */
export function clientKey(client: CachedClient): string {
  const set = Object.entries(client.installSet).sort(([a], [b]) => a.localeCompare(b));
  const hash = createHash('sha256').update(JSON.stringify(set)).digest('hex').slice(0, 12);
  return `${client.package.replace('/', '+')}@${client.version}-${hash}`;
}

/** The newest complete, intact entry younger than the age limit; older and stale leftovers are removed. */
export async function findClient(root: string, client: CachedClient, now = Date.now()): Promise<ClientEntry | undefined> {
  const keyDir = path.join(root, clientKey(client));
  const names = await readdir(keyDir).catch(() => [] as string[]);
  const found: ClientEntry[] = [];
  for (const name of names) {
    const dir = path.join(keyDir, name);
    if (name.startsWith(PARTIAL)) {
      if (await olderThan(dir, STALE_PARTIAL_MS, now)) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      continue;
    }
    const entry = await verify(dir, client);
    const age = entry ? now - Date.parse(entry.installedAt) : Infinity;
    if (entry && age >= 0 && age < CLIENT_MAX_AGE_MS) found.push(entry);
    else if (entry ? age >= REMOVE_AFTER_MS : await olderThan(dir, REMOVE_AFTER_MS, now))
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return found.sort((a, b) => b.installedAt.localeCompare(a.installedAt))[0];
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
  await mkdir(keyDir, { recursive: true });
  const partial = await mkdtemp(path.join(keyDir, PARTIAL));
  try {
    const failed = await install(partial);
    if (failed !== undefined) return { failed };
    const installedAt = now().toISOString();
    const lockfileSha256 = await lockfileHash(partial);
    const marker: Marker = { package: client.package, version: client.version, installSet: client.installSet, installedAt, lockfileSha256 };
    await writeFile(path.join(partial, CLIENT_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    // Unique per install: racing runs never rename onto each other.
    const dir = path.join(keyDir, `${installedAt.replace(/[:.]/g, '-')}-${path.basename(partial).slice(PARTIAL.length)}`);
    await rename(partial, dir);
    return { entry: { dir, installedAt, lockfileSha256 } };
  } finally {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The entry as its marker describes it, if it still is that: same install set, the lockfile it was
 * installed with, and every locked package present at its locked version (a damaged entry is skipped).
 */
export async function verify(dir: string, client: CachedClient): Promise<ClientEntry | undefined> {
  try {
    const marker = JSON.parse(await readFile(path.join(dir, CLIENT_MARKER), 'utf8')) as Partial<Marker>;
    if (marker.package !== client.package || marker.version !== client.version) return undefined;
    if (JSON.stringify(sorted(marker.installSet ?? {})) !== JSON.stringify(sorted(client.installSet))) return undefined;
    if (typeof marker.installedAt !== 'string' || Number.isNaN(Date.parse(marker.installedAt))) return undefined;
    const lock = await readFile(path.join(dir, 'package-lock.json'));
    if (sha256(lock) !== marker.lockfileSha256) return undefined;
    const packages = (JSON.parse(lock.toString('utf8')) as { packages?: Record<string, { version?: string; link?: boolean }> }).packages;
    if (!packages) return undefined;
    for (const [where, locked] of Object.entries(packages)) {
      if (where === '' || locked.link || !locked.version) continue;
      const manifest = JSON.parse(await readFile(path.join(dir, where, 'package.json'), 'utf8')) as { version?: string };
      if (manifest.version !== locked.version) return undefined;
    }
    return { dir, installedAt: marker.installedAt, lockfileSha256: marker.lockfileSha256! };
  } catch {
    return undefined;
  }
}

export async function lockfileHash(dir: string): Promise<string> {
  return sha256(await readFile(path.join(dir, 'package-lock.json')));
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function sorted(set: Record<string, string>): [string, string][] {
  return Object.entries(set).sort(([a], [b]) => a.localeCompare(b));
}

async function olderThan(dir: string, ms: number, now: number): Promise<boolean> {
  const s = await stat(dir).catch(() => undefined);
  return s !== undefined && now - s.mtimeMs > ms;
}
