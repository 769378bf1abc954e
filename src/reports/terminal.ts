// What the terminal shows after a run: each phase that failed or was not measured, with its step and
// the server's last stderr lines (already masked by the driver; cleaned of control codes and bounded
// here), each sub-check warning, then how to reproduce the cell. Lines only; the CLI hands them to the logger.

import type { BaselineEntry, CellResult, PhaseResult, RunResult } from '../results/types.js';
import { baselineMatches, judgeBaseline } from '../judge/verdict.js';
import { cleanText } from './view/format.js';
import { checkSource } from '../contract/checks.js';
import { resolvedAgo } from './markdown/failures.js';

/** At most this many stderr lines per phase, each cut to this many characters. */
export const STDERR_LINES = 12;
export const STDERR_LINE_CHARS = 300;

export function renderTerminalFailures(run: Pick<RunResult, 'cells' | 'baseline'>): string[] {
  const entries = run.baseline?.entries ?? [];
  const judged = judgeBaseline(run.cells, entries);
  const stale = judged.stale.map(
    (e) =>
      `${e.cell} · ${e.phase}: STALE baseline entry: it no longer fails as listed; delete line ${e.line} of ${run.baseline?.file ?? 'the baseline'} (reason was: ${oneLine(e.reason)})`,
  );
  return [...run.cells.flatMap((cell) => cellLines(cell, entries)), ...stale];
}

function cellLines(cell: CellResult, entries: readonly BaselineEntry[]): string[] {
  const problems = cell.phases.filter((p) => p.verdict === 'failed' || p.verdict === 'not-measured');
  const out = problems.flatMap((p) =>
    phaseLines(
      cell,
      p,
      entries.find((e) => baselineMatches(e, cell, p)),
    ),
  );
  // A warning never fails the cell, but it is said: each sub-check at level warn that failed or was not measured;
  // and each check the negotiated revision does not have or the rows contest (never failed, never passed), with why.
  for (const p of cell.phases)
    for (const c of p.checks ?? [])
      if (c.level === 'warn' && (c.outcome === 'failed' || c.outcome === 'not-measured'))
        out.push(
          `${cell.id} · ${p.phase} › ${c.id}: warn${c.outcome === 'not-measured' ? ' (not measured)' : ''}: ${oneLine(`${c.message} [${checkSource(c)}]`)}`,
        );
      else if ((c.outcome === 'not-applicable' || c.outcome === 'contested') && c.level !== 'off')
        out.push(`${cell.id} · ${p.phase} › ${c.id}: ${oneLine(`${c.message} [${checkSource(c)}]`)}`);
  const unlisted = problems.some((p) => p.verdict === 'failed' && !entries.some((e) => baselineMatches(e, cell, p)));
  if (unlisted && cell.verdict === 'failed') out.push(`  reproduce: ${cell.repro}`);
  return out;
}

function phaseLines(cell: CellResult, p: PhaseResult, listed: BaselineEntry | undefined): string[] {
  if (listed)
    return [`${cell.id} · ${p.phase}: expected (baseline line ${listed.line}: ${oneLine(listed.reason)}): ${oneLine(p.message ?? '')}`];
  const what = p.verdict === 'failed' ? (cell.allowedToFail ? 'FAIL (allowed)' : 'FAIL') : 'not measured';
  const out = [`${cell.id} · ${p.phase}: ${what}: ${oneLine(p.message ?? '')}`];
  if (p.step) out.push(`  step: ${oneLine(p.step)}`);
  const tail = stderrTail(p.stderrTail);
  if (tail.length > 0)
    out.push(`  server stderr (last ${tail.length} line${tail.length === 1 ? '' : 's'}):`, ...tail.map((l) => `  │ ${l}`));
  return out;
}

function oneLine(text: string): string {
  return cleanText(text).replace(/\s*\n\s*/g, ' ');
}

/**
 * The last STDERR_LINES non-empty lines, each longer than STDERR_LINE_CHARS cut in its middle: a line's end holds the
 * cause as often as its start (Node's "Cannot find package 'x' imported from <the importing file>").
 */
export function stderrTail(text: string | undefined): string[] {
  if (!text) return [];
  const lines = cleanText(text)
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l.trim() !== '');
  const half = STDERR_LINE_CHARS / 2;
  return lines.slice(-STDERR_LINES).map((l) => (l.length > STDERR_LINE_CHARS ? `${l.slice(0, half)} … ${l.slice(-half)}` : l));
}

/** The plan's registry look-ups reused within the window, with their age. */
export function renderLookupLines(run: Pick<RunResult, 'plan'>): string[] {
  const reused = run.plan.lookedUp ?? [];
  if (reused.length === 0) return [];
  const oldest = Math.max(...reused.map((r) => r.ageMs));
  return [
    `plan: the registry's versions of ${reused.map((r) => r.name).join(', ')} ${resolvedAgo(oldest).replace(/^resolved/, 'looked up')} (the reuse window); \`--fresh\` to look up now`,
  ];
}

/** Each cell whose install reused a resolution within the window says its age (issue 34: "resolved 3 min ago"). */
export function renderReuseLines(run: Pick<RunResult, 'cells'>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const cell of run.cells) {
    const ref = cell.environment?.installSource;
    if (seen.has(cell.cell) || ref?.source !== 'reused' || ref.resolvedAt === undefined) continue;
    seen.add(cell.cell);
    out.push(`${cell.cell}: ${resolvedAgo(ref.ageMs ?? 0)} (the reuse window); \`--fresh\` to resolve now`);
  }
  return out;
}
