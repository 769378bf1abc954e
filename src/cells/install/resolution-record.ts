// The decision on reuse (issue 34): a local run may reuse npm's resolution of a cell, and its tree, for a
// bounded time. A record is found only by everything that can change the tree: npm, Node, npm's config, the
// package's name, manifest fields and shrinkwrap, and the cell's pins.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../../util/sha256.js';

/** A record's file name starts so: a file at the tree cache's root, never a key's directory. */
export const RECORD_PREFIX = '.resolved-';

export interface ResolutionRecord {
  /** When npm resolved this tree (ISO 8601); a reuse never moves it. */
  resolvedAt: string;
  /** The tree cache's key of the tree npm made from it (tree-key.ts). */
  key: string;
  /** The lockfile npm wrote for the cell. */
  lockfile: string;
}

/** The manifest fields npm reads when it resolves and lays out a package (and writes into its lockfile entry). */
export const TREE_FIELDS = [
  'name',
  'version',
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bundledDependencies',
  'bin',
  'directories',
  'license',
  'engines',
  'os',
  'cpu',
  'libc',
  'funding',
  'deprecated',
  'gypfile',
  'overrides',
] as const;

/** What of the package under test can change its cell's tree: its manifest's tree fields, its install scripts, its shrinkwrap. */
export function packageIdentity(manifest: Record<string, unknown>, shrinkwrap: string | undefined, extra = ''): string {
  const scripts = (manifest.scripts ?? {}) as Record<string, unknown>;
  const fields = TREE_FIELDS.map((f) => [f, manifest[f] ?? null]);
  const installScripts = ['preinstall', 'install', 'postinstall'].map((s) => scripts[s] ?? null);
  return sha256(JSON.stringify([fields, installScripts, shrinkwrap ?? null, extra]));
}

/** Where the record of a cell of this package (its identity) on `installSet` in this npm `context` is kept. */
export function recordFile(root: string, context: string, identity: string, installSet: Record<string, string>): string {
  const sorted = Object.entries(installSet).sort(([a], [b]) => (a < b ? -1 : 1));
  return path.join(root, `${RECORD_PREFIX}${sha256(JSON.stringify([context, identity, sorted])).slice(0, 24)}.json`);
}

export type RecordRead = { kind: 'fresh'; record: ResolutionRecord; ageMs: number } | { kind: 'none' | 'stale' | 'unreadable' };

/** The record when it is younger than `windowMs` (a record from the future is not trusted), else why not. */
export async function readRecord(file: string, windowMs: number, now: number): Promise<RecordRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { kind: 'none' };
  }
  let record: Partial<ResolutionRecord>;
  try {
    record = JSON.parse(text) as Partial<ResolutionRecord>;
  } catch {
    return { kind: 'unreadable' };
  }
  const at = typeof record.resolvedAt === 'string' ? Date.parse(record.resolvedAt) : NaN;
  if (!Number.isFinite(at) || typeof record.key !== 'string' || typeof record.lockfile !== 'string') return { kind: 'unreadable' };
  const ageMs = now - at;
  if (ageMs < 0 || ageMs >= windowMs) return { kind: 'stale' };
  return { kind: 'fresh', record: record as ResolutionRecord, ageMs };
}

/** Written beside and renamed into place: a reader sees the old record or the new one, never half of one. */
export async function writeRecord(file: string, record: ResolutionRecord): Promise<void> {
  const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await writeFile(partial, `${JSON.stringify(record)}\n`);
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true }).catch(() => undefined);
  }
}

/** The source directory's lockfiles, as a digest: a changed one ends the window at once (npm reads neither in a cell). */
export async function sourceLockfiles(dir: string): Promise<string> {
  const read = (name: string) => readFile(path.join(dir, name), 'utf8').catch(() => '');
  return sha256(JSON.stringify(await Promise.all([read('package-lock.json'), read('npm-shrinkwrap.json')])));
}
