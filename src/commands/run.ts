// `mcp-matrix run`: the matrix, its reports, and an exit code that tells CI what happened.
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { prepareConfig, type PrepareOptions } from '../orchestrator/prepare.js';
import { invocation } from '../orchestrator/invocation.js';
import { orchestrate } from '../orchestrator/orchestrate.js';
import type { ProgressMode } from '../orchestrator/progress.js';
import { publishInto } from '../reports/publish.js';
import { checkOutDir, writeReportsSync, writeRunReports } from '../reports/write.js';
import { decideRun, storedFacts } from '../judge/verdict.js';
import { baselineFromRun, DEFAULT_BASELINE, parseBaseline, renderBaseline } from '../reports/baseline.js';
import type { BaselineEntry, RunResult } from '../results/types.js';
import { hasAxes } from '../results/variants.js';
import { cellHasAxes } from '../plan/plan.js';
import { describeExpansion } from './plan.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { describeSwept, sweepStale } from '../orchestrator/sweep.js';
import { onHardExit } from '../process/tracker.js';
import { renderPublished, renderTable } from '../reports/markdown.js';
import { publishToGithub } from './github.js';
import { renderLookupLines, renderReuseLines, renderTerminalFailures } from '../reports/terminal.js';
import { fail, type Failure, type Result } from '../util/result.js';
import { shellWord } from '../cells/driver-launch.js';
import { rerunsIn } from '../cells/kept.js';
import { parseFrozenPlan, type FrozenPlan } from '../plan/frozen.js';
import { parseSnapshot, renderSnapshot, snapshotOf, SNAPSHOT_FILE, type SurfaceItems } from '../results/surface.js';
import { recordedSnapshot, type Recorded } from '../results/parity.js';
import { parityLog } from '../reports/parity-lines.js';

export const DEFAULT_OUT = 'matrix-results';

export interface RunCommandOptions extends PrepareOptions {
  cells: string[];
  out?: string;
  concurrency?: number;
  keep: boolean;
  /** --fresh: every cell a plain npm install (no install reuse). */
  fresh?: boolean;
  progress: ProgressMode;
  signal: AbortSignal;
  junit: boolean;
  publish?: string;
  /** Known failures (default: mcp-matrix.baseline.json in the working directory, when it exists). */
  baseline?: string;
  /** Write the baseline file from this run's failures. */
  updateBaseline?: boolean;
  /** Write mcp-surface.json (next to the config) from this run's surface instead of comparing with it. */
  updateSurface?: boolean;
  /** plan.json (`plan --json`'s output): run its frozen plan, never resolving against the registry. */
  plan?: string;
  /** How a repro line starts (`npx mcp-matrix` for the API); default: as this process was started. */
  invocation?: string;
  /** Told the run as its reports say it, and the files written (the programmatic API's result). */
  onRun?: (run: RunResult, written: string[]) => void;
}

export async function runCommand(options: RunCommandOptions, log: Logger): Promise<number | Failure> {
  // What a dead run (kill -9, a lost CI runner) left behind goes first; its directories go while this run works.
  const swept = sweepStale();
  const sweptLine = describeSwept(swept);
  if (sweptLine) log.warn(sweptLine);
  try {
    return await runAndReport(options, log);
  } finally {
    await swept.removed;
  }
}

