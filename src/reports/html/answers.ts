// matrix.html's answer-parity section (src/results/parity.ts), beside the surface section: whether the
// same calls got the same answers on every cell, each difference, drift, stale allowance and allowed one.

import type { RunResult } from '../../results/types.js';
import { hasAxes } from '../../results/variants.js';
import { el } from './escape.js';
import type { State } from './marks.js';
import { paritySection } from './parity-section.js';

export function renderAnswers(run: RunResult): string {
  const p = run.parity;
  const h = el('h2', {}, 'Answer parity');
  if (!p) return el('section', { id: 'answers' }, h, el('p', {}, 'not checked (parity: false in the config)'));
  const unit = `${hasAxes(run.plan) ? 'variant' : 'cell'}${p.cells.length === 1 ? '' : 's'}`;
  const failing = p.findings.length + (p.drift?.length ?? 0) + p.stale.length;
  const state: State = p.cells.length === 0 ? 'nm' : failing > 0 ? 'fail' : 'pass';
  const items = `${p.items.length} item${p.items.length === 1 ? '' : 's'}`;
  const head =
    p.cells.length === 0
      ? 'not compared (no row recorded an answer)'
      : failing === 0
        ? `${items} identical on ${p.cells.length} ${unit}${p.allowed.length ? ` but for ${p.allowed.length} allowed difference(s)` : ''}${p.drift?.length === 0 ? ' · matches mcp-surface.json' : ''}`
        : `${failing} difference(s) in ${items} on ${p.cells.length} ${unit}`;
  return paritySection('answers', h, state, head, p);
}
