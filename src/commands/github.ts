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
  for (const line of capAnnotations(renderAnnotations(run))) log.info(line);
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${renderStepSummary(run)}\n`);
}

/** A merge that refused its pieces: each reason an annotation (capped) and the whole list in the step summary. */
export async function publishMergeErrors(errors: readonly string[], log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.GITHUB_ACTIONS !== 'true') return;
  for (const line of capAnnotations(renderMergeErrorAnnotations(errors))) log.info(line);
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${renderMergeErrorSummary(errors)}\n`);
}
