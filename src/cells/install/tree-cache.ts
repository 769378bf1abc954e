// Pristine npm trees kept per user for install reuse (reuse-install.ts): a cell's node_modules less the
// package under test, captured before any server ran, keyed by npm's own resolution (tree-key.ts), handed out
// only as a real copy or a handed-back tree (tree-return.ts), checked file by file. Entries never change.
import { execFile } from 'node:child_process';
import { cpSync, constants as fsConstants, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { entryName, PARTIAL, sweepIfStale, touchMarker } from '../../cache/entry-dirs.js';
import { turnedOff, userCacheDir } from '../../cache/location.js';
import { sha256 } from '../../util/sha256.js';
import { markCell } from '../../util/marks.js';

const exec = promisify(execFile);
/** Written last inside an entry before it is renamed into place: a dir with it is complete. */
export const TREE_MARKER = '.mcp-matrix-tree.json';
/** Entries kept; the least recently used go first beyond this. */
export const TREE_MAX_ENTRIES = 24;

/** One file of a tree: a regular file with its hash and mode, or a symlink with its target. */
export type TreeFile = { path: string; sha256: string; mode: number } | { path: string; link: string };

interface Marker {
  key: string;
  createdAt: string;
  files: TreeFile[];
}

/**
 * `$MCP_MATRIX_TREE_CACHE` (`off`: every cell is a plain npm install), else
 * `${XDG_CACHE_HOME:-~/.cache}/mcp-matrix/trees` (`%LOCALAPPDATA%\mcp-matrix\trees` on Windows).
 */
export function treeCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const set = env.MCP_MATRIX_TREE_CACHE;
  if (turnedOff(set)) return undefined;
  return set ? path.resolve(set) : userCacheDir('trees', env, platform);
}

