// Pristine npm trees kept in a per-user cache, for install reuse (reuse-install.ts). An entry is the
// node_modules npm made for a cell, less the package under test, captured before any server ran, with the
// sha256 of every file. It is found by a key made of npm's own resolution (the lockfile minus the package
// under test) and the things besides the lockfile that shape npm's layout, and it is handed to a cell only as
// a real copy (a reflink where the file system has one), checked file by file against the recorded hashes.
// Entries are never changed once complete: a new one is written beside and renamed into place in one step.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, constants as fsConstants } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
/** Written last inside an entry before it is renamed into place: a dir with it is complete. */
export const TREE_MARKER = '.mcp-matrix-tree.json';
const PARTIAL = '.partial-';
/** Entries kept; the least recently used go first beyond this. */
export const TREE_MAX_ENTRIES = 24;
const STALE_PARTIAL_MS = 6 * 60 * 60 * 1000;

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
  if (set !== undefined && set.trim().toLowerCase() === 'off') return undefined;
  if (set) return path.resolve(set);
  if (platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'mcp-matrix', 'trees');
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mcp-matrix', 'trees');
}

/** The newest complete entry of `key` (its marker read, its files not yet checked), or undefined. */
export async function findTree(root: string, key: string, now = Date.now()): Promise<string | undefined> {
  const keyDir = path.join(root, key);
  const names = (await readdir(keyDir).catch(() => [] as string[])).sort().reverse();
  for (const name of names) {
    const dir = path.join(keyDir, name);
    if (name.startsWith(PARTIAL)) {
      const s = await stat(dir).catch(() => undefined);
      if (s && now - s.mtimeMs > STALE_PARTIAL_MS) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
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
export async function copyTree(entry: string, cellDir: string): Promise<string | undefined> {
  const marker = await readMarker(entry);
  if (!marker) return 'the entry has no readable marker';
  const to = path.join(cellDir, 'node_modules');
  await copyDir(path.join(entry, 'node_modules'), to);
  const problem = await differs(to, marker.files);
  if (problem) {
    await rm(to, { recursive: true, force: true });
    return problem;
  }
  // Least recently used goes first: a use counts.
  const t = new Date();
  await utimes(path.join(entry, TREE_MARKER), t, t).catch(() => undefined);
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
    const dir = path.join(keyDir, `${createdAt.replace(/[:.]/g, '-')}-${path.basename(partial).slice(PARTIAL.length)}`);
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

/** Every file and symlink under `dir` (sorted paths, `/`-separated), with hashes and modes. */
export async function listTree(dir: string): Promise<TreeFile[]> {
  const out: TreeFile[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const e of await readdir(abs, { withFileTypes: true })) {
      const a = path.join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(a, r);
      else if (e.isSymbolicLink()) out.push({ path: r, link: await readlink(a) });
      else if (e.isFile()) out.push({ path: r, sha256: sha256(await readFile(a)), mode: (await lstat(a)).mode & 0o777 });
      else throw new Error(`${a}: neither a file, a directory nor a symlink`);
    }
  };
  await walk(dir, '');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function differs(dir: string, files: TreeFile[]): Promise<string | undefined> {
  const now = await listTree(dir);
  const want = new Map(files.map((f) => [f.path, f]));
  for (const f of now) {
    const w = want.get(f.path);
    if (!w) return `node_modules/${f.path} is not in the recorded tree`;
    if (JSON.stringify(w) !== JSON.stringify(f)) return `node_modules/${f.path} differs from the recorded tree`;
    want.delete(f.path);
  }
  const missing = want.keys().next();
  return missing.done ? undefined : `node_modules/${missing.value} is missing`;
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

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
