// A cell's install, reusing a pristine tree when npm resolves the same one now (docs/performance.md, "Install reuse").
// Any cache problem ends in npm's own install, because the cache must never fail a cell.
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InstallSourceRef } from '../../results/types.js';
import { cacheProblem, realMkdirError, type CacheNote } from '../../cache/writable.js';
import { installCell, type InstallOptions, type InstallOutcome } from '../../npm/install.js';
import { contextKey, treeKey } from './tree-key.js';
import { copyTree, copyTreeTo, dropTree, findTree, storeTree } from './tree-cache.js';
import { sha256 } from '../../util/sha256.js';
import { errorMessage } from '../../util/result.js';
import { markCell } from '../../util/marks.js';
import { packageIdentity, readRecord, recordFile, writeRecord } from './resolution-record.js';
import { stagePackage, stagingDir, swapBlocker, swapPackage, type Staged } from './package-swap.js';
import { claimReturned, type Returnable } from './tree-return.js';

export interface ReuseOptions extends InstallOptions {
  packageName: string;
  npmVersion: string;
  /** The tree cache's root; undefined: a plain npm install (--fresh, `install.reuse: false`, MCP_MATRIX_TREE_CACHE=off). */
  treeCache: string | undefined;
  /** The cell's pins: with the package's name, what the hint of the tree used last is kept by (absent: no hint). */
  installSet?: Record<string, string>;
  /**
   * The reuse window (absent or `ms` 0: npm resolves now): npm's resolution of a cell of the same package, pins and
   * npm context, recorded less than `ms` ago, is reused with its tree, and this run's tarball swapped in.
   */
  window?: ReuseWindow;
}

export interface ReuseWindow {
  ms: number;
  /** This run's tarball and its packed sha512. */
  tarball: { file: string; sha512: string };
  /** More of what can change the tree (the source directory's lockfiles' digest). */
  identityExtra?: string;
  /** The clock (tests move it). */
  now?: () => number;
}

/** Where a record is written after npm resolved (absent: none is). */
interface Recording {
  file: string;
  resolvedAt: number;
  staged: Extract<Staged, { ok: true }>;
}

/** A hint's file name starts so: a file at the cache's root, never a key's directory. */
export const HINT_PREFIX = '.hint-';

/** Where the key of the tree a cell of `packageName` on `installSet` used last is kept: a guess, never trusted. */
export function hintFile(root: string, context: string, packageName: string, installSet: Record<string, string>): string {
  return path.join(root, `${HINT_PREFIX}${sha256(JSON.stringify([context, packageName, installSet])).slice(0, 20)}`);
}

/** The entry the hint names (its marker read, its files not yet checked), or undefined. */
async function hintedEntry(root: string, hint: string): Promise<string | undefined> {
  const key = (await readFile(hint, 'utf8').catch(() => '')).trim();
  return /^[0-9a-f]{12}-[0-9a-f]{20}$/.test(key) ? findTree(root, key) : undefined;
}

async function writeHint(hint: string | undefined, key: string): Promise<void> {
  if (!hint) return;
  if ((await readFile(hint, 'utf8').catch(() => '')) !== key) await writeFile(hint, key).catch(() => undefined);
}

export interface ReuseOutcome {
  install: InstallOutcome;
  source: InstallSourceRef;
  /** The tree cache could not be written: the run's warnings say so, once. */
  cacheNote?: CacheNote;
  /** The cell's tree is an entry's: it may go back to the cache at the run's end (tree-return.ts). */
  returnable?: Returnable;
}

