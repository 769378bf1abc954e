// `mcp-matrix run`: the library's run (api/run-core.ts) plus what only the CLI does: sweep what a dead run
// left, print the table, rewrite the baseline or the surface snapshot, publish, and the exit code.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { baselinePath, type Baseline } from '../api/inputs.js';
import { printResults, printSummary, printWarnings } from '../api/print.js';
import { runToReports, type RunCoreOptions } from '../api/run-core.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { decideRun, storedFacts } from '../judge/verdict.js';
import type { Logger } from '../logger.js';
import { describeSwept, sweepStale } from '../orchestrator/sweep.js';
import { baselineFromRun, parseBaseline, renderBaseline } from '../reports/baseline.js';
import { renderPublished } from '../reports/markdown/markdown.js';
import { publishInto } from '../reports/write/publish.js';
import { writeRunReports } from '../reports/write/write.js';
import { recordedSnapshot } from '../results/parity.js';
import { renderSnapshot, snapshotOf, SNAPSHOT_FILE } from '../results/surface.js';
import type { RunResult } from '../results/types.js';
import type { Failure } from '../util/result.js';
import { publishToGithub } from './github.js';

export interface RunCommandOptions extends RunCoreOptions {
  publish?: string;
  /** Write the baseline file from this run's failures. */
  updateBaseline?: boolean;
  /** Write mcp-surface.json (next to the config) from this run's surface instead of comparing with it. */
  updateSurface?: boolean;
}

export async function runCommand(options: RunCommandOptions, log: Logger): Promise<number | Failure> {
  // What a dead run (kill -9, a lost CI runner) left behind goes first; its directories go while this run works.
  const swept = sweepStale();
  const sweptLine = describeSwept(swept);
  if (sweptLine) log.warn(sweptLine);
  try {
    return await runAndFinish(options, log);
  } finally {
    await swept.removed;
  }
}

async function runAndFinish(options: RunCommandOptions, log: Logger): Promise<number | Failure> {
  const { cwd } = options;
  if (options.publish) {
    const badPublish = await checkPublishTarget(path.resolve(cwd, options.publish));
    if (badPublish) return { kind: 'usage', message: `--publish: ${badPublish}` };
  }
  const ran = await runToReports(options, log, {
    rewritesBaseline: options.updateBaseline === true,
    rewritesSurface: options.updateSurface === true,
    ...(options.updateBaseline ? { beforeReports: (run, baseline) => updateBaseline(run, baseline, cwd, options.baseline, log) } : {}),
  });
  if (!ran.ok) return ran.error;
  let { run, written } = ran.value;
  const { config, outDir, shown } = ran.value;
  printResults(run, config, cwd, log);
  if (options.updateSurface && !run.interrupted) await updateSurface(run, config, cwd, log);
  printWarnings(run, shown, log);
  if (options.publish) {
    const published = await publishToDoc(options.publish, run, cwd);
    if (published) log.error(published);
  }
  await publishToGithub(run, log);
  // An interrupt after the reports (while publishing or printing): the CLI ends with 130, so the files must say so.
  if (options.signal.aborted && !run.interrupted)
    ({ run, written } = await writeRunReports(run, outDir, { junit: options.junit, signal: options.signal }));
  printSummary(run, written, cwd, log);
  return run.exitCode;
}

/** --update-baseline: the baseline file from this run's failures, and the run judged with it. */
async function updateBaseline(
  run: RunResult,
  baseline: Baseline | undefined,
  cwd: string,
  option: string | undefined,
  log: Logger,
): Promise<RunResult> {
  if (run.interrupted) return run;
  const { file, shown } = baselinePath(cwd, option);
  const text = renderBaseline(baselineFromRun(run, baseline?.entries ?? []));
  await writeFile(file, text);
  const entries = parseBaseline(text, shown);
  if (!entries.ok) return run;
  const judged = { ...run, baseline: { file: shown, entries: entries.value } };
  log.info(`--update-baseline: wrote ${entries.value.length} known failure(s) to ${shown}`);
  return { ...judged, ...decideRun(run.cells, run.interrupted, storedFacts(judged)) };
}

/** --update-surface: mcp-surface.json (beside the config) from this run's surface and recorded answers. */
async function updateSurface(run: RunResult, config: Pick<ResolvedConfig, 'dir' | 'parity'>, cwd: string, log: Logger): Promise<void> {
  const file = path.join(config.dir, SNAPSHOT_FILE);
  const items = snapshotOf(run.cells);
  if (!items) return log.error(`--update-surface: no stdio run listed a surface; ${SNAPSHOT_FILE} not written`);
  const compared = config.parity === false ? undefined : recordedSnapshot(run.cells);
  await writeFile(file, renderSnapshot(run.plan.package.name, items, compared));
  log.info(`wrote ${path.relative(cwd, file) || SNAPSHOT_FILE} (${Object.keys(items).length} items): commit it`);
}

/** The --publish document is readable and has its markers, so the run's end cannot fail on it. */
async function checkPublishTarget(target: string): Promise<string | undefined> {
  const doc = await readFile(target, 'utf8').catch(() => undefined);
  if (doc === undefined) return `cannot read ${target}`;
  const marked = publishInto(doc, '');
  return marked.ok ? undefined : `${target}: ${marked.error}`;
}

async function publishToDoc(file: string, run: RunResult, cwd: string): Promise<string | undefined> {
  const target = path.resolve(cwd, file);
  const doc = await readFile(target, 'utf8').catch(() => undefined);
  if (doc === undefined) return `--publish: cannot read ${target}`;
  const out = publishInto(doc, renderPublished(run));
  if (!out.ok) return `--publish: ${out.error}`;
  await writeFile(target, out.text);
  return undefined;
}
