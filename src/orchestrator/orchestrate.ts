// The run: plan (while packing once) → cells in parallel → RunResult; an interrupt ends in a partial, marked
// result. Each part is its own module (run-dir, run-units, cell-runs, instruments, assemble): this one sequences.
import os from 'node:os';
import path from 'node:path';
import { cacheNotes, type CacheNotes } from '../cache/notes.js';
import type { CellContext, CellInstaller } from '../cells/cell-context.js';
import { treeCacheDir } from '../cells/install/tree-cache.js';
import { reuseWindowFor, type ResolvedConfig } from '../config/resolve.js';
import { readPullRequestEvent } from '../cells/github-event.js';
import { withMutatedInstall } from '../judge/environment/mutated-install.js';
import { runSecrets, type RunSecrets } from '../judge/secrets.js';
import { repoPrefix, sourceCommit } from '../pack/commit.js';
import { fingerprint, packDirectory, type DirectoryPacker, type Tarball } from '../pack/pack.js';
import type { FrozenPlan } from '../plan/frozen.js';
import { thawPlan } from '../plan/thaw.js';
import { buildPlan, cellHasAxes, selectCells, type Plan, type PlannedCell, type PlannedVariant } from '../plan/plan.js';
import type { Registry } from '../plan/registry.js';
import { currentCookie } from '../process/cookie.js';
import { npmVersionOf } from '../npm/version.js';
import type { Recorded } from '../results/parity.js';
import type { SurfaceItems } from '../results/surface.js';
import type { BaselineEntry, CellResult, RunResult } from '../results/types.js';
import { ok, type Result } from '../util/result.js';
import type { CacheNote } from '../cache/writable.js';
import { HARNESS_VERSION } from '../version.js';
import { assemble, type RunContext } from './assemble.js';
import { cellRuns } from './cell-runs.js';
import { instruments, prepareShared } from './instruments.js';
import { portablePath } from './invocation.js';
import { runWithProgress, type ProgressMode } from './progress.js';
import { openRunDir, type RunDir } from './run-dir.js';
import { interleave, planOrder, reproCommand, type RunUnit } from './run-units.js';
import { semaphore } from './slots.js';
import { sideBySideFits } from '../cells/side/side-driver.js';
import { besidePerCore, laneRoom } from './cell-lanes.js';

export interface RunOptions {
  cwd: string;
  cells: string[];
  concurrency?: number;
  keep: boolean;
  progress: ProgressMode;
  /** Where line progress (simple/CI) goes: the logger. */
  progressLine?(line: string): void;
  /** Where what the run's end could not do goes (its directory not removed): the logger. */
  warn?(line: string): void;
  signal: AbortSignal;
  /** The config flag as the user gave it, for repro commands. */
  configFlag?: string;
  /** How the user started mcp-matrix (`npx mcp-matrix`, `node bin/mcp-matrix.js`), for repro commands. */
  invocation?: string;
  /** Known failures the run is judged with (file as shown to the user). */
  baseline?: { file: string; entries: BaselineEntry[] };
  /** The committed surface snapshot (mcp-surface.json) the cells must match; absent when there is none. */
  surfaceSnapshot?: SurfaceItems;
  /** The recorded values (step answers, behaviours) in the committed mcp-surface.json; absent when it has none. */
  comparedSnapshot?: Recorded;
  /** --fresh: every cell a plain npm install, no tree reused or stored. */
  fresh?: boolean;
  /** --in-turn: every variant's phases one after another, whatever the config's `sideBySide` says. */
  inTurn?: boolean;
  /** What the config cache said while the config loaded: the run's warnings, with the other caches'. */
  configCacheNotes?: CacheNote[];
  /** The plan job's frozen plan (`run --plan`): used as it is, never resolved against the registry. */
  frozen?: FrozenPlan;
  /** Lays out each npm cell's tree instead of npm (tests: cells installed once); absent: npm. */
  install?: CellInstaller;
  /** Packs the package directory instead of packDirectory (tests: each fixture packed once); absent: its package manager. */
  pack?: DirectoryPacker;
  /** Called once the plan is resolved, before any cell starts. */
  onPlan?(plan: Plan): void;
  /** Called once cells start: `snapshot()` is the run so far (finished cells only), marked interrupted, for a forced exit. */
  onCellsStart?(snapshot: () => RunResult): void;
}

