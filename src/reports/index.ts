// Pure renderers from results.json (plus one writer). Nothing here prints: the CLI does.

export { renderMarkdown, renderTable, renderTitle, renderWarnings, renderConstants } from './markdown/markdown.js';
export { renderFailures } from './markdown/failures.js';
export { renderEnvironment } from './markdown/environment.js';
export { renderJson, parseResults } from './json/json.js';
export type { ParseResult } from './json/json.js';
export { renderJunit } from './junit.js';
export { renderStepSummary, renderAnnotations, groupLines, escapeData, escapeProperty } from './github.js';
export { publishInto, BEGIN_MARKER, END_MARKER } from './write/publish.js';
export type { PublishResult } from './write/publish.js';
export { mergeResults } from './merge/merge.js';
export type { MergePiece, MergeResult } from './merge/merge.js';
export { writeReportFiles, RESULTS_FILE, MARKDOWN_FILE, JUNIT_FILE, HTML_FILE, SARIF_FILE } from './write/write.js';
export { renderHtml } from './html/page.js';
export { renderSarif } from './sarif/sarif.js';
export type { WriteOptions } from './write/write.js';
export { validateRun } from './json/validate.js';
