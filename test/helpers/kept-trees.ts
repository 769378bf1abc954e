// npm installs that every test run would repeat, kept across runs in the test caches for a week (as the harness keeps
// its clients, src/cache/client-cache.ts): an install of exact versions and tarballs (by content) only, so a range is
// resolved in every run. An entry is complete or absent (renamed into place in one step). MM_TEST_TREE_CACHE=off: none.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_CACHE_ROOT } from './node-runtimes.js';

const run = promisify(execFile);

/** A kept tree is used for this long after its install. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * ...and replaced only this long after: a run that took it just before the week was over (another vitest run on this
 * machine) may still be copying from it, and a removal under its feet would fail that run's files.
 */
const REPLACE_MS = KEEP_MS + 60 * 60 * 1000;
const KEPT_TREES = join(TEST_CACHE_ROOT, 'driver-installs');

/** Whether an install of `specs` may be kept: exact versions and tarball paths only, and keeping not turned off. */
export const keepable = (specs: string[]): boolean =>
  process.env.MM_TEST_TREE_CACHE !== 'off' && specs.every((s) => existsSync(s) || /@\d+\.\d+\.\d+$/.test(s));

/** An installed tree (node_modules, manifest, lockfile) into `to`, as real copies. */
export const copyTree = (from: string, to: string) =>
  run('cp', ['-a', '--reflink=auto', join(from, 'node_modules'), join(from, 'package.json'), join(from, 'package-lock.json'), to]);

/** The kept tree of `key` when it is younger than a week. */
export function keptTree(key: string): string | undefined {
  return keptAt(join(KEPT_TREES, key));
}

function keptAt(kept: string): string | undefined {
  return ageOf(kept) <= KEEP_MS ? kept : undefined;
}

/** How long ago the entry at `kept` was kept (Infinity: none there, or no marker). */
function ageOf(kept: string): number {
  try {
    return Date.now() - statSync(join(kept, '.kept')).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** Removes the entry at `kept` when nothing may still be copying from it (see REPLACE_MS). */
function removeIfReplaceable(kept: string): void {
  if (ageOf(kept) > REPLACE_MS) rmSync(kept, { recursive: true, force: true });
}

/** A kept build output (`kind`: its folder in the test caches) of `key`, younger than a week; undefined when keeping is off. */
export function keptDir(kind: string, key: string): string | undefined {
  return process.env.MM_TEST_TREE_CACHE === 'off' ? undefined : keptAt(join(TEST_CACHE_ROOT, kind, key));
}

/** Keeps a copy of `from` as `kind`'s entry `key`, renamed into place in one step (the marker `.kept` is its own file). */
export function keepDir(kind: string, key: string, from: string): void {
  if (process.env.MM_TEST_TREE_CACHE === 'off') return;
  const root = join(TEST_CACHE_ROOT, kind);
  mkdirSync(root, { recursive: true });
  const partial = mkdtempSync(join(root, `.partial-${key}-`));
  try {
    cpSync(from, partial, { recursive: true });
    writeFileSync(join(partial, '.kept'), new Date().toISOString());
    removeIfReplaceable(join(root, key));
    renameSync(partial, join(root, key));
  } catch {
    // another run kept it first, or the disk refused: the next run builds again
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/** Keeps a copy of the installed tree `from`: renamed into place in one step, never over another run's complete one. */
export async function keep(key: string, from: string): Promise<void> {
  mkdirSync(KEPT_TREES, { recursive: true });
  const partial = mkdtempSync(join(KEPT_TREES, `.partial-${key}-`));
  try {
    await copyTree(from, partial);
    writeFileSync(join(partial, '.kept'), new Date().toISOString());
    // Over a week and an hour old: replaced (a rename over a tree still there fails, and the next run installs again).
    removeIfReplaceable(join(KEPT_TREES, key));
    renameSync(partial, join(KEPT_TREES, key));
  } catch {
    // another run kept it first, or the disk refused: the next run installs again
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}
