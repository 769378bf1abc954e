// The official conformance suite (a pinned `@modelcontextprotocol/conformance`) as the conformance phase runs it:
// installed once into the per-user client cache, with its scenario list and Node's compile cache kept in the entry,
// run on Node >= 22 (it needs `fs.globSync`). A failure here is the harness's: not-measured, never failed.
import { constants } from 'node:fs';
import { access, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../../process/exec.js';
import { describeInfraError } from '../../util/infra.js';
import { errorMessage, fail, ok, type Result } from '../../util/result.js';
import { clientCacheDir, type CachedClient } from '../../cache/client-cache.js';
import type { CacheNote } from '../../cache/writable.js';
import { installThroughCache } from '../../cache/cached-tool.js';
import { catalogue, parseScenarioList, scenarioSources, type Catalogue } from './conformance-catalogue.js';
import { installFailureCause as cause, installManifest, type InstallOutcome } from '../../npm/install.js';
import { ensureNodeRuntime, type NodeRuntime } from '../runtime/node-runtime.js';

export const CONFORMANCE_PACKAGE = '@modelcontextprotocol/conformance';
/** The suite's pinned version: its scenarios and their judgement change between versions. */
export const CONFORMANCE_VERSION = '0.1.16';
/** The Node release the suite runs on when the host's Node is older than 22. */
export const CONFORMANCE_NODE = '22.22.0';
const MIN_NODE_MAJOR = 22;
/** In a cache entry: what `conformance list --server` printed when the entry was stored, and on which Node. */
export const LIST_RECORD = 'mcp-matrix-conformance-list.json';
/** In a cache entry: the suite's Node's compile cache (made after the entry is stored, so not one of its recorded files). */
export const COMPILE_CACHE = '.mcp-matrix-compile-cache';

export interface ConformanceSuite {
  package: string;
  version: string;
  /** The `node` binary and the CLI (`dist/index.js`) to run a scenario with. */
  node: string;
  nodeVersion: string;
  cli: string;
  catalogue: Catalogue;
  /** Where the install came from: the client cache (reused or installed now), or the run's own. */
  source: 'cache' | 'installed' | 'run';
  /** The compile cache for the suite's Node (in the cache entry); absent with the cache off or unwritable. */
  compileCache?: string;
  /** What the run should say about the caches (a damaged entry replaced, a cache that could not be written). */
  cacheNotes: CacheNote[];
}

export interface SuiteOptions {
  /** Where an install goes when the cache is off. */
  runDir: string;
  /** The cache root; undefined: no cache. Default: clientCacheDir(). */
  cacheDir?: string | undefined;
  attempts: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Tests only: the host's Node. */
  host?: { version: string; execPath: string };
  /** The Node runtime cache root (default: the Node runtime cache). */
  nodeCacheDir?: string;
  /** Runs the npm install when one is needed (the run's install slots). */
  slot?: <T>(task: () => Promise<T>) => Promise<T>;
}

const SUITE: CachedClient = {
  package: CONFORMANCE_PACKAGE,
  version: CONFORMANCE_VERSION,
  installSet: { [CONFORMANCE_PACKAGE]: CONFORMANCE_VERSION },
};

/** The suite, ready to run; any failure is infrastructure (the message names the cause). */
export async function ensureConformanceSuite(options: SuiteOptions): Promise<Result<ConformanceSuite>> {
  const what = `the conformance suite ${CONFORMANCE_PACKAGE}@${CONFORMANCE_VERSION}`;
  const nodeReady = suiteNode(options);
  const [node, install] = await Promise.all([nodeReady, installSuite(options, what, nodeReady)]);
  if (!node.ok) return fail('infrastructure', `${what} needs Node >= ${MIN_NODE_MAJOR}: ${node.error.message}`);
  if (!install.ok) return install;
  const cli = suiteCli(install.value.dir);
  const found = await discover(node.value, cli, install.value.dir, options.signal);
  if (!found.ok) return fail('infrastructure', `${what} is installed but its scenarios could not be read: ${found.error.message}`);
  return ok({
    package: CONFORMANCE_PACKAGE,
    version: CONFORMANCE_VERSION,
    node: node.value.execPath,
    nodeVersion: node.value.version,
    cli,
    catalogue: found.value,
    source: install.value.source,
    ...(install.value.source !== 'run' ? await compileCacheIn(install.value.dir).then((dir) => (dir ? { compileCache: dir } : {})) : {}),
    cacheNotes: [...(node.value.cacheNotes ?? []), ...install.value.notes],
  });
}

function suiteNode(options: SuiteOptions): Promise<Result<NodeRuntime>> {
  const host = options.host ?? { version: process.version, execPath: process.execPath };
  const major = Number(host.version.replace(/^v/, '').split('.')[0]);
  if (major >= MIN_NODE_MAJOR)
    return Promise.resolve(
      ok({ execPath: host.execPath, version: host.version.replace(/^v/, ''), binDir: path.dirname(host.execPath), source: 'host' }),
    );
  return ensureNodeRuntime(
    { version: CONFORMANCE_NODE },
    {
      host,
      fallbackDir: path.join(options.runDir, 'node'),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.nodeCacheDir ? { cacheDir: options.nodeCacheDir } : {}),
    },
  );
}

