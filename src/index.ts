// The public API: what a matrix.config.ts imports (defineConfig), the types of results.json, and the
// matrix from code: runMatrix, loadResults / parseResultsText, renderReport, writeReports. Configs import
// this module too, so the harness behind the functions is loaded only when one is called.
import type { LoadResultsOutcome } from './reports/json/load.js';
import type { ReportFormat } from './api/render.js';
import type { RunMatrixOptions, RunMatrixOutcome } from './api/run-options.js';
import type { RunResult } from './results/types.js';
import type { Result } from './util/result.js';

export { defineConfig } from './config/define.js';
export type * from './config/define.js';
export type * from './results/types.js';
export { RESULTS_SCHEMA_VERSION } from './results/types.js';
export type { RunMatrixOptions, RunMatrixOutcome, LoadResultsOutcome, ReportFormat };
export type { Failure, FailureKind, Result } from './util/result.js';
export type { Logger } from './logger.js';

/** Runs the matrix (pack, a fresh cell per SDK pin, every phase, the reports) and returns the typed run; prints nothing unless `print`. */
export async function runMatrix(options: RunMatrixOptions = {}): Promise<RunMatrixOutcome> {
  return (await import('./api/run.js')).runMatrix(options);
}

/** Reads a results.json and checks its schema version and shape: the run, or a failure naming the problem. */
export async function loadResults(file: string, cwd?: string): Promise<LoadResultsOutcome> {
  return (await import('./reports/json/load.js')).loadResults(file, cwd);
}

/** The same check on a results.json's text. */
export async function parseResultsText(text: string): Promise<LoadResultsOutcome> {
  return (await import('./reports/json/load.js')).parseResultsText(text);
}

/** One report of a run: `json` (results.json), `markdown`, `html`, `junit` or `sarif`. */
export async function renderReport(run: RunResult, format: ReportFormat): Promise<string> {
  return (await import('./api/render.js')).renderReport(run, format);
}

/** Writes every report of a run into `dir`, as `mcp-matrix report` does; the paths written, or why not. */
export async function writeReports(run: RunResult, dir: string): Promise<Result<string[]>> {
  return (await import('./api/render.js')).writeReports(run, dir);
}
