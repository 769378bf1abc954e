// The edit loop's tree (issue 34): at a run's end a cell's node_modules, less the package under test, goes back
// to the tree cache instead of being removed, and the next swap of that tree takes it instead of a new copy, once
// it is checked again against the entry's record (hashes, modes, links, directories): one a server wrote into is not.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { touchMarker } from '../../cache/entry-dirs.js';
import { errorMessage } from '../../util/result.js';
import { entryFiles, listTree, TREE_MARKER, treeDifference } from './tree-cache.js';

/** The directory of the tree cache's root where handed-back trees wait, one directory per key. */
export const RETURNED = '.returned';
/** Handed-back trees kept in all (one per key at most); the oldest go first beyond this. */
export const RETURNED_MAX = 8;

/** A cell's tree that may go back: the cache it came from, the key of its entry, the package under test's paths. */
export interface Returnable {
  root: string;
  key: string;
  /** The package under test's directory and bin links (tree-key.ts), taken out before the tree goes back. */
  drop: string[];
}

/**
 * The cell's node_modules, less the package under test and npm's hidden lockfile, moved into the cache (one
 * rename). Only when nothing of the run can still write into it: after its processes are gone. False when it
 * could not be (another file system, a cache that cannot be written): the cell's removal then takes it.
 */
export async function handBack(cellDir: string, tree: Returnable): Promise<boolean> {
  const modules = path.join(cellDir, 'node_modules');
  try {
    for (const rel of [...tree.drop, '.package-lock.json']) await rm(path.join(modules, rel), { recursive: true, force: true });
    const keyDir = path.join(tree.root, RETURNED, tree.key);
    await mkdir(keyDir, { recursive: true });
    const name = `${String(Date.now()).padStart(15, '0')}-${randomBytes(4).toString('hex')}`;
    await rename(modules, path.join(keyDir, name));
    await bound(tree.root, `${tree.key}/${name}`).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

/**
 * A handed-back tree of `key` moved into the cell's node_modules when it is exactly the entry's tree; true then.
 * Each is claimed by a rename (two runs never take the same one) and checked in place; one that differs is moved
 * into the cell's `.mcp-matrix/` (removed with the cell) and the next is tried. False: copy the entry.
 */
export async function claimReturned(root: string, key: string, entry: string, cellDir: string): Promise<boolean> {
  const keyDir = path.join(root, RETURNED, key);
  const names = (await readdir(keyDir).catch(() => [] as string[])).sort().reverse();
  if (names.length === 0) return false;
  if (!(await entryFiles(entry))) return false;
  const modules = path.join(cellDir, 'node_modules');
  for (const name of names) {
    if (
      !(await rename(path.join(keyDir, name), modules).then(
        () => true,
        () => false,
      ))
    )
      continue;
    if ((await returnedDifference(modules, entry)) === undefined) {
      await touchMarker(entry, TREE_MARKER);
      return true;
    }
    const aside = path.join(cellDir, '.mcp-matrix', `returned-${name}`);
    await mkdir(path.dirname(aside), { recursive: true });
    await rename(modules, aside).catch(() => rm(modules, { recursive: true, force: true }));
  }
  return false;
}

/**
 * How a handed-back tree (`modules`) differs from the entry's (`changed`: a file's hash, mode or link), or undefined
 * when it is the entry's exactly: every file and link, and every directory, even an empty one a server made.
 */
export async function returnedDifference(modules: string, entry: string, changed?: string): Promise<string | undefined> {
  const files = await entryFiles(entry);
  if (!files) return `its entry ${path.basename(entry)} has no readable ${TREE_MARKER}`;
  const dirs: string[] = [];
  return listTree(modules, dirs).then(
    (now) => treeDifference(files, now, changed) ?? sameDirs(dirs, path.join(entry, 'node_modules')),
    (error: unknown) => errorMessage(error),
  );
}

/** Why the tree's directories are not the entry's (a directory a server made, even an empty one), or undefined. */
function sameDirs(dirs: string[], entryModules: string): string | undefined {
  const want = new Set(dirsUnder(entryModules));
  for (const d of dirs) if (!want.delete(d)) return `node_modules/${d}/ is not in the recorded tree`;
  const [missing] = want;
  return missing === undefined ? undefined : `node_modules/${missing}/ is missing`;
}

function dirsUnder(dir: string): string[] {
  const out: string[] = [];
  const pending: [string, string][] = [[dir, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [abs, rel] = next;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      pending.push([path.join(abs, e.name), r]);
    }
  }
  return out;
}

/** One handed-back tree per key (the newest, `kept`) and RETURNED_MAX in all; the rest removed. */
async function bound(root: string, kept: string): Promise<void> {
  const base = path.join(root, RETURNED);
  const all: { rel: string; name: string }[] = [];
  for (const key of await readdir(base)) {
    // What a run that died while removing left.
    if (key.startsWith('.drop-')) {
      await rm(path.join(base, key), { recursive: true, force: true });
      continue;
    }
    for (const name of await readdir(path.join(base, key)).catch(() => [] as string[])) all.push({ rel: `${key}/${name}`, name });
  }
  const keyOf = (rel: string) => rel.slice(0, rel.indexOf('/'));
  const newest = all.sort((a, b) => (a.name < b.name ? 1 : -1));
  const seen = new Set<string>([keyOf(kept)]);
  let count = 1;
  for (const t of newest) {
    if (t.rel === kept) continue;
    const key = keyOf(t.rel);
    if (!seen.has(key) && count < RETURNED_MAX) {
      seen.add(key);
      count++;
      continue;
    }
    // Renamed out of the key's directory first: no run claims half of a tree being removed.
    const doomed = path.join(base, `.drop-${randomBytes(4).toString('hex')}`);
    if (
      await rename(path.join(base, t.rel), doomed).then(
        () => true,
        () => false,
      )
    )
      await rm(doomed, { recursive: true, force: true });
  }
}
