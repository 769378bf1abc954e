// The run: plan (while packing once) → cells in parallel → RunResult. Interrupts end in a partial, marked result.
import os from 'node:os';
import path from 'node:path';
import { fingerprint, packDirectory, type Tarball } from '../pack/pack.js';
import { sourceCommit } from '../pack/commit.js';
import { thawPlan, type FrozenPlan } from '../plan/frozen.js';
import { buildPlan, hasAxes, selectCells, selectedIds, type Plan, type PlannedCell, type PlannedVariant } from '../plan/plan.js';
import type { Registry } from '../plan/registry.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { CellContext } from '../cells/cell-context.js';
import { installServer, type CellInstall } from '../cells/install-server.js';
import { runVariant } from '../cells/run-cell.js';
import type { BindShare } from '../judge/bind-share.js';
import { recheckInstall, withMutatedInstall } from '../judge/mutated-install.js';
import { installClient, type ClientInstall } from '../cells/client-install.js';
import { ensureNodeRuntime, type NodeRuntime } from '../cells/node-runtime.js';
import { treeCacheDir } from '../cells/tree-cache.js';
import { ensureConformanceSuite, type ConformanceSuite } from '../cells/conformance-suite.js';
import { cacheNotes } from '../cache/notes.js';
import type { DriverHooks } from '../cells/driver-launch.js';
import { cellDirOf, createRunDir, markKept, removeDir, removeRunDir, removeRunDirWithin } from '../cells/workspace.js';
import { linkKeptCells, pruneKeptHomes, type KeptHomes } from '../cells/kept.js';
import { runSecrets } from '../judge/secrets.js';
import { readPullRequestEvent } from '../cells/github-event.js';
import { currentCookie, killCarriers, settleCarriers } from '../process/cookie.js';
import { run as exec } from '../process/exec.js';
import { deferCleanup, killAll, onHardExit } from '../process/tracker.js';
import { RESULTS_SCHEMA_VERSION, type BaselineEntry, type CellResult, type RunResult, type VariantRef } from '../results/types.js';
import { decideRun } from '../results/verdict.js';
import { compareSnapshot, surfaceCheck, surfaceFailures, type SurfaceItems } from '../results/surface.js';
import { compareRecorded, parityFailures, type Recorded } from '../results/parity.js';
import { HARNESS_VERSION } from '../version.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';
import { describeInfraError } from '../util/infra.js';
import { portablePath } from './invocation.js';
import { runWithProgress, type ProgressMode } from './progress.js';

/** How long a forced exit waits for the run dir's removal before handing it off (the CLI's own bound is above it). */
const FORCED_REMOVAL_MS = 500;

/** How long the end of a run waits for SIGKILLed processes to be gone (a loaded machine is slow to reap). */
const SETTLE_MS = 3_000;

export interface RunOptions {
  cwd: string;
  cells: string[];
  concurrency?: number;
  keep: boolean;
  progress: ProgressMode;
  /** Where line progress (simple/CI) goes: the logger. */
  progressLine?(line: string): void;
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
  /** The plan job's frozen plan (`run --plan`): used as it is, never resolved against the registry. */
  frozen?: FrozenPlan;
  /** Called once the plan is resolved, before any cell starts. */
  onPlan?(plan: Plan): void;
  /** Called once cells start: `snapshot()` is the run so far (finished cells only), marked interrupted, for a forced exit. */
  onCellsStart?(snapshot: () => RunResult): void;
}

