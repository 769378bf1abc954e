// One expanded square of matrix.html (a variant × phase): message, step, sub-checks, stderr tail, handles,
// surface differences, repro. Server text arrives masked by the driver; here it is cleaned, bounded and escaped.

import type { CellResult, PhaseResult, RunResult, SubCheckResult } from '../../results/types.js';
import { checkSource } from '../../contract/checks.js';
import { seconds } from '../view/format.js';
import { stderrTail } from '../terminal.js';
import { clientInstallLabel } from '../markdown/failures.js';
import { checkOutcomeLabel, conformanceLabel, handleText, httpLabel, leaksLabel, nodeLabel, variantLabel } from '../view/view.js';
import { anchor, el, text } from './escape.js';
import { checkState, MARKS, stateOf } from './marks.js';

/** Bounds per detail, so a flood from one server cannot blow up the page. */
const NOISE_LINES = 12;
const LINE_CHARS = 300;
const DETAILS_CHARS = 500;

export const detailId = (variant: string, phase: string): string => `v-${anchor(variant)}--${phase}`;

/** The full label of a phase as matrix.md's table would show it. */
export function fullLabel(cell: CellResult, phase: PhaseResult): string {
  if (phase.phase === 'http') return httpLabel(cell, phase);
  if (phase.phase === 'conformance') return conformanceLabel(cell, phase);
  if (phase.phase === 'leaks') return leaksLabel(cell, phase);
  return MARKS[stateOf(cell, phase)].word;
}

const cut = (line: string): string => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line);

function fact(name: string, value: string): string {
  return el('dt', {}, text(name)) + el('dd', {}, text(value));
}

function checksTable(checks: readonly SubCheckResult[], allowed: boolean): string {
  const rows = checks.map((c) => {
    const outcome = checkOutcomeLabel(c, allowed);
    const state = checkState(c, allowed);
    return el(
      'tr',
      { class: `s-${state}` },
      el('td', { class: 'm' }, text(`${MARKS[state].mark} ${outcome}`)),
      el('td', {}, text(c.id)),
      el('td', {}, text(c.message)),
      el('td', { class: 'src' }, text(c.judge ? `${c.judge}, level ${c.level}` : checkSource(c))),
    );
  });
  const head = el('tr', {}, ...['outcome', 'check', 'what was seen', 'requirement'].map((h) => el('th', {}, h)));
  return el('table', { class: 'checks' }, el('thead', {}, head), el('tbody', {}, ...rows));
}

/** Surface findings and drift that name the variant or its cell. */
export function surfaceOf(run: RunResult, cell: CellResult): string[] {
  const s = run.surface;
  if (!s) return [];
  const names = (line: string): boolean => line.includes(cell.id) || line.includes(`${cell.cell} (`);
  return [...s.findings.filter(names), ...(s.drift ?? []).filter(names).map((d) => `changed since mcp-surface.json: ${d}`)];
}

function pre(lines: readonly string[], cls: string): string {
  return el('pre', { class: cls }, text(lines.join('\n')));
}

/** The section for one variant × phase. */
export function renderDetail(run: RunResult, cell: CellResult, phase: PhaseResult): string {
  const state = stateOf(cell, phase);
  const id = detailId(cell.id, phase.phase);
  const out: string[] = [];
  out.push(
    el('h4', {}, el('a', { class: 'self', href: `#${id}`, title: 'link to this result' }, '¶'), ' ', text(`${cell.id} · ${phase.phase}`)),
  );
  out.push(
    el(
      'p',
      { class: `msg s-${state}` },
      el('strong', {}, text(`${MARKS[state].mark} ${fullLabel(cell, phase)}`)),
      phase.message ? text(`: ${phase.message}`) : '',
    ),
  );
  const facts = [fact('Variant', variantLabel(cell))];
  if (phase.step) facts.push(fact('Step', phase.step));
  if (phase.durationMs > 0) facts.push(fact('Duration', seconds(phase.durationMs)));
  if (cell.node) facts.push(fact('Node', nodeLabel(cell)));
  if (cell.clientInstall) facts.push(fact('Client install', clientInstallLabel(cell.clientInstall)));
  out.push(el('dl', {}, ...facts));
  if (phase.checks && phase.checks.length > 0) out.push(el('h5', {}, 'Sub-checks'), checksTable(phase.checks, cell.allowedToFail));
  const tail = stderrTail(phase.stderrTail);
  if (tail.length > 0) out.push(el('h5', {}, text(`Server stderr (last ${tail.length} lines, masked)`)), pre(tail, 'stderr'));
  const noise = (phase.stdoutNoise ?? []).slice(0, NOISE_LINES).map(cut);
  if (noise.length > 0) out.push(el('h5', {}, 'Server stdout that is not JSON-RPC'), pre(noise, 'stdout'));
  const handles = phase.phase === 'leaks' ? (cell.summary.leakedHandles ?? []) : [];
  if (handles.length > 0) out.push(el('h5', {}, 'Live handles'), el('ul', {}, ...handles.map((h) => el('li', {}, text(handleText(h))))));
  const surface = surfaceOf(run, cell);
  if (surface.length > 0 && phase.phase === 'stdio')
    out.push(el('h5', {}, 'Surface differences'), el('ul', {}, ...surface.map((f) => el('li', {}, text(f)))));
  if (phase.details && Object.keys(phase.details).length > 0 && state !== 'warn') {
    const json = JSON.stringify(phase.details, null, 2);
    const shown =
      json.length > DETAILS_CHARS
        ? `${json.slice(0, DETAILS_CHARS)}\n… (${json.length - DETAILS_CHARS} more characters in results.json)`
        : json;
    out.push(el('details', {}, el('summary', {}, 'Details (results.json)'), el('pre', { class: 'json' }, text(shown))));
  }
  out.push(el('h5', {}, 'Reproduce'), el('pre', { class: 'repro' }, el('code', {}, text(cell.repro))));
  if (cell.cellDir) out.push(el('p', {}, text(`Kept cell directory: ${cell.cellDir}`)));
  return el('section', { class: 'detail', id }, ...out);
}
