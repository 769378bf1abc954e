// Rendering the reports from code: each format from a run (a RunResult, e.g. from loadResults), and all
// of them written into a directory as `run`, `report` and `merge` write them.
import { renderJson } from '../reports/json/json.js';
import { REPORTS, type ReportFormat } from '../reports/write/write.js';
import { writeReportsResult } from '../reports/write/write-result.js';
import type { RunResult } from '../results/types.js';
import type { Result } from '../util/result.js';

export type { ReportFormat };

/** One report's text: results.json (`json`), matrix.md, matrix.html, junit.xml or matrix.sarif. */
export function renderReport(run: RunResult, format: ReportFormat): string {
  // As the files are rendered: from the stored form, so a report of a loaded file and of a live run agree.
  const report = REPORTS.find((r) => r.format === format);
  if (!report) throw new Error(`no report format "${String(format)}" (formats: ${REPORTS.map((r) => r.format).join(', ')})`);
  return report.render(JSON.parse(renderJson(run)) as RunResult);
}

/** Writes every report into `dir` (each replaced only once whole); the paths written, or why not. */
export function writeReports(run: RunResult, dir: string): Promise<Result<string[]>> {
  return writeReportsResult(run, dir, { junit: true });
}
