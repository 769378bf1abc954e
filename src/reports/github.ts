// GitHub Actions surfaces: the step summary, one annotation per failure, folded log groups.
// Everything here returns strings/lines; the CLI prints them or appends to $GITHUB_STEP_SUMMARY.

import type { BaselineEntry, CellResult, PhaseResult, RunResult } from '../results/types.js';
import { PHASES } from '../results/types.js';
import { cleanText } from './format.js';
import { renderFailures } from './failures.js';
import { renderTable, renderTitle, renderWarnings } from './markdown.js';
import { baselineMatches, cellOutcome, judgeBaseline } from '../results/verdict.js';
import { displayCells, problemPhases, staleAdvice, variantLabel } from './view.js';

/** The table and the failure sections (no environment: that stays in matrix.md). */
export function renderStepSummary(run: RunResult): string {
  const parts = [renderTitle(run), renderTable(run), renderFailures(run), renderWarnings(run)];
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

/** Workflow-command data: `%`, CR and LF escaped (in that order of concern: `%` first). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow-command property value: data escaping plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(kind: 'error' | 'warning', title: string, message: string): string {
  return `::${kind} title=${escapeProperty(cleanText(title))}::${escapeData(cleanText(message))}`;
}

/**
 * One annotation per phase that needs attention: `::error` for a failure that fails the run (and for
 * a stale allowance), `::warning` for an allowed failure or a phase that was not measured.
 */
export function renderAnnotations(run: RunResult): string[] {
  const out: string[] = [];
  for (const cell of displayCells(run)) {
    if (cell.phases.length === 0) {
      const message = `${variantLabel(cell)}: no result was recorded for this ${cell.id === cell.cell ? 'cell' : 'variant'}.\nrepro: ${cell.repro}`;
      out.push(command('warning', `mcp-matrix ${cell.id}: not measured`, message));
      continue;
    }
    for (const phase of problemPhases(cell, PHASES))
      out.push(
        phaseAnnotation(
          cell,
          phase,
          (run.baseline?.entries ?? []).find((e) => baselineMatches(e, cell, phase)),
        ),
      );
    if (cellOutcome(cell.verdict, cell.allowedToFail) === 'stale-allowance') {
      out.push(
        command(
          'error',
          `mcp-matrix ${cell.id}: stale allowance`,
          `${variantLabel(cell)} passed every phase but is marked allowedToFail: ${staleAdvice(cell)}.\nrepro: ${cell.repro}`,
        ),
      );
    }
  }
  for (const e of judgeBaseline(run.cells, run.baseline?.entries ?? []).stale)
    out.push(
      command(
        'error',
        `mcp-matrix ${e.cell}: stale baseline entry`,
        `${e.cell} · ${e.phase} no longer fails as listed: delete line ${e.line} of ${run.baseline?.file ?? 'the baseline'}`,
      ),
    );
  return out;
}

function phaseAnnotation(cell: CellResult, phase: PhaseResult, listed?: BaselineEntry): string {
  // A failure the baseline lists is expected: a warning, like an allowed failure.
  const allowed = phase.verdict === 'failed' && (cell.allowedToFail || listed !== undefined);
  const what =
    phase.verdict === 'failed'
      ? listed
        ? `failed (expected, baseline line ${listed.line})`
        : allowed
          ? 'failed (allowed)'
          : 'failed'
      : 'not measured';
  const kind = phase.verdict === 'failed' && !allowed ? 'error' : 'warning';
  const lines = [`${variantLabel(cell)}: ${phase.message ?? what}`];
  if (phase.step) lines.push(`step: ${phase.step}`);
  lines.push(`repro: ${cell.repro}`);
  return command(kind, `mcp-matrix ${cell.id} · ${phase.phase} ${what}`, lines.join('\n'));
}

/**
 * A folded log group. Lines inside are neutralised so that server output cannot run workflow
 * commands: a line starting with `::` (after whitespace) or containing `##[` gets a zero-width space.
 */
export function groupLines(title: string, lines: readonly string[]): string[] {
  const body = lines.flatMap((line) => line.split(/\r\n|\r|\n/)).map(neutralise);
  return [`::group::${escapeData(cleanText(title))}`, ...body, '::endgroup::'];
}

function neutralise(line: string): string {
  const safe = line.replace(/##\[/g, '#\u200b#[');
  return /^\s*::/.test(safe) ? `\u200b${safe}` : safe;
}

/**
 * GitHub shows at most 10 error and 10 warning annotations per step: past 9, one more says how many the
 * summary holds that were not annotated, so the 10th is never a silent cut.
 */
export const ANNOTATIONS_PER_STEP = 9;

export function capAnnotations(lines: readonly string[], limit = ANNOTATIONS_PER_STEP): string[] {
  if (lines.length <= limit) return [...lines];
  const more = lines.length - limit;
  const kind = lines.slice(limit).some((l) => l.startsWith('::error')) ? 'error' : 'warning';
  return [...lines.slice(0, limit), command(kind, 'mcp-matrix', `${more} more: see the summary`)];
}

export function renderMergeErrorAnnotations(errors: readonly string[]): string[] {
  return errors.map((e) => command('error', 'mcp-matrix merge', e));
}

export function renderMergeErrorSummary(errors: readonly string[]): string {
  return [
    '# mcp-matrix: the pieces do not make up the plan',
    '',
    'merge refused the cell results (the gate fails):',
    '',
    ...errors.map((e) => `- ${cleanText(e)}`),
    '',
  ].join('\n');
}
