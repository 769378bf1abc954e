// Pure renderers from results.json (plus one writer). Nothing here prints: the CLI does.

export { renderMarkdown, renderTable, renderTitle, renderWarnings, renderConstants } from './markdown.js';
export { renderFailures } from './failures.js';
export { renderEnvironment } from './environment.js';
export { renderJson, parseResults } from './json.js';
export type { ParseResult } from './json.js';
export { renderJunit } from './junit.js';
export { renderStepSummary, renderAnnotations, groupLines, escapeData, escapeProperty } from './github.js';
export { publishInto, BEGIN_MARKER, END_MARKER } from './publish.js';
export type { PublishResult } from './publish.js';
export { mergeResults } from './merge.js';
export type { MergePiece, MergeResult } from './merge.js';
export { writeReports, RESULTS_FILE, MARKDOWN_FILE, JUNIT_FILE, HTML_FILE, SARIF_FILE } from './write.js';
export { renderHtml } from './html/page.js';
export { renderSarif } from './sarif.js';
export type { WriteOptions } from './write.js';
export { validateRun } from './validate.js';