async function runAndReport(options: RunCommandOptions, log: Logger): Promise<number | Failure> {
  const interruptedEarly = (what: string): number => {
    log.error(`mcp-matrix: interrupted ${what}: no cell ran, no results written`);
    return 130;
  };
  // Bad input fails at once, before any look-up or install: the results must have somewhere to go.
  const outDir = path.resolve(options.cwd, options.out ?? DEFAULT_OUT);
  const badOut = await checkOutDir(outDir);
  if (badOut) return { kind: 'usage', message: `--out: ${badOut}` };
  if (options.publish) {
    const badPublish = await checkPublishTarget(path.resolve(options.cwd, options.publish));
    if (badPublish) return { kind: 'usage', message: `--publish: ${badPublish}` };
  }
  const baselineFile = path.resolve(options.cwd, options.baseline ?? DEFAULT_BASELINE);
  const baselineShown = path.relative(options.cwd, baselineFile) || baselineFile;
  let baseline: { file: string; entries: BaselineEntry[] } | undefined;
  if (options.baseline !== undefined || (await stat(baselineFile).catch(() => undefined))) {
    const read = await readBaseline(baselineFile, baselineShown);
    if (!read.ok) {
      // --update-baseline rewrites a missing file; anything else is bad input.
      if (!(options.updateBaseline && !(await stat(baselineFile).catch(() => undefined)))) return read.error;
    } else baseline = { file: baselineShown, entries: read.value };
  }
  let frozen: FrozenPlan | undefined;
  if (options.plan) {
    const read = await readFrozenPlan(path.resolve(options.cwd, options.plan), options.plan);
    if (!read.ok) return read.error;
    frozen = read.value;
  }
  const prepared = await prepareConfig(options, { frozen: frozen !== undefined, ...(options.fresh ? {} : { window: true }) });
  if (options.signal.aborted) return interruptedEarly('while loading the config and looking up the registry');
  if (!prepared.ok) return prepared.error;
  const { config, registry, cacheNotes: configCacheNotes } = prepared.value;
  const badSource = await checkSource(config.source);
  if (badSource) {
    registry.cancel();
    return { kind: 'usage', message: badSource };
  }
  const snapshotFile = path.join(config.dir, SNAPSHOT_FILE);
  let surfaceSnapshot: SurfaceItems | undefined;
  let comparedSnapshot: Recorded | undefined;
  if (config.surface === false && options.updateSurface) {
    registry.cancel();
    return { kind: 'usage', message: '--update-surface: the config turns the surface check off (`surface: false`)' };
  }
  if ((config.surface !== false || config.parity !== false) && !options.updateSurface) {
    const text = await readFile(snapshotFile, 'utf8').catch(() => undefined);
    if (text !== undefined) {
      const parsed = parseSnapshot(text);
      if (!parsed.ok) {
        registry.cancel();
        return { kind: 'usage', message: `${snapshotFile}: ${parsed.error}` };
      }
      if (config.surface !== false) surfaceSnapshot = parsed.items;
      if (config.parity !== false) comparedSnapshot = parsed.compared;
    }
  }
  let dropHardExit = (): void => {};
  const shown = new Set<string>();
  const result = await orchestrate(config, registry, {
    cwd: options.cwd,
    cells: options.cells,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    keep: options.keep,
    ...(options.fresh ? { fresh: true } : {}),
    ...(configCacheNotes.length > 0 ? { configCacheNotes } : {}),
    progress: options.progress,
    progressLine: log.info,
    warn: log.warn,
    signal: options.signal,
    ...(options.config ? { configFlag: options.config } : {}),
    invocation: options.invocation ?? invocation(),
    ...(baseline ? { baseline } : {}),
    ...(surfaceSnapshot ? { surfaceSnapshot } : {}),
    ...(comparedSnapshot ? { comparedSnapshot } : {}),
    ...(frozen ? { frozen } : {}),
    onPlan: (plan) => {
      // With axes, the expansion and the count before anything runs (as `plan` shows them).
      if (plan.cells.some(cellHasAxes)) log.info(describeExpansion(plan));
      for (const f of plan.lockstep) shown.add(`lockstep: ${f.message}`);
      for (const f of plan.lockstep)
        (f.level === 'error' ? log.error : log.warn)(`${f.level === 'error' ? 'lockstep error: ' : 'lockstep: '}${f.message}`);
    },
    // A forced exit still leaves a results.json: the cells finished so far, marked interrupted.
    onCellsStart: (snapshot) => {
      dropHardExit = onHardExit(() => void writeReportsSync(snapshot(), outDir, { junit: options.junit }));
    },
  });
  if (!result.ok) {
    dropHardExit();
    return options.signal.aborted ? interruptedEarly('before the cells started (plan, pack)') : result.error;
  }
  let run = result.value;
  if (options.updateBaseline && !run.interrupted) {
    const text = renderBaseline(baselineFromRun(run, baseline?.entries ?? []));
    await writeFile(baselineFile, text);
    const entries = parseBaseline(text, baselineShown);
    if (entries.ok) {
      const judged = { ...run, baseline: { file: baselineShown, entries: entries.value } };
      run = { ...judged, ...decideRun(run.cells, run.interrupted, storedFacts(judged)) };
      log.info(`--update-baseline: wrote ${entries.value.length} known failure(s) to ${baselineShown}`);
    }
  }
  // An interrupt that comes while the reports are written: they are written again, saying interrupted.
  let written: string[];
  ({ run, written } = await writeRunReports(run, outDir, { junit: options.junit, signal: options.signal }));
  dropHardExit();
  log.info('');
  log.info(renderTable(run));
  log.info('');
  const unconfigured = Object.entries(config.skipped).flatMap(([phase, why]) => (why === 'not configured' ? [phase] : []));
  if (unconfigured.length > 0)
    log.info(
      `skipped (not configured): ${unconfigured.join(', ')}; add ${unconfigured.length > 1 ? 'them' : 'it'} to the config to test ${unconfigured.length > 1 ? 'them' : 'it'} (docs/config.md)`,
    );
  for (const line of [...renderLookupLines(run), ...renderReuseLines(run)]) log.info(line);
  for (const line of renderTerminalFailures(run)) log.error(line);
  for (const line of keptLines(run, options.cwd)) log.info(line);
  for (const f of run.surface?.findings ?? []) log.error(`surface differs: ${f}`);
  for (const d of run.surface?.drift ?? [])
    log.error(`surface changed since ${SNAPSHOT_FILE}: ${d}  (commit the change with --update-surface)`);
  for (const line of parityLog(run)) log.error(line);
  if (options.updateSurface && !run.interrupted) {
    const items = snapshotOf(run.cells);
    if (items) {
      const compared = config.parity === false ? undefined : recordedSnapshot(run.cells);
      await writeFile(snapshotFile, renderSnapshot(run.plan.package.name, items, compared));
      log.info(`wrote ${path.relative(options.cwd, snapshotFile) || SNAPSHOT_FILE} (${Object.keys(items).length} items): commit it`);
    } else log.error(`--update-surface: no stdio run listed a surface; ${SNAPSHOT_FILE} not written`);
  }
  // Lockstep findings were printed once, when the plan resolved.
  for (const w of run.warnings) if (!shown.has(w)) log.warn(w);
  if (options.publish) {
    const published = await publishToDoc(options.publish, run, options.cwd);
    if (published) log.error(published);
  }
  await publishToGithub(run, log);
  // One that came after them (while publishing or printing): the CLI ends with 130, so the files must say so.
  if (options.signal.aborted && !run.interrupted)
    ({ run, written } = await writeRunReports(run, outDir, { junit: options.junit, signal: options.signal }));
  log.info(
    `${run.verdict.toUpperCase()} · ${hasAxes(run.plan) ? `${run.cells.length} variant(s) of ${new Set(run.cells.map((c) => c.cell)).size} cell(s)` : `${run.cells.length} cell(s)`} in ${(run.durationMs / 1000).toFixed(1)} s · ${written.map((f) => path.relative(options.cwd, f)).join(', ')}`,
  );
  options.onRun?.(run, written);
  return run.exitCode;
}

