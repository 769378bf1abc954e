// The Node release a variant runs on: the host's binary when it is that release, else the registry's binary
// package, kept in a per-user cache (checked before each use, bounded in size) because the runtime is not under
// test. The registry's side (hash, download, the binary's own version) is node-release.ts.
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PlannedNode } from '../../plan/node-versions.js';
import { nodeBinaryPackage } from '../../plan/node-versions.js';
import { run } from '../../process/exec.js';
import { cacheLimit, entryBytes, evict, removeAside, type SizedEntry } from '../../cache/bound.js';
import { lastUsedMs, PARTIAL, sweepIfStale, touchMarker } from '../../cache/entry-dirs.js';
import { userCacheDir } from '../../cache/location.js';
import { checkManifest, UNRECORDED, writeManifest } from '../../cache/manifest.js';
import { cacheProblem, makeCacheDir, type CacheNote } from '../../cache/writable.js';
import { freeBytes, LOW_SPACE_BYTES } from '../../util/infra.js';
import { fail, ok, type Result } from '../../util/result.js';
import { download, readDist, reportsVersion, sha512, signalOf, type Target } from './node-release.js';

export interface NodeRuntime {
  /** The `node` binary to fork the driver with. */
  execPath: string;
  /** The exact release, e.g. `22.11.0`. */
  version: string;
  /** The directory of `execPath`: the head of the variant's PATH, so a server that runs `node` gets this one. */
  binDir: string;
  /** Where it came from: the host's own binary, the cache, or a download made by this call. */
  source: 'host' | 'cache' | 'download';
  /** What the run should say about the cache: a damaged copy replaced, a cache that could not be written. */
  cacheNotes?: CacheNote[];
}

export interface NodeRuntimeOptions {
  signal?: AbortSignal;
  /** The cache root; default nodeCacheDir(). */
  cacheDir?: string;
  /** Where a release is downloaded when the cache cannot be written (the run's own directory); none: that fails. */
  fallbackDir?: string;
  /** Tests only: the host's version and binary, the platform's package. */
  host?: { version: string; execPath: string };
  platform?: NodeJS.Platform;
  arch?: string;
}

/** Written last inside a runtime dir before it is renamed into place: a dir with it is complete. */
const MARKER = '.mcp-matrix-runtime.json';

/** `$MCP_MATRIX_NODE_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/mcp-matrix/node` (`%LOCALAPPDATA%\mcp-matrix\node` on Windows). */
export function nodeCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.MCP_MATRIX_NODE_CACHE) return path.resolve(env.MCP_MATRIX_NODE_CACHE);
  return userCacheDir('node', env, platform);
}

/** The env with the runtime's bin dir first on PATH: a server that runs `node` (a shell wrapper, npx) gets this one. */
export function withRuntimePath<T extends Record<string, string | undefined>>(env: T, runtime: Pick<NodeRuntime, 'binDir'>): T {
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  const rest = env[key];
  return { ...env, [key]: rest ? `${runtime.binDir}${path.delimiter}${rest}` : runtime.binDir };
}

// One install per release per process: the variants of a run that share a release share its download.
const pending = new Map<string, Promise<Result<NodeRuntime>>>();

export function ensureNodeRuntime(node: Pick<PlannedNode, 'version'>, opts: NodeRuntimeOptions = {}): Promise<Result<NodeRuntime>> {
  const host = opts.host ?? { version: process.version, execPath: process.execPath };
  if (host.version === `v${node.version}`)
    return Promise.resolve(ok({ execPath: host.execPath, version: node.version, binDir: path.dirname(host.execPath), source: 'host' }));
  const platform = opts.platform ?? process.platform;
  const arch = opts.arch ?? process.arch;
  const root = opts.cacheDir ?? nodeCacheDir();
  const dir = path.join(root, `${node.version}-${platform}-${arch}`);
  let job = pending.get(dir);
  if (!job) {
    const t: Target = { version: node.version, root, dir, platform, arch, ...(opts.signal ? { signal: opts.signal } : {}) };
    job = installOrFallBack(t, opts.fallbackDir);
    pending.set(dir, job);
    // A failure is not remembered: the next variant (or run) tries again.
    void job.then((r) => !r.ok && pending.get(dir) === job && pending.delete(dir));
  }
  return job;
}

function binaryIn(dir: string, platform: NodeJS.Platform): string {
  return path.join(dir, 'bin', platform === 'win32' ? 'node.exe' : 'node');
}

