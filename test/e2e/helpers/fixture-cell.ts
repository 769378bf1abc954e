// A fixture's run without the CLI process and without npm per fixture (issue 34): the harness's run (api/run-core.ts)
// in this process, each npm cell's tree laid out by the harness's reuse path (a resolution record, the tree claimed back
// or copied, package-swap.ts) from one real npm install per dependency set and pins, kept a week in the test caches; the
// fixture's tarball packed once (fixture-pack.ts).
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { CellContext, CellInstaller } from '../../../src/cells/cell-context.js';
import type * as Reuse from '../../../src/cells/install/reuse-install.js';
import type { PlannedCell } from '../../../src/plan/plan.js';
import type * as Registry from '../../../src/plan/registry.js';
import { TEST_CACHE_ROOT } from '../../helpers/node-runtimes.js';
import { keyOf, shared } from '../../helpers/run-cache.js';
import { conformanceWarm } from '../../helpers/warm-up.js';
import { BIN, readResults, ROOT, SUITE_TMP, tempDir } from './cli.js';
import { asTheCli, harness, npmEnv, type Harness } from './fixture-harness.js';
import { inRunTmp, leftovers, type FixtureRun } from './fixture-run.js';
import { packOnce } from './fixture-pack.js';

/** One registry per test file: each package is looked up once, as within one run. */
let registry: Registry.Registry | undefined;

/** A dependency set's install: a tree cache entry of its node_modules (less the package), the lockfile npm wrote, whose package. */
interface BaseTree {
  root: string;
  key: string;
  lockfile: string;
  packageName: string;
}

/**
 * A dependency set no base can be made of: npm refused it (a range that excludes the pin) or its tree is not reusable (a
 * `file:` dependency). Remembered as a base is, so its runs go straight to the harness's own install, as the CLI's do.
 */
interface NoBase {
  unusable: string;
}

