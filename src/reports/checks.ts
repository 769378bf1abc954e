// matrix.md's `## Sub-checks`: one row per sub-check (phase › id) with the requirement it comes from
// and its level, one column per variant with its outcome; then every warning and every check not
// measured, with its message (a failed required check is in its phase's failure section already).

import type { CellResult, RunResult, SubCheckResult } from '../results/types.js';
import { checkSource } from '../results/checks.js';
import { codeSpan, mdInline } from './format.js';
import { checkOutcomeLabel, displayCells } from './view.js';

interface Row {
  key: string;
  first: SubCheckResult;
}

/** Every sub-check any shown variant recorded, in the order the first variant that has it recorded it. */
function rows(cells: readonly CellResult[]): Row[] {
  const out = new Map<string, Row>();
  for (const cell of cells)
    for (const phase of cell.phases)
      for (const c of phase.checks ?? []) {
        const key = `${phase.phase} › ${c.id}`;
        if (!out.has(key)) out.set(key, { key, first: c });
      }
  return [...out.values()];
}

function checkOf(cell: CellResult, key: string): SubCheckResult | undefined {
  for (const phase of cell.phases) for (const c of phase.checks ?? []) if (`${phase.phase} › ${c.id}` === key) return c;
  return undefined;
}

/** The section, or '' when no variant recorded a sub-check. */
export function renderChecks(run: RunResult): string {
  const cells = displayCells(run).filter((c) => c.phases.length > 0);
  const all = rows(cells);
  if (all.length === 0) return '';
  const requirement = (c: SubCheckResult): string =>
    c.requirement ? `${c.requirement}${c.spec ? ` · ${c.spec.revision} ${c.spec.section}` : ''}` : (c.judge ?? 'harness');
  const levels = (key: string): string => [...new Set(cells.map((cell) => checkOf(cell, key)?.level).filter(Boolean))].join(', ');
  const head = ['check', 'requirement', 'level', ...cells.map((c) => c.id)];
  const table = [
    head,
    head.map(() => '---'),
    ...all.map((r) => [
      r.key,
      requirement(r.first),
      levels(r.key),
      ...cells.map((cell) => checkOutcomeLabel(checkOf(cell, r.key), cell.allowedToFail)),
    ]),
  ].map((cols) => `| ${cols.map((c) => mdInline(c) || ' ').join(' | ')} |`);
  const notes = cells.flatMap((cell) =>
    cell.phases.flatMap((phase) =>
      (phase.checks ?? [])
        .filter((c) => c.level !== 'off' && (c.outcome === 'not-measured' || (c.outcome === 'failed' && c.level === 'warn')))
        .map(
          (c) =>
            `- ${codeSpan(cell.id)} · ${phase.phase} › ${c.id} (${c.outcome === 'failed' ? 'warn' : 'not measured'}): ${mdInline(c.message)} [${mdInline(checkSource(c))}]`,
        ),
    ),
  );
  return ['## Sub-checks', '', ...table, ...(notes.length ? ['', ...notes] : [])].join('\n');
}
