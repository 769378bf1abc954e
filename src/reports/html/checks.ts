// matrix.html's sub-check table: one row per sub-check (phase › id) with the requirement it comes from and
// its level, one column per cell; a square counts its variants' outcomes with a mark and a word. What each
// check saw is in the expanded square of its phase.

import type { RunResult } from '../../results/types.js';
import { checkOf, checkRows, requirementOf } from '../view/check-rows.js';
import { checkOutcomeLabel } from '../view/view.js';
import { el, text } from './escape.js';
import { countLine, groups } from './grid.js';
import { checkState, isProblem, MARKS, worst } from './marks.js';

/** The section, or '' when no variant recorded a sub-check. */
export function renderChecksHtml(run: RunResult): string {
  const rows = checkRows(run.cells);
  if (rows.length === 0) return '';
  const all = groups(run);
  const body = rows.map(({ key, first }) => {
    const squares = all.map((group) => {
      const states = group.variants.filter((v) => v.phases.length > 0).map((v) => checkState(checkOf(v, key), v.allowedToFail));
      const state = worst(states);
      const word =
        group.variants.length > 1
          ? countLine(states)
          : `${MARKS[state].mark} ${checkOutcomeLabel(checkOf(group.variants[0]!, key), group.variants[0]!.allowedToFail)}`;
      return { state, cell: el('td', { class: `s-${state}` }, text(word)) };
    });
    const requirement = requirementOf(first);
    const problem = squares.some((s) => isProblem(s.state));
    return el(
      'tr',
      { class: `row${problem ? ' problem' : ''}` },
      el('th', { scope: 'row' }, text(key)),
      el('td', { class: 'src' }, text(requirement)),
      ...squares.map((s) => s.cell),
    );
  });
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, 'sub-check'),
    el('th', { scope: 'col' }, 'requirement'),
    ...all.map((g) => el('th', { scope: 'col' }, text(g.cell))),
  );
  return el(
    'section',
    { id: 'checks' },
    el('h2', {}, 'Sub-checks'),
    el('table', { class: 'subchecks' }, el('thead', {}, head), el('tbody', {}, ...body)),
  );
}
