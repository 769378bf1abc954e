// The grid of matrix.html: one row per cell, one square per phase. Without axes a square is its
// variant's mark and word; with axes it is a small heat map of the cell's client × Node variants. A
// square that failed, was not measured or warns holds its details, hidden until it is opened.

import type { CellResult, PhaseName, RunResult } from '../../results/types.js';
import { PHASES } from '../../results/types.js';
import { cellOutcome } from '../../judge/verdict.js';
import { hasAxes } from '../../results/variants.js';
import { BEFORE_CONFORMANCE } from '../json/json.js';
import { displayCells, phaseOf, pinLabel, variantLabel } from '../view/view.js';
import { detailId, fullLabel, renderDetail } from './detail.js';
import { anchor, el, text } from './escape.js';
import { expands, isProblem, MARKS, stateOf, worst, type State } from './marks.js';

export interface Group {
  cell: string;
  variants: CellResult[];
}

/** The shown rows grouped by cell, in plan order. */
export function groups(run: RunResult): Group[] {
  const out = new Map<string, CellResult[]>();
  for (const v of displayCells(run)) out.set(v.cell, [...(out.get(v.cell) ?? []), v]);
  return [...out].map(([cell, variants]) => ({ cell, variants }));
}

/** The phases shown: every phase, but conformance for evidence recorded before it existed. */
export function shownPhases(run: RunResult): PhaseName[] {
  const before = run.cells.length > 0 && run.cells.every((c) => phaseOf(c, 'conformance').message === BEFORE_CONFORMANCE);
  return PHASES.filter((p) => !(before && p === 'conformance'));
}

const clientKey = (v: CellResult): string => (v.client ? v.client.pin : 'own');
const nodeKey = (v: CellResult): string => (v.node ? v.node.spec : 'host');

const OUTCOME_STATE = {
  passed: 'pass',
  failed: 'fail',
  'stale-allowance': 'fail',
  'allowed-failure': 'allowed',
  'not-measured': 'nm',
} as const;

function rowState(variants: readonly CellResult[]): { state: State; word: string } {
  const outcomes = variants.map((v) => cellOutcome(v.verdict, v.allowedToFail));
  const state = worst(outcomes.map((o) => OUTCOME_STATE[o]));
  const word =
    outcomes.includes('stale-allowance') && state === 'fail' && !outcomes.includes('failed') ? 'STALE ALLOWANCE' : MARKS[state].word;
  return { state, word: state === 'warn' ? 'ok' : word };
}

/** `✗ 1 FAIL · ✓ 11 ok`: how many variants of a square are in each state. */
export function countLine(states: readonly State[]): string {
  const order: State[] = ['fail', 'nm', 'allowed', 'warn', 'pass', 'skip'];
  return order
    .filter((s) => states.includes(s))
    .map((s) => `${MARKS[s].mark} ${states.filter((x) => x === s).length} ${s === 'warn' ? 'warn' : MARKS[s].word}`)
    .join(' · ');
}

function heatMap(group: Group, phase: PhaseName): string {
  const clients = [...new Set(group.variants.map(clientKey))];
  const nodes = [...new Set(group.variants.map(nodeKey))];
  const head = el('tr', {}, el('th', { class: 'corner' }, 'client \\ Node'), ...nodes.map((n) => el('th', {}, text(n))));
  const rows = clients.map((c) =>
    el(
      'tr',
      {},
      el('th', {}, text(c)),
      ...nodes.map((n) => {
        const v = group.variants.find((x) => clientKey(x) === c && nodeKey(x) === n);
        if (!v) return el('td', { class: 'mini s-none' }, el('span', { class: 'm' }, MARKS.none.mark));
        const p = phaseOf(v, phase);
        const state = stateOf(v, p);
        const title = `${variantLabel(v)}: ${MARKS[state].word}${p.message ? ` (${p.message})` : ''}`;
        const mark = el('span', { class: 'm' }, MARKS[state].mark);
        const inner = expands(state)
          ? el('a', { href: `#${detailId(v.id, phase)}`, title, 'data-open': '' }, mark)
          : el('span', { title }, mark);
        return el('td', { class: `mini s-${state}` }, inner);
      }),
    ),
  );
  return el('table', { class: 'heat' }, el('thead', {}, head), el('tbody', {}, ...rows));
}