/** --keep: where each kept cell is (its home `cells/<id>`, shown relative to the working directory) and how to re-run each of its drivers. */
function keptLines(run: Parameters<typeof renderTable>[0], cwd: string): string[] {
  const dirs = [...new Set(run.cells.flatMap((c) => (c.cellDir ? [c.cellDir] : [])))];
  if (dirs.length === 0) return [];
  const shown = (dir: string) => {
    const rel = path.relative(cwd, dir);
    return shellWord(rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir);
  };
  return [
    `kept ${dirs.length} cell director${dirs.length > 1 ? 'ies' : 'y'} (--keep); step into one and re-run a driver (its log: driver.log beside its spec):`,
    ...dirs.flatMap((dir) => {
      const reruns = rerunsIn(dir);
      return (reruns.length ? reruns : ['node .mcp-matrix/driver/index.js .mcp-matrix/spec.json']).map(
        (cmd) => `  cd ${shown(dir)} && ${cmd}`,
      );
    }),
  ];
}

/** The package source exists: a tarball file, or a directory with a package.json. */
async function checkSource(source: ResolvedConfig['source']): Promise<string | undefined> {
  if (source.kind === 'tarball') {
    const info = await stat(source.file).catch(() => undefined);
    return info?.isFile() ? undefined : `tarball ${source.file} does not exist or is not a file (check --tarball or the config's tarball)`;
  }
  const info = await stat(path.join(source.dir, 'package.json')).catch(() => undefined);
  return info?.isFile() ? undefined : `package directory ${source.dir} has no package.json (check the config's package)`;
}

/** The --publish document is readable and has its markers, so the run's end cannot fail on it. */
async function checkPublishTarget(target: string): Promise<string | undefined> {
  const doc = await readFile(target, 'utf8').catch(() => undefined);
  if (doc === undefined) return `cannot read ${target}`;
  const marked = publishInto(doc, '');
  return marked.ok ? undefined : `${target}: ${marked.error}`;
}

async function publishToDoc(file: string, run: Parameters<typeof renderTable>[0], cwd: string): Promise<string | undefined> {
  const target = path.resolve(cwd, file);
  const doc = await readFile(target, 'utf8').catch(() => undefined);
  if (doc === undefined) return `--publish: cannot read ${target}`;
  const out = publishInto(doc, renderPublished(run));
  if (!out.ok) return `--publish: ${out.error}`;
  await writeFile(target, out.text);
  return undefined;
}

/** plan.json's frozen plan; a file that is missing or not JSON is bad input. */
export async function readFrozenPlan(file: string, shown: string): Promise<Result<FrozenPlan>> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return { ok: false, error: { kind: 'usage', message: `--plan: cannot read ${file}` } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      error: { kind: 'usage', message: `--plan ${shown}: not JSON (write it with \`mcp-matrix plan --json > plan.json\`)` },
    };
  }
  return parseFrozenPlan(json, shown);
}

/** The baseline file's entries, or a usage error naming it (as shown to the user). */
async function readBaseline(file: string, shown: string): Promise<Result<BaselineEntry[]>> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return fail('usage', `--baseline: cannot read ${shown}`);
  return parseBaseline(text, shown);
}