export async function orchestrate(config: ResolvedConfig, registry: Registry, options: RunOptions): Promise<Result<RunResult>> {
  const startedAt = new Date();
  const cookie = currentCookie();
  const opened = await openRunDir(cookie, options.keep, options.warn);
  if (!opened.ok) return opened;
  const runDir = opened.value;
  // Packing needs only the source: it runs while the registry answers the plan's look-ups.
  const packAbort = new AbortController();
  const stopPacking = () => packAbort.abort();
  options.signal.addEventListener('abort', stopPacking, { once: true });
  const packing = obtainTarball(config, runDir.dir, packAbort.signal, options.pack ?? packDirectory);
  try {
    const [planned, npmVersion, commit, configDir] = await Promise.all([
      options.frozen ? thawPlan(config, options.frozen) : buildPlan(config, registry),
      npmVersionOf(options.signal),
      sourceCommit(config.source.kind === 'directory' ? config.source.dir : options.cwd),
      repoPrefix(config.dir),
    ]);
    if (!planned.ok) {
      stopPacking();
      return planned;
    }
    const plan = planned.value;
    options.onPlan?.(plan);
    const selected = selectCells(plan.cells, options.cells);
    if (!selected.ok) {
      stopPacking();
      return selected;
    }
    const tarball = await packing;
    if (!tarball.ok) return tarball;
    if (options.keep)
      runDir.linkHomes(
        options.cwd,
        selected.value.map((c) => c.id),
      );
    const facts: RunContext = {
      plan,
      tarball: tarball.value,
      selected: selected.value,
      startedAt,
      npmVersion,
      commit,
      configDir,
      baseline: options.baseline,
      snapshot: options.surfaceSnapshot,
      recorded: options.comparedSnapshot,
      ...(registry.reused?.().length ? { lookedUp: registry.reused() } : {}),
    };
    const secrets = config.secrets
      ? runSecrets(config.secrets, process.env, readPullRequestEvent(process.env.GITHUB_EVENT_PATH), config.secretsOnFork)
      : undefined;
    // What the caches said (a damaged entry replaced, a cache that could not be written): the run's warnings.
    const notes = cacheNotes();
    if (options.configCacheNotes) void notes.take(Promise.resolve(ok({ cacheNotes: options.configCacheNotes })));
    const rows = await runCells(config, facts, runDir, options, secrets, notes);
    const run = assemble(facts, rows, options.signal.aborted);
    const homeless = runDir.refusedHomes().map((why) => `--keep: ${why}; the cell stays in its run directory`);
    const more = [...(secrets?.warning ? [secrets.warning] : []), ...homeless, ...notes.lines()];
    return ok(more.length ? { ...run, warnings: [...run.warnings, ...more] } : run);
  } finally {
    await packing;
    options.signal.removeEventListener('abort', stopPacking);
    await runDir.close(cookie, options.signal.aborted);
  }
}

