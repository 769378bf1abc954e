// What a cache entry held when it was stored: every file's size, time and sha256 (a symlink's target).
// Checked before use the way git checks a work tree (size and time first, a hash only when the time moved),
// so the check costs one lstat per file; `mcp-matrix cache verify` hashes every file.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The manifest's file name inside an entry. */
export const MANIFEST = '.mcp-matrix-files.json';

/** A file: [size, mtimeMs, sha256 hex]; a symlink: its target. */
export type FileRecord = [size: number, mtimeMs: number, sha256: string] | { link: string };

/** A cache entry's record of its own files. */
export interface EntryManifest {
  version: 1;
  /** Total bytes of the entry's files: the cache's size bound and `mcp-matrix cache` read it. */
  bytes: number;
  /** Entry-relative paths with `/` separators. */
  files: Record<string, FileRecord>;
}

/** An entry is what its manifest says, or the first difference found (a path relative to the entry). */
export type Check = { intact: true; bytes: number } | { intact: false; reason: string };

/** The reason given for an entry with no manifest: stored by an older mcp-matrix (replaced without a warning). */
export const UNRECORDED = 'stored before its files were recorded';

/** At most this many files are open at once while hashing or checking. */
const PARALLEL = 16;
const STREAM_ABOVE = 8 * 1024 * 1024;

/** Records every file under `dir` except the names in `skip` (the entry's own markers, written after it). */
export async function recordManifest(dir: string, skip: readonly string[] = []): Promise<EntryManifest> {
  const names = (await walk(dir, '')).filter((name) => !skip.includes(name) && name !== MANIFEST);
  const files: Record<string, FileRecord> = {};
  let bytes = 0;
  await eachLimited(names, async (name) => {
    const full = path.join(dir, name);
    const s = await lstat(full);
    if (s.isSymbolicLink()) files[name] = { link: await readlink(full) };
    else {
      files[name] = [s.size, s.mtimeMs, await sha256File(full, s.size)];
      bytes += s.size;
    }
  });
  // Sorted: the same entry always gives the same manifest.
  const ordered: Record<string, FileRecord> = {};
  for (const name of Object.keys(files).sort()) ordered[name] = files[name]!;
  return { version: 1, bytes, files: ordered };
}

/** Records the manifest and writes it into the entry. */
export async function writeManifest(dir: string, skip: readonly string[] = []): Promise<EntryManifest> {
  const manifest = await recordManifest(dir, skip);
  await writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest));
  return manifest;
}

export async function readManifest(dir: string): Promise<EntryManifest | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as Partial<EntryManifest>;
    if (parsed.version !== 1 || typeof parsed.bytes !== 'number' || typeof parsed.files !== 'object' || parsed.files === null)
      return undefined;
    return parsed as EntryManifest;
  } catch {
    return undefined;
  }
}

/** Checks the entry against its manifest; `deep` hashes every file, else only those whose time moved. */
export async function checkManifest(dir: string, options: { deep?: boolean } = {}): Promise<Check> {
  const manifest = await readManifest(dir);
  if (!manifest) return { intact: false, reason: UNRECORDED };
  let damage: string | undefined;
  await eachLimited(Object.entries(manifest.files), async ([name, record]) => {
    if (damage !== undefined) return;
    const found = await differs(path.join(dir, name), record, options.deep === true);
    if (found !== undefined) damage ??= `${name} ${found}`;
  });
  return damage === undefined ? { intact: true, bytes: manifest.bytes } : { intact: false, reason: damage };
}

/** How the file differs from its record, or undefined when it does not. */
async function differs(full: string, record: FileRecord, deep: boolean): Promise<string | undefined> {
  const s = await lstat(full).catch(() => undefined);
  if (!s) return 'is missing';
  if (!Array.isArray(record)) {
    if (!s.isSymbolicLink()) return 'is no longer a symlink';
    return (await readlink(full)) === record.link ? undefined : `links elsewhere (was ${record.link})`;
  }
  const [size, mtimeMs, hash] = record;
  if (!s.isFile()) return 'is no longer a file';
  if (s.size !== size) return `changed size (${s.size} bytes, was ${size})`;
  if (!deep && s.mtimeMs === mtimeMs) return undefined;
  return (await sha256File(full, size)) === hash ? undefined : 'changed content';
}

async function walk(dir: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const name = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(dir, name)));
    else out.push(name);
  }
  return out;
}

/** A big file (a Node binary) is streamed; the rest are read whole, which is faster for small files. */
export async function sha256File(file: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  if (size <= STREAM_ABOVE) return hash.update(await readFile(file)).digest('hex');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function eachLimited<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}