/**
 * The compile cache's directory in the entry, made now; undefined when it cannot be (a read-only cache is used all the
 * same). Made here, one plain mkdir in the existing entry, rather than left to Node: a recursive mkdir (Node 20's
 * `fs.mkdir`, Node 22's for NODE_COMPILE_CACHE) spins without returning where mkdir answers ENOENT under an existing
 * parent (seen on /proc), while a directory that exists leaves Node one mkdir inside it.
 */
export async function compileCacheIn(entryDir: string): Promise<string | undefined> {
  const dir = path.join(entryDir, COMPILE_CACHE);
  try {
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    if (!(await stat(dir)).isDirectory()) return undefined;
    await access(dir, constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

function suiteCli(dir: string): string {
  return path.join(dir, 'node_modules', ...CONFORMANCE_PACKAGE.split('/'), 'dist', 'index.js');
}

async function installSuite(
  options: SuiteOptions,
  what: string,
  nodeReady: Promise<Result<NodeRuntime>>,
): Promise<Result<{ dir: string; source: ConformanceSuite['source']; notes: CacheNote[] }>> {
  const root = 'cacheDir' in options ? options.cacheDir : clientCacheDir();
  const dir = path.join(options.runDir, 'conformance');
  try {
    let notes: CacheNote[] = [];
    if (root !== undefined) {
      const cached = await installThroughCache(root, SUITE, async (partial) => {
        const install = await npmInstall(partial, options);
        if (install.kind === 'installed') await recordList(partial, nodeReady, options.signal);
        return install;
      });
      notes = cached.notes;
      if (cached.kind === 'entry') return ok({ dir: cached.entry.dir, source: cached.source, notes });
      if (cached.kind === 'failed')
        return fail('infrastructure', `${what} could not be installed into the client cache ${root}: ${cause(cached.install)}`);
    }
    await mkdir(dir, { recursive: true });
    const install = await npmInstall(dir, options);
    if (install.kind !== 'installed') return fail('infrastructure', `${what} could not be installed into ${dir}: ${cause(install)}`);
    return ok({ dir, source: 'run', notes });
  } catch (error) {
    return fail('infrastructure', `${what} could not be installed into ${dir}: ${describeInfraError(error) ?? errorMessage(error)}`);
  }
}

async function npmInstall(dir: string, options: SuiteOptions): Promise<InstallOutcome> {
  const manifest = { name: 'mcp-matrix-conformance', private: true, dependencies: SUITE.installSet };
  const slot = options.slot ?? ((task) => task());
  return slot(() => installManifest(dir, manifest, options));
}

interface ListRecord {
  node: string;
  stdout: string;
}

/** `conformance list --server`'s output, from the entry's record when the same Node printed it, else asked now. */
async function listScenarios(node: NodeRuntime, cli: string, dir: string, signal?: AbortSignal): Promise<Result<string>> {
  const recorded = await readFile(path.join(dir, LIST_RECORD), 'utf8')
    .then((text) => JSON.parse(text) as Partial<ListRecord>)
    .catch(() => undefined);
  if (recorded?.node === node.version && typeof recorded.stdout === 'string') return ok(recorded.stdout);
  const listed = await run(node.execPath, [cli, 'list', '--server'], { timeoutMs: 60_000, ...(signal ? { signal } : {}) });
  if (!listed.ok)
    return fail(
      'infrastructure',
      `conformance list --server: ${listed.stderr.trim().split('\n')[0] || listed.error || `exit ${listed.exitCode}`}`,
    );
  return ok(listed.stdout);
}

/**
 * Into a new cache entry, before its manifest is written: the list as its Node prints it. Only a list that names
 * scenarios is kept; anything else is left for the run to ask again (and to report, if it fails again).
 */
async function recordList(dir: string, nodeReady: Promise<Result<NodeRuntime>>, signal?: AbortSignal): Promise<void> {
  const node = await nodeReady;
  if (!node.ok) return;
  const listed = await run(node.value.execPath, [suiteCli(dir), 'list', '--server'], { timeoutMs: 60_000, ...(signal ? { signal } : {}) });
  if (!listed.ok || parseScenarioList(listed.stdout).length === 0) return;
  const record: ListRecord = { node: node.value.version, stdout: listed.stdout };
  await writeFile(path.join(dir, LIST_RECORD), JSON.stringify(record));
}

/** `conformance list --server` for the names, the bundle for what each needs. */
async function discover(node: NodeRuntime, cli: string, dir: string, signal?: AbortSignal): Promise<Result<Catalogue>> {
  const listed = await listScenarios(node, cli, dir, signal);
  if (!listed.ok) return listed;
  const names = parseScenarioList(listed.value);
  if (names.length === 0) return fail('infrastructure', 'conformance list --server named no scenario');
  const bundle = await readFile(cli, 'utf8');
  return ok(catalogue(names, scenarioSources(bundle)));
}
