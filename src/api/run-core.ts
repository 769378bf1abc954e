// The matrix as a library: input checks, config, plan, pack, cells, verdicts and the reports written, as a
// Result. The public runMatrix (run.ts) and the CLI's `run` (commands/run.ts) are both thin shells over it.
import path from 'node:path';
import type { CellInstaller } from '../cells/cell-context.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Logger } from '../logger.js';
import { invocation } from '../orchestrator/invocation.js';
import { orchestrate } from '../orchestrator/orchestrate.js';
import { prepareConfig, type PrepareOptions } from '../orchestrator/prepare.js';
import type { ProgressMode } from '../orchestrator/progress.js';
import { readFrozenPlan, type FrozenPlan } from '../plan/frozen.js';
import type { DirectoryPacker } from '../pack/pack.js';
import { onHardExit } from '../process/tracker.js';
import { checkOutDir, writeReportFilesSync, writeRunReports } from '../reports/write/write.js';
import type { RunResult } from '../results/types.js';
import { fail, ok, type Result } from '../util/result.js';
import { checkPackageSource, readBaselineInput, readSnapshotInput, type Baseline } from './inputs.js';
import { printPlan } from './print.js';

export const DEFAULT_OUT = 'matrix-results';

export interface RunCoreOptions extends PrepareOptions {
  cells: string[];
  out?: string;
  concurrency?: number;
  keep: boolean;
  /** Every cell a plain npm install (no install reuse). */
  fresh?: boolean;
  /** Every variant's phases one after another, whatever the config's `sideBySide` says (`--in-turn`). */
  inTurn?: boolean;
  progress: ProgressMode;
  signal: AbortSignal;
  junit: boolean;
  /** Known failures (default: mcp-matrix.baseline.json in the working directory, when it exists). */
  baseline?: string;
  /** plan.json (`plan --json`'s output): run its frozen plan, never resolving against the registry. */
  plan?: string;
  /** How a repro line starts (`npx mcp-matrix` for the API); default: as this process was started. */
  invocation?: string;
  /** Lays out each npm cell's tree instead of npm (tests: cells installed once); absent: npm. */
  install?: CellInstaller;
  /** Packs the package directory instead of its package manager's pack (tests: each fixture packed once); absent: packs. */
  pack?: DirectoryPacker;
}

/** What the CLI adds to a run: it rewrites the baseline or the surface snapshot from the run. */
export interface RunHooks {
  /** --update-baseline: a missing baseline file is no error (the run writes it). */
  rewritesBaseline?: boolean;
  /** --update-surface: the committed snapshot is not compared (the run writes it). */
  rewritesSurface?: boolean;
  /** The judged run, before its reports are written (--update-baseline re-judges it here). */
  beforeReports?(run: RunResult, baseline: Baseline | undefined): Promise<RunResult>;
}

/** A run whose reports were written, with what its shells need to finish. */
export interface Ran {
  run: RunResult;
  written: string[];
  config: ResolvedConfig;
  outDir: string;
  /** Warnings already printed while the run went (lockstep findings, at plan time). */
  shown: Set<string>;
}

export async function runToReports(options: RunCoreOptions, log: Logger, hooks: RunHooks = {}): Promise<Result<Ran>> {
  const interruptedEarly = (what: string) => fail('infrastructure', `interrupted ${what}: no cell ran, no results written`);
  // Bad input fails at once, before any look-up or install: the results must have somewhere to go.
  const outDir = path.resolve(options.cwd, options.out ?? DEFAULT_OUT);
  const badOut = await checkOutDir(outDir);
  if (badOut) return fail('usage', `--out: ${badOut}`);
  const baseline = await readBaselineInput(options.cwd, options.baseline, hooks.rewritesBaseline === true);
  if (!baseline.ok) return baseline;
  let frozen: FrozenPlan | undefined;
  if (options.plan) {
    const read = await readFrozenPlan(path.resolve(options.cwd, options.plan), options.plan);
    if (!read.ok) return read;
    frozen = read.value;
  }
  const prepared = await prepareConfig(options, { frozen: frozen !== undefined, ...(options.fresh ? {} : { window: true }) });
  if (options.signal.aborted) return interruptedEarly('while loading the config and looking up the registry');
  if (!prepared.ok) return prepared;
  const { config, registry, cacheNotes: configCacheNotes } = prepared.value;
  const inputs = await checkPackageSource(config.source).then(async (bad) =>
    bad ? fail('usage', bad) : readSnapshotInput(config, hooks.rewritesSurface === true),
  );
  if (!inputs.ok) {
    registry.cancel();
    return inputs;
  }
  const { surfaceSnapshot, comparedSnapshot } = inputs.value;
  let dropHardExit = (): void => {};
  const shown = new Set<string>();
  const result = await orchestrate(config, registry, {
    cwd: options.cwd,
    cells: options.cells,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    keep: options.keep,
    ...(options.fresh ? { fresh: true } : {}),
    ...(options.inTurn ? { inTurn: true } : {}),
    ...(configCacheNotes.length > 0 ? { configCacheNotes } : {}),
    progress: options.progress,
    progressLine: log.info,
    warn: log.warn,
    signal: options.signal,
    ...(options.config ? { configFlag: options.config } : {}),
    invocation: options.invocation ?? invocation(),
    ...(baseline.value ? { baseline: baseline.value } : {}),
    ...(surfaceSnapshot ? { surfaceSnapshot } : {}),
    ...(comparedSnapshot ? { comparedSnapshot } : {}),
    ...(frozen ? { frozen } : {}),
    ...(options.install ? { install: options.install } : {}),
    ...(options.pack ? { pack: options.pack } : {}),
    onPlan: (plan) => printPlan(plan, log, shown),
    // A forced exit still leaves a results.json: the cells finished so far, marked interrupted.
    onCellsStart: (snapshot) => {
      dropHardExit = onHardExit(() => void writeReportFilesSync(snapshot(), outDir, { junit: options.junit }));
    },
  });
  if (!result.ok) {
    dropHardExit();
    return options.signal.aborted ? interruptedEarly('before the cells started (plan, pack)') : result;
  }
  const judged = hooks.beforeReports ? await hooks.beforeReports(result.value, baseline.value) : result.value;
  // An interrupt that comes while the reports are written: they are written again, saying interrupted.
  const { run, written } = await writeRunReports(judged, outDir, { junit: options.junit, signal: options.signal });
  dropHardExit();
  return ok({ run, written, config, outDir, shown });
}