/** Every selected variant, scheduled and shown by progress; the rows in plan order, a mutated install's marked. */
async function runCells(
  config: ResolvedConfig,
  facts: RunContext,
  runDir: RunDir,
  options: RunOptions,
  secrets: RunSecrets | undefined,
  notes: CacheNotes,
): Promise<CellResult[]> {
  const { plan, selected } = facts;
  const units = interleave(selected);
  const axes = selected.some(cellHasAxes);
  const cores = os.availableParallelism();
  const sideOff = options.inTurn === true || process.env.MCP_MATRIX_SIDE_BY_SIDE?.trim().toLowerCase() === 'off';
  // Installs are CPU- and network-bound; driver runs mostly wait on their servers, so with axes more of
  // them run at once than installs (each cell's install, each client's and each runtime is made once).
  const inTurn = Math.min(options.concurrency ?? (axes ? 2 * cores : cores), units.length);
  // A cell's variants side by side: more drivers at once than cells, where the cells' Node lanes give them work.
  const beside = Math.min(options.concurrency ?? besidePerCore(selected) * cores, units.length);
  const variantsBeside = !sideOff && laneRoom(config, selected, beside);
  const concurrency = variantsBeside ? beside : inTurn;
  const installSlots = semaphore(Math.max(1, Math.min(options.concurrency ?? cores, concurrency)));
  const finished: CellResult[] = [];
  const window = reuseWindowFor(config, options);
  options.onCellsStart?.(() => assemble(facts, [...finished], true));
  const ctx: CellContext = {
    plan,
    ...(secrets ? { secrets } : {}),
    tarball: facts.tarball,
    runDir: runDir.dir,
    harnessVersion: HARNESS_VERSION,
    npmVersion: facts.npmVersion,
    keep: options.keep,
    dispose: runDir.dispose,
    signal: options.signal,
    repro: reproFor(config, facts.tarball, options),
    // Install reuse (docs/performance.md): off with --fresh or `install.reuse: false`.
    ...(options.fresh || !config.install.reuse ? {} : { treeCache: treeCacheDir() }),
    // The reuse window: a local run only; CI, --fresh and a frozen plan resolve now.
    ...(window ? { reuseWindowMs: window } : {}),
    cacheNote: (note) => void notes.take(Promise.resolve(ok({ cacheNotes: [note] }))),
    // --in-turn, or MCP_MATRIX_SIDE_BY_SIDE=off in the environment (the test suite's runs), whatever the config says;
    // variants side by side run each one's phases in turn.
    ...(variantsBeside ? { variantsBeside } : !sideOff && sideBySideFits(config, concurrency, cores) ? { sideBySide: true } : {}),
    ...(options.install ? { install: options.install } : {}),
    ...instruments(config, runDir.dir, options.signal, installSlots, notes),
  };
  const shownKept = (r: CellResult): CellResult => {
    const home = runDir.homeOf(r.cell);
    return r.cellDir && home ? { ...r, cellDir: home } : r;
  };
  const cells = cellRuns(ctx, installSlots, shownKept);
  const shared = prepareShared(config, ctx);
  const ran = await runWithProgress(
    units,
    concurrency,
    options.progress,
    async (unit: RunUnit, hooks) => {
      const row = await cells.run(unit, hooks);
      finished.push(row);
      return row;
    },
    options.progressLine,
  );
  // Nothing the run started outlives its cells (when every install failed, the suite was not waited for).
  await shared;
  // Rows in plan order (cells, then their variants); a cell whose install changed under its variants measured nothing.
  const order = new Map(units.map((u, i) => [u.id, i]));
  const byPlan = planOrder(selected);
  return [...ran]
    .sort((a, b) => (byPlan.get(a.id) ?? order.get(a.id)!) - (byPlan.get(b.id) ?? order.get(b.id)!))
    .map((row) => {
      const mutated = cells.mutated(row.cell);
      return mutated ? withMutatedInstall(row, mutated) : row;
    });
}

/** The repro command of each variant, with the config and tarball flags as the user would type them. */
function reproFor(config: ResolvedConfig, tarball: Tarball, options: RunOptions) {
  const configFlag =
    options.configFlag === undefined ? undefined : portablePath(path.resolve(options.cwd, options.configFlag), options.cwd);
  const tarballFlag = config.source.kind === 'tarball' ? portablePath(tarball.file, options.cwd) : undefined;
  return (_cell: PlannedCell, variant: PlannedVariant) => reproCommand(variant, configFlag, tarballFlag, options.invocation);
}

async function obtainTarball(config: ResolvedConfig, runDir: string, signal: AbortSignal, pack: DirectoryPacker): Promise<Result<Tarball>> {
  const { source, install } = config;
  // pnpm or Yarn, when the package is theirs, installs as the harness's other tools do.
  return source.kind === 'tarball'
    ? fingerprint(source.file)
    : pack(source.dir, runDir, signal, { attempts: install.attempts, timeoutMs: install.timeoutMs });
}