/** A copy from the cache, else a download into it, else (the cache cannot be written) into `fallbackDir`. */
async function installOrFallBack(t: Target, fallbackDir: string | undefined): Promise<Result<NodeRuntime>> {
  const notes: CacheNote[] = [];
  const done = await install(t, notes);
  if (!('unwritable' in done)) return withNotes(done, notes);
  if (fallbackDir === undefined) return withNotes(fail('infrastructure', done.unwritable), notes);
  notes.push({ cache: t.root, message: `${done.unwritable}; Node releases are downloaded into the run's own directory instead` });
  const local = { ...t, root: fallbackDir, dir: path.join(fallbackDir, path.basename(t.dir)) };
  const again = await install(local, notes);
  return withNotes('unwritable' in again ? fail('infrastructure', again.unwritable) : again, notes);
}

function withNotes(r: Result<NodeRuntime>, notes: CacheNote[]): Result<NodeRuntime> {
  if (notes.length === 0) return r;
  return r.ok
    ? ok({ ...r.value, cacheNotes: notes })
    : fail(r.error.kind, `${r.error.message} (${notes.map((n) => n.message).join('; ')})`);
}

type Installed = Result<NodeRuntime> | { unwritable: string };

async function install(t: Target, notes: CacheNote[]): Promise<Installed> {
  const found = await cached(t);
  if (typeof found === 'string') {
    // A copy of an older mcp-matrix is replaced quietly: that is an upgrade, not damage.
    if (found !== UNRECORDED)
      notes.push({
        cache: t.dir,
        message: `the Node runtime cache's copy of ${t.version} in ${t.root} was damaged (${found}): it was removed, and downloaded again`,
      });
    await discard(t);
  } else if (found) {
    await touchMarker(t.dir, MARKER);
    return ok(found);
  }
  const pkg = nodeBinaryPackage(t.platform, t.arch);
  const where = `${t.platform}-${t.arch}`;
  const unwritable = (error: unknown) => ({ unwritable: cacheProblem('the Node runtime cache', t.root, error) });
  try {
    await makeCacheDir(t.root);
  } catch (error) {
    return unwritable(error);
  }
  await sweepPartials(t.root);
  const dist = await readDist(pkg, t, where);
  if (!dist.ok) return dist;
  let partial: string | undefined;
  try {
    partial = await mkdtemp(path.join(t.root, `${PARTIAL}${t.version}-`));
    const tarball = await download(pkg, t, partial);
    if (!tarball.ok) return (await machineMade(tarball.error.message, t.root)) ? unwritable(tarball.error) : tarball;
    const actual = await sha512(tarball.value);
    if (actual !== dist.value.integrity)
      return fail(
        'infrastructure',
        `the downloaded ${pkg}@${t.version} does not match the registry's integrity hash (${short(actual)} ≠ ${short(dist.value.integrity)}); nothing was cached, run again`,
      );
    const out = path.join(partial, 'x');
    await mkdir(out);
    const untar = await run('tar', ['-xzf', tarball.value, '-C', out], { timeoutMs: 5 * 60_000, ...signalOf(t) });
    if (untar.cancelled) return fail('infrastructure', `the install of Node ${t.version} was cancelled`);
    if (!untar.ok) {
      const why = `cannot extract ${pkg}@${t.version}: ${untar.stderr.trim() || untar.error || `tar exited ${untar.exitCode}`}`;
      return (await machineMade(why, t.root)) ? unwritable(new Error(why)) : fail('infrastructure', why);
    }
    const staged = path.join(out, 'package');
    const runs = await reportsVersion(binaryIn(staged, t.platform), t);
    if (!runs.ok) return runs;
    // The binary's own hash, and every file's: a later run checks the cached copy is still what was verified.
    const binary = await sha512(binaryIn(staged, t.platform));
    await writeManifest(staged, [MARKER]);
    await writeFile(
      path.join(staged, MARKER),
      `${JSON.stringify({ package: pkg, version: t.version, integrity: dist.value.integrity, binary })}\n`,
    );
    try {
      await rename(staged, t.dir);
    } catch (error) {
      // Another run renamed its complete copy first: use that one.
      const theirs = await cached(t);
      if (theirs && typeof theirs !== 'string') return ok(theirs);
      return unwritable(error);
    }
    await boundRuntimes(t.root, t.dir).catch(() => undefined);
    return ok({ execPath: binaryIn(t.dir, t.platform), version: t.version, binDir: path.join(t.dir, 'bin'), source: 'download' });
  } catch (error) {
    return unwritable(error);
  } finally {
    if (partial) await rm(partial, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A failure the cache's disk caused: a machine code or words in the message, or almost no space left. */
async function machineMade(message: string, root: string): Promise<boolean> {
  if (/\b(ENOSPC|EDQUOT|EROFS|EACCES|EPERM)\b|No space left|Read-only file system|Permission denied|Disk quota/i.test(message)) return true;
  const free = await freeBytes(root);
  return free !== undefined && free < LOW_SPACE_BYTES;
}

/** A release in the cache, as the size bound and `mcp-matrix cache` list it. */
export interface ListedRuntime extends SizedEntry {
  name: string;
  version?: string;
}

/** Every complete release in the cache (partial downloads are not entries). */
export async function listRuntimes(root: string): Promise<ListedRuntime[]> {
  const out: ListedRuntime[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (name.startsWith(PARTIAL)) continue;
    const dir = path.join(root, name);
    const marker = await readFile(path.join(dir, MARKER), 'utf8')
      .then((t) => JSON.parse(t) as { version?: unknown })
      .catch(() => ({}) as { version?: unknown });
    const used = await lastUsedMs(dir, MARKER);
    out.push({
      dir,
      name,
      bytes: await entryBytes(dir),
      lastUsedMs: used,
      ...(typeof marker.version === 'string' ? { version: marker.version } : {}),
    });
  }
  return out;
}

/** The size bound, after a release was stored (never that one). */
export async function boundRuntimes(root: string, keep?: string, limit = cacheLimit()): Promise<string[]> {
  const aside = (dir: string) => `${path.join(root, PARTIAL)}gone-${path.basename(dir)}-${process.pid}`;
  return (await evict(await listRuntimes(root), limit, aside, keep)).map((e) => e.dir);
}

/** The damage a copy in the cache has (or 'damaged' alone), undefined when absent; see cached. */
export async function inspectRuntime(dir: string, version: string, platform: NodeJS.Platform = process.platform, deep = false) {
  return cached({ version, root: path.dirname(dir), dir, platform, arch: process.arch }, deep);
}

/**
 * The complete cached copy; what is wrong with it when the dir is there but is not what was verified at install
 * (a missing or changed file, a marker from another release, a copy stored before files were recorded);
 * undefined when absent.
 */
async function cached(t: Target, deep = false): Promise<NodeRuntime | string | undefined> {
  let marker: { version?: unknown; binary?: unknown };
  try {
    marker = JSON.parse(await readFile(path.join(t.dir, MARKER), 'utf8')) as typeof marker;
  } catch {
    return (await exists(t.dir)) ? `no readable ${MARKER}` : undefined;
  }
  if (marker.version !== t.version) return `its marker names Node ${String(marker.version)}`;
  const binary = binaryIn(t.dir, t.platform);
  const files = await checkManifest(t.dir, { deep });
  if (!files.intact && !(files.reason === UNRECORDED && (await adopted(t.dir, binary, marker.binary)))) return files.reason;
  return { execPath: binary, version: t.version, binDir: path.join(t.dir, 'bin'), source: 'cache' };
}

/**
 * A copy stored by an older mcp-matrix (no manifest) whose binary is still the one verified then: its files
 * are recorded now and it is used (no download, which may not be possible offline). Another copy is replaced.
 */
async function adopted(dir: string, binary: string, verified: unknown): Promise<boolean> {
  if (typeof verified !== 'string' || (await sha512(binary).catch(() => undefined)) !== verified) return false;
  await writeManifest(dir, [MARKER]).catch(() => undefined);
  return true;
}

/** Moves a damaged copy aside (one rename, so no run ever sees half of it) and removes it. */
async function discard(t: Target): Promise<void> {
  await removeAside(t.dir, `${path.join(t.root, PARTIAL)}damaged-${t.version}-${process.pid}-${Date.now()}`);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Partial downloads of runs that died (sweepIfStale: a live run's partial stays). */
async function sweepPartials(root: string): Promise<void> {
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const name of entries) if (name.startsWith(PARTIAL)) await sweepIfStale(path.join(root, name), Date.now());
}

function short(integrity: string): string {
  return `${integrity.slice(0, 19)}…`;
}