let localRoot: string | undefined;
/** Outside a `vitest run` with the global setup, this process's own (removed at its exit). */
function localDir(name: string): string {
  if (!localRoot) {
    // Not in a run's own TMPDIR (removed after it): the local installs outlive each run.
    const dir = mkdtempSync(path.join(SUITE_TMP, 'mm-fixture-cells-'));
    localRoot = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return path.join(localRoot, name);
}

const local = new Map<string, Promise<string>>();

/** Installs kept across runs for a week, as test/helpers/kept-trees.ts keeps the driver tests' (MM_TEST_TREE_CACHE=off: none). */
const KEPT_BASES = path.join(TEST_CACHE_ROOT, 'fixture-cells');
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const keeping = (): boolean => process.env.MM_TEST_TREE_CACHE !== 'off';

/** The kept install of dependency set `key` (or its NoBase), when it is younger than a week and its tree cache entry is there. */
async function keptBase(h: Harness, key: string): Promise<BaseTree | NoBase | undefined> {
  const file = path.join(KEPT_BASES, `.base-${key}.json`);
  try {
    if (Date.now() - statSync(file).mtimeMs > KEEP_MS) return undefined;
    const base = JSON.parse(readFileSync(file, 'utf8')) as BaseTree | NoBase;
    if ('unusable' in base) return base;
    return (await h.findTree(base.root, base.key)) ? base : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The install of `ctx.tarball`'s dependency set on `cell`'s pins: a real npm install into a cell made as the harness makes
 * one, once per run (or per week, kept), its tree a tree cache entry.
 */
async function baseTree(key: string, cell: PlannedCell, ctx: CellContext, env: Record<string, string>): Promise<BaseTree | NoBase> {
  const h = await harness();
  const kept = keeping() ? await keptBase(h, key) : undefined;
  if (kept) return kept;
  const build = async (dir: string): Promise<void> => {
    const packageName = ctx.plan.package.name;
    const tarball = path.join(dir, path.basename(ctx.tarball.file));
    await copyFile(ctx.tarball.file, tarball);
    const cellDir = await h.createCellDir(path.join(dir, 'build'), cell.id, packageName, tarball, cell.installSet);
    try {
      const { attempts, timeoutMs } = ctx.plan.config.install;
      const out = await h.installCell(cellDir, { attempts, timeoutMs, env });
      // Infrastructure (the registry, the disk) is not the dependency set's: nothing is remembered, the next run tries again.
      if (out.kind === 'not-measured') throw new Error(`npm install: ${out.kind}: ${out.message}`);
      let made: BaseTree | NoBase;
      if (out.kind === 'failed') made = { unusable: `npm install failed (${out.code})` };
      else {
        const lockfile = await readFile(path.join(cellDir, 'package-lock.json'), 'utf8');
        const tree = h.treeKey(lockfile, packageName, h.contextKey(ctx.npmVersion, env));
        if (tree.ok) {
          const root = keeping() ? KEPT_BASES : path.join(dir, 'trees');
          await h.storeTree(root, tree.key, cellDir, tree.drop);
          made = { root, key: tree.key, lockfile, packageName };
        } else made = { unusable: `not reusable: ${tree.why}` };
      }
      const base = JSON.stringify(made);
      await writeFile(path.join(dir, 'base.json'), base);
      if (keeping()) {
        // Renamed into place: another run reads the old one or this one, never half of one.
        const partial = path.join(KEPT_BASES, `.base-${key}.json.${process.pid}`);
        await writeFile(partial, base);
        await rename(partial, path.join(KEPT_BASES, `.base-${key}.json`));
      }
    } finally {
      await rm(path.join(dir, 'build'), { recursive: true, force: true });
    }
  };
  const name = `fixture-cell-${key}`;
  let pending = shared(name, build);
  if (!pending) {
    pending = local.get(name);
    if (!pending) {
      const dir = localDir(name);
      pending = mkdir(dir, { recursive: true })
        .then(() => build(dir))
        .then(() => dir);
      local.set(name, pending);
      pending.catch(() => local.delete(name));
    }
  }
  return JSON.parse(await readFile(path.join(await pending, 'base.json'), 'utf8')) as BaseTree | NoBase;
}

type Lock = { packages: Record<string, Record<string, unknown>> & { '': { dependencies?: Record<string, string> } } };

/**
 * The lockfile npm writes for `manifest`'s package on the base's tree: the base's, its package's entry renamed and its
 * name, version and bins made this package's (every other field of that entry comes from the dependency set, which is
 * the same); swapPackage then writes the tarball's `resolved` and integrity, as npm would.
 */
function lockFor(base: BaseTree, manifest: Record<string, unknown>, packageName: string): string {
  const lock = JSON.parse(base.lockfile) as Lock;
  const entry = { ...lock.packages[`node_modules/${base.packageName}`] };
  delete lock.packages[`node_modules/${base.packageName}`];
  delete lock.packages[''].dependencies?.[base.packageName];
  entry.version = manifest.version;
  if (entry.bin) {
    const bin = manifest.bin;
    const raw = typeof bin === 'string' ? { [packageName.replace(/^@[^/]+\//, '')]: bin } : (bin as Record<string, string>);
    entry.bin = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, path.posix.normalize(v).replace(/^(\.\/)+/, '')]));
  }
  lock.packages[`node_modules/${packageName}`] = entry;
  // npm sorts the entries by path.
  const sorted = Object.keys(lock.packages).sort((a, b) => a.localeCompare(b, 'en'));
  lock.packages = Object.fromEntries(sorted.map((k) => [k, lock.packages[k]!])) as Lock['packages'];
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** Within the window the harness's reuse path takes a record (docs/performance.md, the decision on reuse). */
const WINDOW_MS = 10 * 60 * 1000;

/**
 * The CellInstaller of these runs: the fixture's record of its dependency set's resolution, then the harness's own
 * reuse path (installReusing: the tree claimed back or copied and checked, the tarball swapped in). A set no base is made
 * of (npm refuses it, its tree is not reusable) goes the CLI run's way (installNpmCell), the same npm steps and sources.
 */
const installOnce: CellInstaller = async (cellDir, cell, ctx) => {
  const h = await harness();
  const env = npmEnv();
  const { attempts, timeoutMs } = ctx.plan.config.install;
  const packageName = ctx.plan.package.name;
  const options: Reuse.ReuseOptions = {
    attempts,
    timeoutMs,
    env,
    signal: ctx.signal,
    packageName,
    npmVersion: ctx.npmVersion,
    treeCache: undefined,
    installSet: cell.installSet,
  };
  const staged = await h.stagePackage(ctx.tarball.file, cellDir);
  if (!staged.ok) return h.installNpmCell(cellDir, cell, ctx);
  const fields = h.TREE_FIELDS.filter((f) => !['name', 'version', 'bin'].includes(f)).map((f) => staged.manifest[f] ?? null);
  const key = keyOf(JSON.stringify(fields), JSON.stringify(Object.entries(cell.installSet).sort()), ctx.npmVersion);
  const base = await baseTree(key, cell, ctx, env).catch(() => undefined);
  if (!base || 'unusable' in base) return h.installNpmCell(cellDir, cell, ctx);
  const context = h.contextKey(ctx.npmVersion, env);
  await h.writeRecord(h.recordFile(base.root, context, h.packageIdentity(staged.manifest, staged.shrinkwrap), cell.installSet), {
    resolvedAt: new Date().toISOString(),
    key: base.key,
    lockfile: lockFor(base, staged.manifest, packageName),
  });
  return h.installReusing(cellDir, {
    ...options,
    treeCache: base.root,
    window: { ms: WINDOW_MS, tarball: { file: ctx.tarball.file, sha512: ctx.tarball.sha512 } },
  });
};

/** A stream that keeps what is written to it. */
function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write: (chunk: Buffer | string, _encoding, done) => {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** One run at a time in this process: a run's end kills every process this process started (process/tracker.ts). */
let turn: Promise<unknown> = Promise.resolve();

/**
 * fixtures/broken/<fixture> run as `mcp-matrix run --config fixtures/broken/<fixture>/<config> --out <dir>` runs it, in
 * this process (results.json, matrix.sarif and the rest written; the terminal's lines in `out`; `out.code` the CLI's exit
 * code for the run), each npm cell laid out from its dependency set's install. `config`: an absolute path is used as it
 * is. `env`: set in this process's environment for the run (as cli() sets the CLI's), MCP_MATRIX_CONFORMANCE off unless
 * given; runs take turns, so no two overlap. Leftovers are looked for by the run's package name in the run's TMPDIR
 * (`env`'s, else one of its own).
 */
export function runFixtureCell(
  fixture: string,
  prefix = 'mm-broken',
  env: Record<string, string> = {},
  config = 'matrix.config.ts',
): Promise<FixtureRun> {
  const mine = turn.then(() => runAlone(fixture, prefix, env, config));
  turn = mine.catch(() => undefined);
  return mine;
}

async function runAlone(fixture: string, prefix: string, env: Record<string, string>, config: string): Promise<FixtureRun> {
  const h = await harness();
  asTheCli(h);
  const runEnv: Record<string, string> = { MCP_MATRIX_CONFORMANCE: 'off', ...env };
  if (runEnv.MCP_MATRIX_CONFORMANCE === 'on') await conformanceWarm();
  // Made before the run's environment is set: the run's TMPDIR holds only what the run left there.
  const outDir = await tempDir(`${prefix}-${fixture}-`);
  return inRunTmp(`${prefix}-${fixture}`, runEnv, async (withTmp, tmp) => {
    const saved = Object.keys(withTmp).map((k) => [k, process.env[k]] as const);
    Object.assign(process.env, withTmp);
    try {
      return await runInProcess(h, fixture, outDir, path.isAbsolute(config) ? config : `fixtures/broken/${fixture}/${config}`, tmp);
    } finally {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
}

async function runInProcess(h: Harness, fixture: string, outDir: string, config: string, tmp: string): Promise<FixtureRun> {
  registry ??= h.createRegistry();
  const stdout = sink();
  const stderr = sink();
  const log = h.createLogger(stdout.stream, stderr.stream);
  const started = Date.now();
  const ran = await h.runToReports(
    {
      cwd: ROOT,
      config,
      cells: [],
      out: outDir,
      keep: false,
      progress: 'silent',
      signal: new AbortController().signal,
      junit: true,
      invocation: h.invocation(BIN, {}, ROOT),
      registry,
      install: installOnce,
      pack: packOnce,
    },
    log,
  );
  await h.deferredCleanups();
  let code: number;
  if (ran.ok) {
    const { run, written, shown, config: resolved } = ran.value;
    h.printResults(run, resolved, ROOT, log);
    h.printWarnings(run, shown, log);
    h.printSummary(run, written, ROOT, log);
    code = run.exitCode;
  } else {
    log.error(ran.error.message);
    code = ran.error.kind === 'infrastructure' ? 3 : 2;
  }
  const ms = Date.now() - started;
  const results = await readResults(outDir).catch(() => undefined);
  return {
    out: { code, stdout: stdout.text(), stderr: stderr.text() },
    ...(results ? { results } : {}),
    outDir,
    tmp,
    ms,
    ...leftovers(results?.plan.package.name ?? `broken-${fixture}`, tmp),
  };
}
