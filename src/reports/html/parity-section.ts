// What matrix.html's two parity sections share (surface: header.ts's renderSurface; answers: answers.ts):
// the verdict line under the heading, then one marked list item per difference, drift from mcp-surface.json,
// stale allowance and allowed difference, so both read the same way.

import { el, text } from './escape.js';
import { MARKS, type State } from './marks.js';

/** The lists a parity result carries (only answer parity has stale allowances). */
export interface ParityLists {
  findings: string[];
  drift?: string[];
  stale?: string[];
  allowed: string[];
}

export function paritySection(id: string, h: string, state: State, head: string, p: ParityLists): string {
  const items = [
    ...p.findings.map((f) => el('li', { class: 's-fail' }, text(`${MARKS.fail.mark} differs: ${f}`))),
    ...(p.drift ?? []).map((d) => el('li', { class: 's-fail' }, text(`${MARKS.fail.mark} changed since mcp-surface.json: ${d}`))),
    ...(p.stale ?? []).map((s) => el('li', { class: 's-fail' }, text(`${MARKS.fail.mark} stale: ${s}`))),
    ...p.allowed.map((a) => el('li', { class: 's-skip' }, text(`${MARKS.skip.mark} allowed: ${a}`))),
  ];
  return el(
    'section',
    { id },
    h,
    el('p', { class: `s-${state}` }, text(`${MARKS[state].mark} ${head}`)),
    items.length ? el('ul', {}, ...items) : '',
  );
}
