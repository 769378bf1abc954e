// What jiti made of each config file, kept per user, so a CLI run does not load Babel again (docs/performance.md).
// An entry is keyed by everything the transpile reads and checked by its code's sha256, so a stale transpile is
// never served; a cache that cannot be written costs one warning, never the run.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TransformOptions, TransformResult } from 'jiti';
import { turnedOff, userCacheDir } from '../cache/location.js';
import { cacheProblem, type CacheNote } from '../cache/writable.js';
import { describeInfraError } from '../util/infra.js';
import { errorMessage } from '../util/result.js';

/** Entries kept; the least recently used go first beyond this. Each is a few kB. */
export const CONFIG_CACHE_MAX_ENTRIES = 256;
const FORMAT = 1;
const SUFFIX = '.json';

export type TranspileOptions = TransformOptions;
export type TranspileResult = TransformResult;

interface Entry {
  format: number;
  key: string;
  /** The file it was made from, for `mcp-matrix cache`. */
  filename: string;
  sha256: string;
  code: string;
}

/**
 * `$MCP_MATRIX_CONFIG_CACHE` (`off`: every config transpiled on every run), else
 * `${XDG_CACHE_HOME:-~/.cache}/mcp-matrix/configs` (`%LOCALAPPDATA%\mcp-matrix\configs` on Windows).
 */
export function configCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const set = env.MCP_MATRIX_CONFIG_CACHE;
  if (turnedOff(set)) return undefined;
  return set ? path.resolve(set) : userCacheDir('configs', env, platform);
}

let jitiVersion: string | undefined;
function ownJitiVersion(): string {
  return (jitiVersion ??= (createRequire(import.meta.url)('jiti/package.json') as { version: string }).version);
}

/** The entry's name: the hash of every input of the transpile. */
export function transpileKey(options: TranspileOptions, jiti = ownJitiVersion()): string {
  return sha256(JSON.stringify([FORMAT, jiti, sortedKeys(options)]));
}

export interface TranspileCache {
  /** jiti's `transform` option: the cached code, else `transpile(options)` stored for the next run. */
  transform(options: TranspileOptions): TranspileResult;
  /** What the run should say about the cache: an entry that was damaged, a cache that could not be written. */
  notes(): CacheNote[];
}

/** `transpile` is jiti's own transform (Babel), run only on a miss. `root` undefined: no cache. */
export function transpileCache(root: string | undefined, transpile: (options: TranspileOptions) => TranspileResult): TranspileCache {
  const notes = new Map<string, string>();
  return {
    notes: () => [...notes].map(([cache, message]) => ({ cache, message })),
    transform(options) {
      if (root === undefined || options.filename === undefined) return transpile(options);
      const key = transpileKey(options);
      const file = path.join(root, key + SUFFIX);
      const found = readEntry(file, key);
      if (found.kind === 'hit') {
        touch(file);
        return { code: found.code };
      }
      if (found.kind === 'damaged') {
        try {
          rmSync(file, { force: true });
        } catch {
          // Replaced below, when the cache can be written.
        }
        notes.set(
          file,
          `the config cache entry ${path.basename(file)} in ${root} was damaged (${found.why}): it was removed, and ${options.filename} transpiled again`,
        );
      }
      const made = transpile(options);
      // jiti writes a failed transpile as code that throws: never kept (jiti's own cache skips it too).
      if (made.error === undefined && !made.code.includes('__JITI_ERROR__') && !notes.has(root)) {
        try {
          store(root, file, { format: FORMAT, key, filename: options.filename, sha256: sha256(made.code), code: made.code });
        } catch (error) {
          notes.set(root, `${cacheProblem('the config cache', root, error)}; configs are transpiled on every run instead`);
        }
      }
      return made;
    },
  };
}

type Found = { kind: 'hit'; code: string } | { kind: 'miss' } | { kind: 'damaged'; why: string };

function readEntry(file: string, key: string): Found {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { kind: 'miss' };
  }
  const read = parseEntry(text, key);
  return 'why' in read ? { kind: 'damaged', why: read.why } : { kind: 'hit', code: read.code };
}

/** An entry's code, or what is wrong with it: not an entry, another key (when given), code that is not the one recorded. */
export function parseEntry(text: string, key?: string): { code: string } | { why: string } {
  let entry: Partial<Entry>;
  try {
    entry = JSON.parse(text) as Partial<Entry>;
  } catch (error) {
    return { why: `not JSON: ${errorMessage(error)}` };
  }
  if (entry.format !== FORMAT || typeof entry.code !== 'string' || typeof entry.sha256 !== 'string')
    return { why: 'not an entry of this format' };
  if (key !== undefined && entry.key !== key) return { why: 'it holds another key' };
  if (sha256(entry.code) !== entry.sha256) return { why: 'its code is not the code recorded' };
  return { code: entry.code };
}

/** Written beside and renamed into place: a reader sees a whole entry or none. */
function store(root: string, file: string, entry: Entry): void {
  mkdirSync(root, { recursive: true });
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    writeFileSync(partial, JSON.stringify(entry));
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  prune(root);
}

function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // A read-only cache still serves its entries; only the order of removal is lost.
  }
}

/** Beyond CONFIG_CACHE_MAX_ENTRIES, the least recently used (mtime) go; a left-over partial goes after a day. */
function prune(root: string): void {
  const entries: { file: string; used: number }[] = [];
  for (const name of readdirSync(root)) {
    const file = path.join(root, name);
    const used = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (used === undefined) continue;
    if (name.endsWith('.partial')) {
      if (Date.now() - used > 86_400_000) rmSync(file, { force: true });
    } else if (name.endsWith(SUFFIX)) entries.push({ file, used });
  }
  entries.sort((a, b) => b.used - a.used);
  for (const old of entries.slice(CONFIG_CACHE_MAX_ENTRIES)) rmSync(old.file, { force: true });
}

/** The cache's entries for `mcp-matrix cache`: each file with the config it was made from. */
export function listConfigEntries(root: string): { file: string; filename: string; bytes: number; lastUsedMs: number }[] {
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.endsWith(SUFFIX));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const file = path.join(root, name);
    try {
      const s = statSync(file);
      const filename = (JSON.parse(readFileSync(file, 'utf8')) as Partial<Entry>).filename;
      return [{ file, filename: typeof filename === 'string' ? filename : '?', bytes: s.size, lastUsedMs: s.mtimeMs }];
    } catch (error) {
      return [{ file, filename: `unreadable: ${describeInfraError(error) ?? errorMessage(error)}`, bytes: 0, lastUsedMs: 0 }];
    }
  });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys in order, so the same options always give the same key. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}