function square(run: RunResult, group: Group, phase: PhaseName, r: number, c: number, axes: boolean): string {
  const states = group.variants.map((v) => stateOf(v, phaseOf(v, phase)));
  const state = worst(states);
  const id = `sq-${anchor(group.cell)}--${phase}`;
  const open = group.variants.filter((v) => expands(stateOf(v, phaseOf(v, phase))));
  const panelId = `p-${anchor(group.cell)}--${phase}`;
  const only = group.variants[0]!;
  const word = axes ? countLine(states) : `${MARKS[state].mark} ${fullLabel(only, phaseOf(only, phase))}`;
  const label = text(word);
  const head =
    open.length > 0
      ? el('button', { class: 'toggle', type: 'button', 'aria-expanded': 'false', 'aria-controls': panelId, tabindex: '-1' }, label)
      : el('span', { class: 'word' }, label);
  const skipped = !axes && state === 'skip' ? phaseOf(only, phase).message : undefined;
  const parts = [axes ? heatMap(group, phase) : '', head, skipped ? el('div', { class: 'why' }, text(skipped)) : ''];
  if (open.length > 0)
    parts.push(el('div', { class: 'panel', id: panelId, hidden: true }, ...open.map((v) => renderDetail(run, v, phaseOf(v, phase)))));
  return el(
    'td',
    {
      class: `sq s-${state}${isProblem(state) ? ' problem' : ''}`,
      id,
      'data-r': r,
      'data-c': c,
      tabindex: r === 0 && c === 0 ? '0' : '-1',
      'aria-label': `${group.cell} · ${phase}: ${word}`,
    },
    ...parts,
  );
}

function summaryOf(v: CellResult): string {
  const s = v.summary;
  const n = (count: number | undefined, what: string): string[] => (count === undefined ? [] : [`${count} ${what}`]);
  return [
    ...n(s.tools, 'tools'),
    ...n(s.resources, 'resources'),
    ...n(s.prompts, 'prompts'),
    ...(s.protocolVersion ? [`protocol ${s.protocolVersion}`] : []),
  ].join(' · ');
}

/** The grid: rows of cells, columns of phases. */
export function renderGrid(run: RunResult): string {
  const phases = shownPhases(run);
  const axes = hasAxes(run.plan);
  const rows = groups(run).map((group, r) => {
    const { state, word } = rowState(group.variants);
    const first = group.variants[0]!;
    const rowId = `cell-${anchor(group.cell)}`;
    const head = el(
      'th',
      { scope: 'row', class: 'rowhead' },
      el('a', { class: 'self', href: `#${rowId}`, title: 'link to this cell' }, '¶'),
      ' ',
      el('strong', {}, text(group.cell)),
      el('div', { class: 'pin' }, text(pinLabel(first))),
      el('div', { class: `outcome s-${state}` }, text(`${MARKS[state].mark} ${word}`)),
      el('div', { class: 'sum' }, text(axes ? `${group.variants.length} variants` : summaryOf(first))),
    );
    const squares = phases.map((p, c) => square(run, group, p, r, c, axes));
    const problem = isProblem(state) || phases.some((p) => group.variants.some((v) => isProblem(stateOf(v, phaseOf(v, p)))));
    return el('tr', { class: `row${problem ? ' problem' : ''}`, id: rowId }, head, ...squares);
  });
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, axes ? 'cell (variants: client × Node)' : 'cell'),
    ...phases.map((p) => el('th', { scope: 'col' }, p)),
  );
  return el('table', { class: 'grid', id: 'grid' }, el('thead', {}, head), el('tbody', {}, ...rows));
}
