// matrix.md's `## Sub-checks`: one row per sub-check (phase › id) with the requirement it comes from
// and its level, one column per variant with its outcome; then every warning and every check not
// measured, with its message (a failed required check is in its phase's failure section already).

import type { RunResult } from '../../results/types.js';
import { checkSource } from '../../contract/checks.js';
import { checkOf, checkRows, requirementOf, revisionOf } from '../view/check-rows.js';
import { codeSpan, mdInline } from '../view/format.js';
import { checkOutcomeLabel, displayCells } from '../view/view.js';

const NOTE: Partial<Record<string, string>> = {
  'not-measured': 'not measured',
  'not-applicable': 'not applicable',
  contested: 'contested',
};

/** The section, or '' when no variant recorded a sub-check. */
export function renderChecks(run: RunResult): string {
  const cells = displayCells(run).filter((c) => c.phases.length > 0);
  const all = checkRows(cells);
  if (all.length === 0) return '';
  const levels = (key: string): string => [...new Set(cells.map((cell) => checkOf(cell, key)?.level).filter(Boolean))].join(', ');
  const head = ['check', 'requirement', 'level', ...cells.map((c) => c.id)];
  // Which MCP revision each variant's checks were judged by: the one its client negotiated.
  const revisions = cells.map((c) => revisionOf(c) ?? '—');
  const table = [
    head,
    head.map(() => '---'),
    ...(revisions.some((r) => r !== '—') ? [['judged by MCP revision', '', '', ...revisions]] : []),
    ...all.map((r) => [
      r.key,
      requirementOf(r.first),
      levels(r.key),
      ...cells.map((cell) => checkOutcomeLabel(checkOf(cell, r.key), cell.allowedToFail)),
    ]),
  ].map((cols) => `| ${cols.map((c) => mdInline(c) || ' ').join(' | ')} |`);
  const notes = cells.flatMap((cell) =>
    cell.phases.flatMap((phase) =>
      (phase.checks ?? [])
        .filter(
          (c) =>
            c.level !== 'off' &&
            (c.outcome === 'not-measured' ||
              c.outcome === 'not-applicable' ||
              c.outcome === 'contested' ||
              (c.outcome === 'failed' && c.level === 'warn')),
        )
        .map(
          (c) =>
            `- ${codeSpan(cell.id)} · ${phase.phase} › ${c.id} (${NOTE[c.outcome] ?? 'warn'}): ${mdInline(c.message)} [${mdInline(checkSource(c))}]`,
        ),
    ),
  );
  return ['## Sub-checks', '', ...table, ...(notes.length ? ['', ...notes] : [])].join('\n');
}
