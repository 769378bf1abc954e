// The size bound of a harness cache: after a new entry, entries go least recently used first until the cache
// fits MCP_MATRIX_CACHE_LIMIT (2G by default, `off` for none). An entry used in the last six hours may belong
// to a run still going: it stays.
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { readManifest } from './manifest.js';

export const DEFAULT_CACHE_LIMIT = 2 * 1024 ** 3;
/** No run lasts this long: an entry not used for this long is not in use. */
export const IN_USE_MS = 6 * 60 * 60 * 1000;

/** An entry as the bound sees it: its size and when it was last used. */
export interface SizedEntry {
  dir: string;
  bytes: number;
  lastUsedMs: number;
}

/** The limit in bytes; undefined: no limit. An unreadable value is the default (the cache stays bounded). */
export function cacheLimit(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const set = env.MCP_MATRIX_CACHE_LIMIT?.trim();
  if (!set) return DEFAULT_CACHE_LIMIT;
  if (set.toLowerCase() === 'off') return undefined;
  return parseSize(set) ?? DEFAULT_CACHE_LIMIT;
}

/** `500M`, `2G`, `1.5GiB`, `1048576`: bytes, powers of 1024. */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (!m) return undefined;
  const power = ['', 'k', 'm', 'g', 't'].indexOf(m[2]!.toLowerCase());
  return Math.floor(Number(m[1]) * 1024 ** power);
}

/** Which entries go, least recently used first, so the rest fit `limit`; never `keep`, never one in use. */
export function toEvict(entries: readonly SizedEntry[], limit: number, now: number, keep?: string): SizedEntry[] {
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const out: SizedEntry[] = [];
  for (const e of [...entries].sort((a, b) => a.lastUsedMs - b.lastUsedMs)) {
    if (total <= limit) break;
    if (e.dir === keep || now - e.lastUsedMs < IN_USE_MS) continue;
    out.push(e);
    total -= e.bytes;
  }
  return out;
}

/** Removes what toEvict chose: one rename aside (no run sees half an entry), then the removal. */
export async function evict(entries: readonly SizedEntry[], limit: number | undefined, aside: (dir: string) => string, keep?: string) {
  if (limit === undefined) return [];
  const gone = toEvict(entries, limit, Date.now(), keep);
  for (const e of gone) await removeAside(e.dir, aside(e.dir));
  return gone;
}

export async function removeAside(dir: string, aside: string): Promise<void> {
  try {
    await rename(dir, aside);
  } catch {
    return; // another run moved it first, or the cache is read-only
  }
  await rm(aside, { recursive: true, force: true }).catch(() => undefined);
}

/** The entry's size: its manifest's total, else the files counted now (an entry stored before manifests). */
export async function entryBytes(dir: string): Promise<number> {
  const manifest = await readManifest(dir);
  return manifest ? manifest.bytes : duBytes(dir);
}

export async function duBytes(dir: string): Promise<number> {
  let bytes = 0;
  const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of names) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) bytes += await duBytes(full);
    else bytes += (await lstat(full).catch(() => undefined))?.size ?? 0;
  }
  return bytes;
}
