// Under GitHub Actions: the table goes to the step summary, failures become annotations, cells are folded groups.
// MCP_MATRIX_PIECE=1 (the fan-out's cell jobs) keeps only the groups.
import { appendFile } from 'node:fs/promises';
import type { Logger } from '../logger.js';
import type { RunResult } from '../results/types.js';
import {
  capAnnotations,
  groupLines,
  renderAnnotations,
  renderMergeErrorAnnotations,
  renderMergeErrorSummary,
  renderStepSummary,
} from '../reports/github.js';

export async function publishToGithub(run: RunResult, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.GITHUB_ACTIONS !== 'true') return;
  for (const cell of run.cells) {
    const lines = cell.phases.map((p) => `${p.phase}: ${p.verdict}${p.message ? ` · ${p.message}` : ''}`);
    for (const line of groupLines(`mcp-matrix ${cell.id} (${cell.version}): ${cell.outcome}`, lines)) log.info(line);
  }
  // A cell job of the fan-out writes only its piece (and its log groups): `merge` alone annotates and
  // writes the step summary, once for the whole matrix.
  if (env.MCP_MATRIX_PIECE === '1') return;
  const summary = fitSummary(`${renderStepSummary(run)}\n`, artifactsLink(env));
  for (const line of capAnnotations(renderAnnotations(run), undefined, summary.cut ? `matrix.md in ${artifactsLink(env)}` : undefined))
    log.info(line);
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, summary.text);
}

/** GitHub drops a step summary over 1 MiB whole; ours stays under it, with room for what a step adds around it. */
export const SUMMARY_BUDGET = 1000 * 1024;

/** Where the run's artifacts are listed (matrix.md among them): the run's page. */
function artifactsLink(env: NodeJS.ProcessEnv): string {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id } = env;
  return server && repo && id ? `the run's artifacts (${server}/${repo}/actions/runs/${id}#artifacts)` : "the run's artifacts";
}

/** The summary cut at a line within the budget (UTF-8 bytes), saying where the whole report is. */
export function fitSummary(text: string, where: string, budget = SUMMARY_BUDGET): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= budget) return { text, cut: false };
  const note = `\n> **The summary is cut here**: GitHub drops a step summary over 1 MiB. The whole report is matrix.md in ${where}.\n`;
  const room = budget - Buffer.byteLength(note);
  let kept = Buffer.from(text).subarray(0, room).toString('utf8');
  // A character cut in two decodes to U+FFFD: drop it with the partial line.
  kept = kept.slice(0, Math.max(0, kept.lastIndexOf('\n') + 1));
  return { text: `${kept}${note}`, cut: true };
}

/** A merge that refused its pieces: each reason an annotation (capped) and the whole list in the step summary. */
export async function publishMergeErrors(errors: readonly string[], log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.GITHUB_ACTIONS !== 'true') return;
  for (const line of capAnnotations(renderMergeErrorAnnotations(errors))) log.info(line);
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${renderMergeErrorSummary(errors)}\n`);
}