export async function installReusing(cellDir: string, options: ReuseOptions): Promise<ReuseOutcome> {
  const root = options.treeCache;
  if (root === undefined) return { install: await installCell(cellDir, options), source: { source: 'npm', reason: 'reuse is off' } };
  const started = performance.now();
  // The cell's install time is all of it: resolution, copy and npm. A tree goes back to the cache only for a run
  // with the window (CI, `--plan` and `--fresh` never take one back).
  const windowed = (options.window?.ms ?? 0) > 0;
  const since = ({ returnable, ...o }: ReuseOutcome): ReuseOutcome => ({
    ...o,
    ...(returnable && windowed ? { returnable } : {}),
    install: { ...o.install, durationMs: Math.round(performance.now() - started) },
  });
  const context = contextKey(options.npmVersion, options.env);
  try {
    const recorded = await fromRecord(cellDir, options, root, context);
    if ('outcome' in recorded) return since(recorded.outcome);
    return await resolving(cellDir, { ...options, ...(recorded.recording ? { recording: recorded.recording } : {}) }, root, context, since);
  } finally {
    await rm(stagingDir(cellDir), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The cell from a fresh record (its tree copied and checked, the tarball swapped in), or where to record npm's resolution. */
async function fromRecord(
  cellDir: string,
  options: ReuseOptions,
  root: string,
  context: string,
): Promise<{ outcome: ReuseOutcome } | { recording?: Recording }> {
  const window = options.window;
  if (!window || window.ms <= 0 || !options.installSet) return {};
  const now = window.now?.() ?? Date.now();
  const staged = await stagePackage(window.tarball.file, cellDir).catch(() => undefined);
  if (!staged?.ok) return {};
  const file = recordFile(root, context, packageIdentity(staged.manifest, staged.shrinkwrap, window.identityExtra), options.installSet);
  const recording: Recording = { file, resolvedAt: now, staged };
  const read = await readRecord(file, window.ms, now);
  if (read.kind !== 'fresh' || swapBlocker(staged, options.packageName, read.record.lockfile)) return { recording };
  const entry = await findTree(root, read.record.key).catch(() => undefined);
  if (!entry) return { recording };
  markCell(cellDir, 'record-found');
  // The tree a cell of this key handed back (tree-return.ts), checked file by file, else a copy of the entry.
  const claimed = await claimReturned(root, read.record.key, entry, cellDir).catch(() => false);
  markCell(cellDir, claimed ? 'returned-claimed' : 'returned-none');
  // A copy that differs from the entry's record is a damaged entry; one that failed (the cell's disk full, say) is not.
  const copied = claimed
    ? { damaged: undefined }
    : await copyTree(entry, cellDir).then(
        (damaged) => ({ damaged }),
        () => undefined,
      );
  if (!copied || copied.damaged) {
    if (copied?.damaged) await dropTree(entry);
    await clean(cellDir);
    return { recording };
  }
  const started = performance.now();
  const refused = await swapPackage({
    cellDir,
    packageName: options.packageName,
    staged,
    lockText: read.record.lockfile,
    tarball: window.tarball,
  }).catch((error: unknown) => errorMessage(error));
  markCell(cellDir, 'swapped');
  if (refused) {
    await clean(cellDir);
    return {};
  }
  const lockfileSha256 = sha256(await readFile(path.join(cellDir, 'package-lock.json')));
  const resolvedAt = new Date(now - read.ageMs).toISOString();
  const key = treeKey(read.record.lockfile, options.packageName, context);
  return {
    outcome: {
      install: { kind: 'installed', attempts: 1, durationMs: Math.round(performance.now() - started) },
      source: { source: 'reused', lockfileSha256, entry: path.relative(root, entry), resolvedAt, ageMs: read.ageMs, swapped: true },
      ...(key.ok ? { returnable: { root, key: read.record.key, drop: key.drop } } : {}),
    },
  };
}

/** npm resolves now (the tree reused when it is one stored), and what it resolved is recorded for the window. */
async function resolving(
  cellDir: string,
  options: ReuseOptions & { recording?: Recording },
  root: string,
  context: string,
  since: (o: ReuseOutcome) => ReuseOutcome,
): Promise<ReuseOutcome> {
  // Nothing stored for this npm, Node and configuration yet: resolving first would only cost.
  const known = (await readdir(root).catch(() => [] as string[])).some((n) => n.startsWith(`${context}-`));
  const hint = options.installSet && hintFile(root, context, options.packageName, options.installSet);
  if (!known) return since(await plainAndStore(cellDir, options, root, context, 'no tree stored yet', hint));
  const resolution = installCell(cellDir, { ...options, args: ['--package-lock-only'] });
  // The guess's copy goes beside the cell (npm reads nothing there) and is renamed into place when it is right.
  const staging = path.join(cellDir, '.mcp-matrix', 'tree');
  const guessed = hint ? await hintedEntry(root, hint).catch(() => undefined) : undefined;
  let prefetch: Promise<string | undefined> | undefined;
  if (guessed) {
    markCell(cellDir, 'prefetch-start');
    prefetch = copyTreeTo(guessed, path.join(staging, 'node_modules'), cellDir);
    // A copy that throws is the cache's problem, said where the copy is used (as copyTree's is); never unhandled.
    prefetch.catch(() => undefined);
  }
  // Every way out waits for the guess's copy and removes what is left of it: nothing outlives the install.
  const discard = async (): Promise<void> => {
    if (!prefetch) return;
    await prefetch.catch(() => undefined);
    prefetch = undefined;
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    return await resolveAndReuse(resolution, cellDir, options, root, context, hint, guessed, () => prefetch, discard, since);
  } finally {
    await discard();
  }
}

async function resolveAndReuse(
  resolving: Promise<InstallOutcome>,
  cellDir: string,
  options: ReuseOptions & { recording?: Recording },
  root: string,
  context: string,
  hint: string | undefined,
  guessed: string | undefined,
  prefetched: () => Promise<string | undefined> | undefined,
  discard: () => Promise<void>,
  since: (o: ReuseOutcome) => ReuseOutcome,
): Promise<ReuseOutcome> {
  const resolved = await resolving;
  markCell(cellDir, 'resolve-end');
  // The registry or the network failing (retried as an install is): npm's own install would meet the same.
  if (resolved.kind !== 'installed') await discard();
  if (resolved.kind === 'not-measured' && !resolved.cause)
    return { install: resolved, source: { source: 'npm', reason: 'npm could not resolve the tree' } };
  if (resolved.kind !== 'installed') {
    // npm's own install reports the failure as it always has.
    await rm(path.join(cellDir, 'package-lock.json'), { force: true });
    return since(await plainAndStore(cellDir, options, root, context, 'npm could not resolve the tree'));
  }
  let reason = 'no stored tree matches what npm resolved';
  try {
    const lock = await readFile(path.join(cellDir, 'package-lock.json'), 'utf8');
    const key = treeKey(lock, options.packageName, context);
    const entry = key.ok ? await findTree(root, key.key) : undefined;
    // A guess that is not the entry npm's resolution names is thrown away before anything else is done.
    if (!entry || entry !== guessed) await discard();
    if (!key.ok) return since(await plainAndStore(cellDir, options, root, context, `not reusable: ${key.why}`, hint));
    if (entry) {
      markCell(cellDir, 'found');
      const copy = entry === guessed ? prefetched() : undefined;
      const damaged = copy ? await placeStaged(copy, cellDir) : await copyTree(entry, cellDir);
      markCell(cellDir, 'checked');
      if (damaged) {
        await dropTree(entry);
        reason = `the stored tree was damaged (${damaged}); removed`;
      } else {
        const install = await installCell(cellDir, options);
        const lockfileSha256 = sha256(await readFile(path.join(cellDir, 'package-lock.json')).catch(() => ''));
        if (install.kind === 'installed' && lockfileSha256 === sha256(lock)) {
          await writeHint(hint, key.key);
          await record(options, key.key, lock);
          return since({
            install,
            source: { source: 'reused', lockfileSha256, entry: path.relative(root, entry) },
            returnable: { root, key: key.key, drop: key.drop },
          });
        }
        // npm's own install decides what a failure means; a lockfile npm rewrote is not the tree it resolved.
        reason =
          install.kind === 'installed' ? 'npm changed the lockfile on the reused tree' : 'npm could not install onto the reused tree';
        await clean(cellDir);
        return since(await plainAndStore(cellDir, options, root, context, reason, hint));
      }
    }
  } catch (error) {
    reason = `the tree cache could not be used: ${errorMessage(error)}`;
    await discard();
    await rm(path.join(cellDir, 'node_modules'), { recursive: true, force: true }).catch(() => undefined);
  }
  return since(await plainAndStore(cellDir, options, root, context, reason, hint));
}

/** The guess's checked copy moved into the cell's node_modules (one rename: its files are the ones checked), or why not. */
async function placeStaged(copy: Promise<string | undefined>, cellDir: string): Promise<string | undefined> {
  const damaged = await copy;
  if (damaged) return damaged;
  await rename(path.join(cellDir, '.mcp-matrix', 'tree', 'node_modules'), path.join(cellDir, 'node_modules'));
  return undefined;
}

/** npm's own install (onto the lockfile npm just wrote, if any), then the tree stored for the next run when it may be. */
async function plainAndStore(
  cellDir: string,
  options: ReuseOptions & { recording?: Recording },
  root: string,
  context: string,
  reason: string,
  hint?: string,
): Promise<ReuseOutcome> {
  const install = await installCell(cellDir, options);
  const source: InstallSourceRef = { source: 'npm', reason };
  if (install.kind !== 'installed') return { install, source };
  try {
    const lock = await readFile(path.join(cellDir, 'package-lock.json'), 'utf8');
    const key = treeKey(lock, options.packageName, context);
    markCell(cellDir, 'store-start');
    if (key.ok && !key.ownScripts) {
      await storeTree(root, key.key, cellDir, key.drop);
      await writeHint(hint, key.key);
      await record(options, key.key, lock);
      markCell(cellDir, 'store-end');
      return { install, source, returnable: { root, key: key.key, drop: key.drop } };
    }
    markCell(cellDir, 'store-end');
  } catch (error) {
    // A cache that cannot be written costs the next run its reuse, never this run its install.
    const real = await realMkdirError(root, error).catch(() => error);
    return {
      install,
      source,
      cacheNote: { cache: root, message: `${cacheProblem('the tree cache', root, real)}; every cell is a plain npm install` },
    };
  }
  return { install, source };
}

/** npm's resolution kept for the window, when this run's tarball could be swapped onto its tree (else no record is useful). */
async function record(options: { packageName: string; recording?: Recording }, key: string, lockfile: string): Promise<void> {
  const r = options.recording;
  if (!r || swapBlocker(r.staged, options.packageName, lockfile)) return;
  await writeRecord(r.file, { resolvedAt: new Date(r.resolvedAt).toISOString(), key, lockfile }).catch(() => undefined);
}

async function clean(cellDir: string): Promise<void> {
  await rm(path.join(cellDir, 'node_modules'), { recursive: true, force: true });
  await rm(path.join(cellDir, 'package-lock.json'), { force: true });
}
