// Rendering the reports from code: each format from a run (a RunResult, e.g. from loadResults), and all
// of them written into a directory as `run`, `report` and `merge` write them.
import { renderHtml } from '../reports/html/page.js';
import { renderJson } from '../reports/json/json.js';
import { renderJunit } from '../reports/junit.js';
import { renderMarkdown } from '../reports/markdown/markdown.js';
import { renderSarif } from '../reports/sarif/sarif.js';
import { writeReportsResult } from '../reports/write/write-result.js';
import type { RunResult } from '../results/types.js';
import type { Result } from '../util/result.js';

export type ReportFormat = 'json' | 'markdown' | 'html' | 'junit' | 'sarif';

const RENDERERS: Record<ReportFormat, (run: RunResult) => string> = {
  json: renderJson,
  markdown: renderMarkdown,
  html: renderHtml,
  junit: renderJunit,
  sarif: renderSarif,
};

/** One report's text: results.json (`json`), matrix.md, matrix.html, junit.xml or matrix.sarif. */
export function renderReport(run: RunResult, format: ReportFormat): string {
  // As the files are rendered: from the stored form, so a report of a loaded file and of a live run agree.
  return RENDERERS[format](JSON.parse(renderJson(run)) as RunResult);
}

/** Writes every report into `dir` (each replaced only once whole); the paths written, or why not. */
export function writeReports(run: RunResult, dir: string): Promise<Result<string[]>> {
  return writeReportsResult(run, dir, { junit: true });
}
