// GitHub Actions surfaces as strings: the step summary, one annotation per failure, folded log groups. The
// annotations say what fails the run as every other report does (the same findings as matrix.sarif).

import type { BaselineEntry, CellResult, PhaseResult, RunResult, SubCheckResult } from '../results/types.js';
import { PHASES } from '../results/types.js';
import { checkSource } from '../contract/checks.js';
import { SNAPSHOT_FILE } from '../results/surface.js';
import { cleanText } from './view/format.js';
import { renderChecks } from './markdown/checks.js';
import { renderFailures } from './markdown/failures.js';
import { renderTable, renderTitle, renderWarnings } from './markdown/markdown.js';
import { baselineMatches, cellOutcome, judgeBaseline } from '../judge/verdict.js';
import { displayCells, phaseOf, staleAdvice, variantLabel } from './view/view.js';

/** The title (with the surface and answer parity lines), the table, the sub-checks and the failure sections (no environment: that stays in matrix.md). */
export function renderStepSummary(run: RunResult): string {
  const gaps = secretGapLine(run);
  const parts = [
    renderTitle(run),
    ...(gaps ? [`> **${cleanText(gaps)}**`] : []),
    renderTable(run),
    renderChecks(run),
    renderFailures(run),
    renderWarnings(run),
  ];
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

/**
 * The phases no secret reached and that still let the run pass (a fork's or Dependabot's run under
 * secretsOnFork 'not-measured', or whenAbsent 'skipped'), in one plain line: the gate passed without them.
 */
export function secretGapLine(run: RunResult): string | undefined {
  const gaps = run.cells.flatMap((c) =>
    c.phases.filter((p) => p.step === 'secrets' && p.verdict === 'skipped').map((p) => ({ cell: c.id, p })),
  );
  if (gaps.length === 0) return undefined;
  const phases = [...new Set(gaps.map((g) => g.p.phase))].join(', ');
  const cells = new Set(gaps.map((g) => g.cell)).size;
  return `NOT MEASURED for lack of secrets: ${phases} in ${cells} of ${run.cells.length} cell(s), so the verdict stands on the other phases only. ${gaps[0]!.p.message ?? ''}`;
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
 * One annotation per problem, errors first (GitHub shows 10 of each kind; `capAnnotations` cuts the rest):
 * `::error` for what fails the run: a failed phase (each failed required sub-check by name, as matrix.sarif
 * reports it), a stale allowance or baseline entry, a surface or answer difference between variants or from
 * mcp-surface.json, a lockstep error; `::warning` for an allowed failure, a failed sub-check at level warn, and
 * a phase that was not measured.
 */
export function renderAnnotations(run: RunResult): string[] {
  const out: string[] = [];
  for (const cell of displayCells(run)) {
    if (cell.phases.length === 0) {
      const message = `${variantLabel(cell)}: no result was recorded for this ${cell.id === cell.cell ? 'cell' : 'variant'}.\nrepro: ${cell.repro}`;
      out.push(command('warning', `mcp-matrix ${cell.id}: not measured`, message));
      continue;
    }
    for (const phase of PHASES.map((name) => phaseOf(cell, name)))
      out.push(
        ...phaseAnnotations(
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
  out.push(...runFindings(run));
  const gaps = secretGapLine(run);
  // Errors first; then, before any other warning, the phases a missing secret kept from running.
  return [
    ...out.filter((l) => l.startsWith('::error')),
    ...(gaps ? [command('warning', 'mcp-matrix: not measured (no secrets)', gaps)] : []),
    ...out.filter((l) => !l.startsWith('::error')),
  ];
}

/** The run's own findings, each failing it: they belong to no one variant (the message names the variants). */
function runFindings(run: RunResult): string[] {
  const s = run.surface;
  const p = run.parity;
  const update = '\n(if the change is intended, commit it with run --update-surface)';
  return [
    ...(s?.findings ?? []).map((f) => command('error', 'mcp-matrix: surface differs', f)),
    ...(s?.drift ?? []).map((d) => command('error', `mcp-matrix: surface changed since ${SNAPSHOT_FILE}`, `${d}${update}`)),
    ...(p?.findings ?? []).map((f) => command('error', 'mcp-matrix: answer differs', f)),
    ...(p?.drift ?? []).map((d) => command('error', `mcp-matrix: answer changed since ${SNAPSHOT_FILE}`, `${d}${update}`)),
    ...(p?.stale ?? []).map((a) => command('error', 'mcp-matrix: stale parity.allow entry', a)),
    ...(run.lockstepErrors ?? []).map((e) => command('error', 'mcp-matrix: lockstep', e.replace(/^lockstep: /, ''))),
  ];
}

/**
 * A phase's annotations: a failed phase is named by its failed required sub-checks when it has any (each
 * with its own step), else by its message; a failed sub-check at level warn is a warning of its own.
 */
function phaseAnnotations(cell: CellResult, phase: PhaseResult, listed?: BaselineEntry): string[] {
  const problem = phase.verdict === 'failed' || phase.verdict === 'not-measured';
  const failed = (phase.checks ?? []).filter((c) => c.outcome === 'failed' && c.level !== 'off');
  const required = phase.verdict === 'failed' ? failed.filter((c) => c.level === 'require') : [];
  const warned = failed.filter((c) => c.level === 'warn').map((c) => checkAnnotation(cell, phase, c, 'failed (warn)', 'warning'));
  if (required.length > 0) {
    const { what, kind } = failedLabel(cell, phase, listed);
    return [...required.map((c) => checkAnnotation(cell, phase, c, what, kind)), ...warned];
  }
  return [...(problem ? [phaseAnnotation(cell, phase, listed)] : []), ...warned];
}

function checkAnnotation(cell: CellResult, phase: PhaseResult, check: SubCheckResult, what: string, kind: 'error' | 'warning'): string {
  const lines = [`${variantLabel(cell)}: ${check.message} [${checkSource(check)}]`];
  const step = check.step ?? (check.level === 'require' ? phase.step : undefined);
  if (step) lines.push(`step: ${step}`);
  lines.push(`repro: ${cell.repro}`);
  return command(kind, `mcp-matrix ${cell.id} · ${phase.phase} › ${check.id} ${what}`, lines.join('\n'));
}

/** How a failed phase is named, and whether it fails the run (a failure the baseline lists is expected, like an allowed one). */
function failedLabel(cell: CellResult, phase: PhaseResult, listed?: BaselineEntry): { what: string; kind: 'error' | 'warning' } {
  const allowed = phase.verdict === 'failed' && (cell.allowedToFail || listed !== undefined);
  const what =
    phase.verdict === 'failed'
      ? listed
        ? `failed (expected, baseline line ${listed.line})`
        : allowed
          ? 'failed (allowed)'
          : 'failed'
      : 'not measured';
  return { what, kind: phase.verdict === 'failed' && !allowed ? 'error' : 'warning' };
}

function phaseAnnotation(cell: CellResult, phase: PhaseResult, listed?: BaselineEntry): string {
  const { what, kind } = failedLabel(cell, phase, listed);
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

export function capAnnotations(lines: readonly string[], limit = ANNOTATIONS_PER_STEP, where = 'the summary'): string[] {
  if (lines.length <= limit) return [...lines];
  const more = lines.length - limit;
  const kind = lines.slice(limit).some((l) => l.startsWith('::error')) ? 'error' : 'warning';
  return [...lines.slice(0, limit), command(kind, 'mcp-matrix', `${more} more: see ${where}`)];
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
