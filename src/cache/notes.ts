// The run's warnings about its caches, gathered from every install that used one: one line per cache (a
// read-only cache met by four clients is said once), in the order they were first met.
import type { Result } from '../util/result.js';
import type { CacheNote } from './writable.js';

export interface CacheNotes {
  /** Passes the install's result through, keeping what it says about the caches. */
  take<T extends { cacheNotes?: CacheNote[] | undefined }>(install: Promise<Result<T>>): Promise<Result<T>>;
  /** The warnings, one per cache. */
  lines(): string[];
}

export function cacheNotes(): CacheNotes {
  const byCache = new Map<string, string>();
  return {
    async take(install) {
      const r = await install;
      for (const note of (r.ok ? r.value.cacheNotes : undefined) ?? []) if (!byCache.has(note.cache)) byCache.set(note.cache, note.message);
      return r;
    },
    lines: () => [...byCache.values()],
  };
}