export async function runMatrix(config: ResolvedConfig, registry: Registry, options: RunOptions): Promise<Result<RunResult>> {
  const startedAt = new Date();
  const cookie = currentCookie();
  const created = await createRunDir(cookie).then(
    (dir) => ({ dir }),
    (error: unknown) => ({ error }),
  );
  // No room for the run directory (a full disk, no permission on TMPDIR): the machine's, not measured.
  if ('error' in created)
    return fail(
      'infrastructure',
      `cannot create the run directory in ${os.tmpdir()}: ${describeInfraError(created.error) ?? errorMessage(created.error)}`,
    );
  const runDir = created.dir;
  // --keep: the selected cells' homes (`cells/<id>`), linked before they start, so an interrupted run keeps them too.
  let homes: KeptHomes | undefined;
  const keepRun = () => markKept(runDir, homes ? pruneKeptHomes(homes) : []);
  // A forced exit removes the run directory within its bound, then hands the rest to a detached remover.
  const dropHardExit = onHardExit(() => (options.keep ? keepRun() : removeRunDirWithin(runDir, FORCED_REMOVAL_MS)));
  const disposals: Promise<void>[] = [];
  // Packing needs only the source: it runs while the registry answers the plan's look-ups.
  const packAbort = new AbortController();
  const stopPacking = () => packAbort.abort();
  options.signal.addEventListener('abort', stopPacking, { once: true });
  const packing = obtainTarball(config.source, runDir, packAbort.signal);
  try {
    const [planned, npmVersion, commit] = await Promise.all([
      options.frozen ? thawPlan(config, options.frozen) : buildPlan(config, registry),
      npmVersionOf(options.signal),
      sourceCommit(config.source.kind === 'directory' ? config.source.dir : options.cwd),
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
      homes = linkKeptCells(
        options.cwd,
        selected.value.map((c) => ({ id: c.id, dir: cellDirOf(runDir, c.id) })),
      );
    const shownKept = (r: CellResult): CellResult => {
      const home = homes?.linked.get(r.cell);
      return r.cellDir && home ? { ...r, cellDir: home } : r;
    };
    const units = interleave(selected.value);
    const axes = selected.value.some(hasAxes);
    const cores = os.availableParallelism();
    // Installs are CPU- and network-bound; driver runs mostly wait on their servers, so with axes more of
    // them run at once than installs (each cell's install, each client's and each runtime is made once).
    const concurrency = Math.min(options.concurrency ?? (axes ? 2 * cores : cores), units.length);
    const installSlots = semaphore(Math.max(1, Math.min(options.concurrency ?? cores, concurrency)));
    const configFlag =
      options.configFlag === undefined ? undefined : portablePath(path.resolve(options.cwd, options.configFlag), options.cwd);
    const tarballFlag = config.source.kind === 'tarball' ? portablePath(tarball.value.file, options.cwd) : undefined;
    const repro = (_cell: PlannedCell, variant: PlannedVariant) => reproCommand(variant, configFlag, tarballFlag, options.invocation);
    const finished: CellResult[] = [];
    options.onCellsStart?.(() =>
      assemble(
        plan,
        tarball.value,
        [...finished],
        selected.value,
        startedAt,
        npmVersion,
        true,
        commit,
        options.baseline,
        options.surfaceSnapshot,
        options.comparedSnapshot,
      ),
    );
    const clients = new Map<string, Promise<Result<ClientInstall>>>();
    const runtimes = new Map<string, Promise<Result<NodeRuntime>>>();
    // The conformance suite: installed (or found in the cache) once per run, on its first use.
    let suite: Promise<Result<ConformanceSuite>> | undefined;
    const secrets = config.secrets
      ? runSecrets(config.secrets, process.env, readPullRequestEvent(process.env.GITHUB_EVENT_PATH))
      : undefined;
    // What the caches said (a damaged entry replaced, a cache that could not be written): the run's warnings.
    const notes = cacheNotes();
    const ctx: CellContext = {
      plan,
      ...(secrets ? { secrets } : {}),
      tarball: tarball.value,
      runDir,
      harnessVersion: HARNESS_VERSION,
      npmVersion,
      keep: options.keep,
      dispose: (dir) => void disposals.push(removeDir(dir).catch(() => undefined)),
      signal: options.signal,
      repro,
      // Install reuse (docs/performance.md): off with --fresh or `install.reuse: false`.
      ...(options.fresh || !config.install.reuse ? {} : { treeCache: treeCacheDir() }),
      // A client from the cache takes no install slot; only an npm install does.
      clientInstall: (client) =>
        once(clients, client.id, () =>
          notes.take(
            installClient(runDir, client, {
              attempts: config.install.attempts,
              timeoutMs: config.install.timeoutMs,
              signal: options.signal,
              slot: installSlots,
            }),
          ),
        ),
      nodeRuntime: (node) =>
        once(runtimes, node.version, () =>
          notes.take(ensureNodeRuntime(node, { signal: options.signal, fallbackDir: path.join(runDir, 'node') })),
        ),
      conformanceSuite: () =>
        (suite ??= notes.take(
          ensureConformanceSuite({
            runDir,
            attempts: config.install.attempts,
            timeoutMs: config.install.timeoutMs,
            signal: options.signal,
            slot: installSlots,
          }),
        )),
    };
    // The server install of a cell is shared by its variants; its dir goes after the last of them.
    const cellRuns = new Map<
      string,
      {
        installing: Promise<CellInstall>;
        turn: ReturnType<typeof semaphore>;
        left: number;
        rows: CellResult[];
        binds: BindShare;
        mutated?: string;
      }
    >();
    const installOf = (cell: PlannedCell, hooks: DriverHooks) => {
      let entry = cellRuns.get(cell.id);
      if (!entry) {
        const sharedBy = cell.variants.length;
        const withShare: DriverHooks = {
          ...hooks,
          ...(hooks.onInstallEnd ? { onInstallEnd: (o) => hooks.onInstallEnd!({ ...o, ...(sharedBy > 1 ? { sharedBy } : {}) }) } : {}),
        };
        entry = {
          installing: installSlots(() => installServer(cell, ctx, withShare)),
          turn: semaphore(1),
          left: cell.variants.length,
          rows: [],
          binds: new Map(),
        };
        cellRuns.set(cell.id, entry);
      } else if (hooks.onInstallEnd) {
        // The other variants show the shared install's outcome once it is known.
        const show = hooks.onInstallEnd;
        void entry.installing.then((i) =>
          show({ ok: i.kind === 'installed', durationMs: i.installMs, attempts: i.attempts ?? 1, sharedBy: cell.variants.length }),
        );
      }
      return entry;
    };
    const ran = await runWithProgress(
      units,
      concurrency,
      options.progress,
      async (unit, hooks) => {
        const entry = installOf(unit.cell, hooks);
        // One variant at a time on a cell's install: a server may keep state in its package directory or
        // its working directory (a memory file next to its bin), and two variants must not share it at once.
        const row = shownKept(await entry.turn(() => runVariant(unit.cell, unit.variant, entry.installing, ctx, hooks, entry.binds)));
        entry.rows.push(row);
        if (--entry.left === 0) {
          const install = await entry.installing;
          if (install.kind === 'installed' && !options.signal.aborted) {
            entry.mutated = await recheckInstall(install.cellDir, install.env.evidence.lockfileSha256);
          }
          if (install.cellDir && !options.keep) ctx.dispose(install.cellDir);
        }
        finished.push(row);
        return row;
      },
      options.progressLine,
    );
    // Rows in plan order (cells, then their variants); a cell whose install changed under its variants measured nothing.
    const order = new Map(units.map((u, i) => [u.id, i]));
    const byPlan = planOrder(selected.value);
    const cells = [...ran]
      .sort((a, b) => (byPlan.get(a.id) ?? order.get(a.id)!) - (byPlan.get(b.id) ?? order.get(b.id)!))
      .map((row) => {
        const mutated = cellRuns.get(row.cell)?.mutated;
        return mutated ? withMutatedInstall(row, mutated) : row;
      });
    const run = assemble(
      plan,
      tarball.value,
      cells,
      selected.value,
      startedAt,
      npmVersion,
      options.signal.aborted,
      commit,
      options.baseline,
      options.surfaceSnapshot,
      options.comparedSnapshot,
    );
    const homeless = [...(homes?.refused.values() ?? [])].map((why) => `--keep: ${why}; the cell stays in its run directory`);
    const more = [...(secrets?.warning ? [secrets.warning] : []), ...homeless, ...notes.lines()];
    return ok(more.length ? { ...run, warnings: [...run.warnings, ...more] } : run);
  } finally {
    await packing;
    options.signal.removeEventListener('abort', stopPacking);
    killAll();
    // Whatever escaped a process group but still carries the run's cookie.
    if (cookie) killCarriers(cookie);
    const cleanup = (async () => {
      // The CLI exits only once they are gone, not merely signalled.
      if (cookie) await settleCarriers(cookie, SETTLE_MS);
      await Promise.all(disposals);
      if (options.keep) keepRun();
      else await removeRunDir(runDir).catch(() => undefined);
      dropHardExit();
    })();
    // Interrupted: the partial results go out first; the CLI waits for this before it exits.
    if (options.signal.aborted) deferCleanup(cleanup);
    else await cleanup;
  }
}

/** A variant to run, with its cell: what progress shows and the pool schedules. */
interface RunUnit {
  id: string;
  version: string;
  role?: string;
  cell: PlannedCell;
  variant: PlannedVariant;
}

/**
 * Variants round-robin over cells (every cell's first variant, then every second …): the first in line
 * start every cell's install, so cells install and run in parallel as they did before axes.
 */
export function interleave(cells: PlannedCell[]): RunUnit[] {
  const units: RunUnit[] = [];
  const longest = Math.max(0, ...cells.map((c) => c.variants.length));
  for (let i = 0; i < longest; i++)
    for (const cell of cells) {
      const variant = cell.variants[i];
      if (variant) units.push({ id: variant.id, version: cell.version, ...(cell.role ? { role: cell.role } : {}), cell, variant });
    }
  return units;
}

function planOrder(cells: PlannedCell[]): Map<string, number> {
  return new Map(cells.flatMap((c) => c.variants).map((v, i) => [v.id, i]));
}

/** At most `n` tasks at once, in the order they asked. */
export function semaphore(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

function once<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (!pending) cache.set(key, (pending = make()));
  return pending;
}

/** What results.json records of a variant: the client and Node it ran with, without the plan's working fields. */
export function variantRef(v: PlannedVariant): VariantRef {
  return {
    id: v.id,
    ...(v.client ? { client: { pin: v.client.pin, major: v.client.major, version: v.client.version, package: v.client.package } } : {}),
    ...(v.node ? { node: { spec: v.node.spec, version: v.node.version } } : {}),
  };
}

async function obtainTarball(source: ResolvedConfig['source'], runDir: string, signal: AbortSignal): Promise<Result<Tarball>> {
  return source.kind === 'tarball' ? fingerprint(source.file) : packDirectory(source.dir, runDir, signal);
}

async function npmVersionOf(signal: AbortSignal): Promise<string> {
  const out = await exec('npm', ['--version'], { timeoutMs: 15_000, signal });
  return out.ok ? out.stdout.trim() : 'unknown';
}

/** The command that runs this variant alone (without axes: its cell). */
export function reproCommand(
  variant: Pick<PlannedVariant, 'id'>,
  configFlag?: string,
  tarball?: string,
  command = 'npx mcp-matrix',
): string {
  const parts = [command, 'run', '--cell', variant.id];
  if (configFlag) parts.push('--config', configFlag);
  if (tarball) parts.push('--tarball', tarball);
  return parts.join(' ');
}

function assemble(
  plan: Plan,
  tarball: Tarball,
  ran: CellResult[],
  selected: PlannedCell[],
  startedAt: Date,
  npmVersion: string,
  interrupted: boolean,
  commit: string | undefined,
  baseline: RunOptions['baseline'],
  snapshot: SurfaceItems | undefined,
  recorded: Recorded | undefined,
): RunResult {
  const finishedAt = new Date();
  const lockstepErrors = plan.lockstep.filter((f) => f.level === 'error').map((f) => `lockstep: ${f.message}`);
  const warnings = plan.lockstep.filter((f) => f.level === 'warning').map((f) => `lockstep: ${f.message}`);
  // A claim that the cells do not cover fails the run when lockstep is 'error'.
  const failing = plan.config.lockstep === 'error' ? lockstepErrors : [];
  const allow = plan.config.surface === false ? undefined : plan.config.surface.allow;
  const surface = allow && surfaceCheck(ran, allow, snapshot && compareSnapshot(snapshot, ran, allow));
  const parity = plan.config.parity === false ? undefined : compareRecorded(ran, plan.config.parity.allow, recorded);
  const decision = decideRun(ran, interrupted, {
    expected: selected.reduce((n, c) => n + c.variants.length, 0),
    lockstepErrors: failing,
    ...(baseline ? { baseline: baseline.entries } : {}),
    surfaceFailures: surfaceFailures(surface),
    parityFailures: parityFailures(parity),
  });
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    tool: { name: 'mcp-matrix', version: HARNESS_VERSION },
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    interrupted: decision.verdict === 'interrupted',
    plan: {
      configHash: plan.hash,
      configFile: path.basename(plan.config.file),
      ...packageDirOf(plan.config),
      package: { name: plan.package.name, version: plan.package.version, ...(commit ? { commit } : {}) },
      tarball: { file: path.basename(tarball.file), size: tarball.size, sha512: tarball.sha512 },
      cells: plan.cells.map((c) => ({
        id: c.id,
        variants: c.variants.map(variantRef),
        pin: c.pin,
        ...(c.role ? { role: c.role } : {}),
        version: c.version,
        major: c.major,
        allowedToFail: c.allowedToFail,
        installSet: c.installSet,
      })),
      ...(selectedIds(plan.cells, selected) ? { selected: selectedIds(plan.cells, selected)! } : {}),
    },
    host: {
      node: process.version,
      npm: npmVersion,
      os: `${os.platform()} ${os.release()} ${os.arch()}`,
      ...(process.env.CI ? { ci: process.env.GITHUB_ACTIONS ? 'github-actions' : 'ci' } : {}),
    },
    cells: ran,
    verdict: decision.verdict,
    exitCode: decision.exitCode,
    warnings: [...lockstepErrors, ...warnings],
    ...(failing.length > 0 ? { lockstepErrors: failing } : {}),
    ...(baseline ? { baseline } : {}),
    ...(surface ? { surface } : {}),
    ...(parity ? { parity } : {}),
  };
}

/** Where the package's directory is, relative to the config's (posix): reports point at its package.json. */
function packageDirOf(config: Plan['config']): { packageDir?: string } {
  const dir = config.source.kind === 'directory' ? config.source.dir : config.source.packageDir;
  return dir === undefined ? {} : { packageDir: path.relative(config.dir, dir).split(path.sep).join('/') || '.' };
}