/** The newest complete entry of `key` (its marker read, its files not yet checked), or undefined. */
export async function findTree(root: string, key: string, now = Date.now()): Promise<string | undefined> {
  const keyDir = path.join(root, key);
  const names = (await readdir(keyDir).catch(() => [] as string[])).sort().reverse();
  for (const name of names) {
    const dir = path.join(keyDir, name);
    if (name.startsWith(PARTIAL)) {
      await sweepIfStale(dir, now);
      continue;
    }
    const marker = await readMarker(dir);
    if (marker?.key === key) return dir;
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return undefined;
}

/**
 * Copies the entry's node_modules into `cellDir` and checks the copy against the entry's hashes: undefined when
 * the cell now holds exactly the recorded tree, else why not (the copy is then removed).
 */
export function copyTree(entry: string, cellDir: string): Promise<string | undefined> {
  return copyTreeTo(entry, path.join(cellDir, 'node_modules'), cellDir);
}

/** copyTree into `to` (a node_modules of `cellDir`'s, or a staging place inside it that is renamed into place). */
export async function copyTreeTo(entry: string, to: string, cellDir: string): Promise<string | undefined> {
  const marker = await readMarker(entry);
  if (!marker) return 'the entry has no readable marker';
  await mkdir(path.dirname(to), { recursive: true });
  await copyDir(path.join(entry, 'node_modules'), to);
  markCell(cellDir, 'copied');
  const problem = await differs(to, marker.files);
  markCell(cellDir, 'tree-checked');
  if (problem) {
    await rm(to, { recursive: true, force: true });
    return problem;
  }
  // Least recently used goes first: a use counts.
  await touchMarker(entry, TREE_MARKER);
  return undefined;
}

/**
 * A new entry of `key` from `cellDir`'s node_modules (as npm left it, before any server ran), without
 * `drop` (the package under test's directory and bin links) and npm's hidden lockfile, which names it.
 */
export async function storeTree(root: string, key: string, cellDir: string, drop: string[]): Promise<string> {
  const keyDir = path.join(root, key);
  await mkdir(keyDir, { recursive: true });
  const partial = await mkdtemp(path.join(keyDir, PARTIAL));
  try {
    const modules = path.join(partial, 'node_modules');
    await copyDir(path.join(cellDir, 'node_modules'), modules);
    for (const rel of [...drop, '.package-lock.json']) await rm(path.join(modules, rel), { recursive: true, force: true });
    const createdAt = new Date().toISOString();
    const marker: Marker = { key, createdAt, files: await listTree(modules) };
    await writeFile(path.join(partial, TREE_MARKER), `${JSON.stringify(marker)}\n`);
    const dir = path.join(keyDir, entryName(createdAt, partial));
    await rename(partial, dir);
    await prune(root).catch(() => undefined);
    return dir;
  } finally {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Removes an entry found damaged, so the next run stores a good one. */
export async function dropTree(entry: string): Promise<void> {
  await rm(entry, { recursive: true, force: true }).catch(() => undefined);
}

/**
 * Every file and symlink under `dir` (sorted paths, `/`-separated), with hashes and modes (and into `dirs`, when
 * given, every directory's path). A directory at a time
 * with synchronous reads, the event loop given back between directories: a tree of ~3,700 files is ~0.12 CPU-s
 * this way and ~0.35–0.48 through fs/promises (a promise, a FileHandle and four thread-pool trips per file).
 */
export async function listTree(dir: string, dirs?: string[]): Promise<TreeFile[]> {
  const out: TreeFile[] = [];
  const pending: [string, string][] = [[dir, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [abs, rel] = next;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const a = path.join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        pending.push([a, r]);
        dirs?.push(r);
      } else if (e.isSymbolicLink()) out.push({ path: r, link: readlinkSync(a) });
      else if (e.isFile()) out.push({ path: r, sha256: sha256(readFileSync(a)), mode: lstatSync(a).mode & 0o777 });
      else throw new Error(`${a}: neither a file, a directory nor a symlink`);
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function differs(dir: string, files: TreeFile[]): Promise<string | undefined> {
  return treeDifference(files, await listTree(dir));
}

/**
 * The first way the tree `now` differs from the `recorded` one (a cell's copy, or `mcp-matrix cache verify`'s
 * entry): a file not recorded, a file `changed` (its hash, mode or link), or a recorded file missing.
 */
export function treeDifference(recorded: TreeFile[], now: TreeFile[], changed = 'differs from the recorded tree'): string | undefined {
  const want = new Map(recorded.map((f) => [f.path, JSON.stringify(f)]));
  for (const f of now) {
    const w = want.get(f.path);
    if (w === undefined) return `node_modules/${f.path} is not in the recorded tree`;
    if (w !== JSON.stringify(f)) return `node_modules/${f.path} ${changed}`;
    want.delete(f.path);
  }
  const [missing] = want.keys();
  return missing === undefined ? undefined : `node_modules/${missing} is missing`;
}

/** A real copy: `cp` reflinks where the file system can (never a hard link); Node's copy elsewhere. */
async function copyDir(from: string, to: string): Promise<void> {
  if (process.platform === 'linux') {
    try {
      await exec('cp', ['-a', '--reflink=auto', from, to]);
      return;
    } catch {
      await rm(to, { recursive: true, force: true });
    }
  }
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, mode: fsConstants.COPYFILE_FICLONE });
}

/** The files an entry's marker recorded, or undefined when it has no readable marker. */
export async function entryFiles(entry: string): Promise<TreeFile[] | undefined> {
  return (await readMarker(entry))?.files;
}

async function readMarker(dir: string): Promise<Marker | undefined> {
  try {
    const m = JSON.parse(await readFile(path.join(dir, TREE_MARKER), 'utf8')) as Partial<Marker>;
    return typeof m.key === 'string' && Array.isArray(m.files) ? (m as Marker) : undefined;
  } catch {
    return undefined;
  }
}

/** Beyond TREE_MAX_ENTRIES complete entries, the least recently used (marker mtime) are removed. */
async function prune(root: string): Promise<void> {
  const entries: { dir: string; used: number }[] = [];
  for (const key of await readdir(root)) {
    for (const name of await readdir(path.join(root, key)).catch(() => [] as string[])) {
      if (name.startsWith(PARTIAL)) continue;
      const s = await stat(path.join(root, key, name, TREE_MARKER)).catch(() => undefined);
      if (s) entries.push({ dir: path.join(root, key, name), used: s.mtimeMs });
    }
  }
  entries.sort((a, b) => b.used - a.used);
  for (const old of entries.slice(TREE_MAX_ENTRIES)) await dropTree(old.dir);
}
