// matrix.html: one self-contained page (inline style and script, no network) rendered from results.json.
// Pure and deterministic. A Content-Security-Policy admits only the page's own style and script, by hash,
// so even text that escaped escaping could neither run nor load anything.

import { createHash } from 'node:crypto';
import type { RunResult } from '../../results/types.js';
import { runVerdictLabel } from '../view/view.js';
import { CSS, JS } from './assets.js';
import { el, text } from './escape.js';
import { renderChecksHtml } from './checks.js';
import { renderGrid } from './grid.js';
import { renderFailureList, renderHeader, renderSurface, renderWarningList } from './header.js';
import { renderAnswers } from './answers.js';
import { MARKS } from './marks.js';

const sha256 = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

function controls(): string {
  const legend = (['pass', 'fail', 'allowed', 'nm', 'warn', 'skip'] as const).map((s) =>
    el('span', { class: `s-${s}` }, text(`${MARKS[s].mark} ${s === 'warn' ? 'warn' : MARKS[s].word}`)),
  );
  return el(
    'div',
    { class: 'controls' },
    el('label', {}, el('input', { type: 'checkbox', id: 'failures-only' }), ' failures only'),
    el('div', { class: 'legend' }, ...legend),
    el('div', { class: 'keys' }, 'keys: arrows move between squares · Enter opens · Escape closes · ¶ links to a cell or result'),
  );
}

export function renderHtml(run: RunResult): string {
  const csp = `default-src 'none'; style-src ${sha256(CSS)}; script-src ${sha256(JS)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const title = `mcp-matrix: ${runVerdictLabel(run.verdict)} · ${run.plan.package.name}@${run.plan.package.version}`;
  const head = [
    '<meta charset="utf-8">',
    el('meta', { 'http-equiv': 'Content-Security-Policy', content: csp }).replace('</meta>', ''),
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    el('title', {}, text(title)),
    `<style>${CSS}</style>`,
  ];
  const main = [
    renderHeader(run),
    renderSurface(run),
    renderAnswers(run),
    controls(),
    el('p', { id: 'none-failing', class: 's-pass' }, text(`${MARKS.pass.mark} no failures: every cell passed and was measured`)),
    renderGrid(run),
    renderFailureList(run),
    renderChecksHtml(run),
    renderWarningList(run),
  ];
  return `<!doctype html>\n<html lang="en">\n<head>\n${head.join('\n')}\n</head>\n<body>\n${main.join('\n')}\n<script>${JS}</script>\n</body>\n</html>\n`;
}
