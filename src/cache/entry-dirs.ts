// The directories of a harness cache's entries, as every cache (clients, Node runtimes, trees) lays them out
// so that racing runs never see half an entry: a new entry is filled under a PARTIAL name and renamed into
// place in one step; its marker, touched on each use, says when it was last used.
import { stat, rm, utimes } from 'node:fs/promises';
import path from 'node:path';

/** The prefix of an entry still being filled (or moved aside to be removed): never an entry. */
export const PARTIAL = '.partial-';
/** A partial entry older than this belongs to a run that died. */
export const STALE_PARTIAL_MS = 6 * 60 * 60 * 1000;

/** Removes a partial entry left by a run that died (older than STALE_PARTIAL_MS at `now`); a live run's stays. */
export async function sweepIfStale(dir: string, now: number): Promise<void> {
  const s = await stat(dir).catch(() => undefined);
  if (s && now - s.mtimeMs > STALE_PARTIAL_MS) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/** A complete entry's name: when it was stored, then its partial's unique suffix (racing runs never rename onto each other). */
export function entryName(storedAt: string, partial: string): string {
  return `${storedAt.replace(/[:.]/g, '-')}-${path.basename(partial).slice(PARTIAL.length)}`;
}

/** The entry was used now: its marker's time (a read-only cache is used all the same). */
export async function touchMarker(dir: string, marker: string, at = new Date()): Promise<void> {
  await utimes(path.join(dir, marker), at, at).catch(() => undefined);
}

/** When the entry was last used: its marker's time, else the directory's, else 0. */
export async function lastUsedMs(dir: string, marker: string): Promise<number> {
  const s = await stat(path.join(dir, marker))
    .catch(() => stat(dir))
    .catch(() => undefined);
  return s?.mtimeMs ?? 0;
}
