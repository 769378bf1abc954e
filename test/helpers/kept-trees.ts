// npm installs that every test run would repeat, kept across runs in the test caches for a week (as the harness keeps
// its clients, src/cache/client-cache.ts): an install of exact versions and tarballs (by content) only, so a range is
// resolved in every run. An entry is complete or absent (renamed into place in one step). MM_TEST_TREE_CACHE=off: none.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_CACHE_ROOT } from './node-runtimes.js';

const run = promisify(execFile);

/** A kept tree is used for this long after its install. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const KEPT_TREES = join(TEST_CACHE_ROOT, 'driver-installs');

/** Whether an install of `specs` may be kept: exact versions and tarball paths only, and keeping not turned off. */
export const keepable = (specs: string[]): boolean =>
  process.env.MM_TEST_TREE_CACHE !== 'off' && specs.every((s) => existsSync(s) || /@\d+\.\d+\.\d+$/.test(s));

/** An installed tree (node_modules, manifest, lockfile) into `to`, as real copies. */
export const copyTree = (from: string, to: string) =>
  run('cp', ['-a', '--reflink=auto', join(from, 'node_modules'), join(from, 'package.json'), join(from, 'package-lock.json'), to]);

/** The kept tree of `key` when it is younger than a week. */
export function keptTree(key: string): string | undefined {
  const kept = join(KEPT_TREES, key);
  try {
    return Date.now() - statSync(join(kept, '.kept')).mtimeMs <= KEEP_MS ? kept : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a copy of the installed tree `from`: renamed into place in one step, never over another run's complete one. */
export async function keep(key: string, from: string): Promise<void> {
  mkdirSync(KEPT_TREES, { recursive: true });
  const partial = mkdtempSync(join(KEPT_TREES, `.partial-${key}-`));
  try {
    await copyTree(from, partial);
    writeFileSync(join(partial, '.kept'), new Date().toISOString());
    // A week old: replaced (no run still copies from a tree that old without having finished).
    if (!keptTree(key)) rmSync(join(KEPT_TREES, key), { recursive: true, force: true });
    renameSync(partial, join(KEPT_TREES, key));
  } catch {
    // another run kept it first, or the disk refused: the next run installs again
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}
