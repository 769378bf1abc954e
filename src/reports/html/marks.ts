// What one square of matrix.html says: a state (for colour and the filter), a mark and a word. Colour
// is never the only signal, so every state has its own mark and text.

import type { CellResult, PhaseResult, SubCheckResult } from '../../results/types.js';
import { notableChecks } from '../../contract/checks.js';
import { phaseLabel } from '../view/view.js';

export type State = 'fail' | 'allowed' | 'nm' | 'warn' | 'pass' | 'skip' | 'none';

export const MARKS: Record<State, { mark: string; word: string }> = {
  fail: { mark: '✗', word: 'FAIL' },
  allowed: { mark: '✗', word: 'FAIL (allowed)' },
  nm: { mark: '?', word: 'not measured' },
  warn: { mark: '!', word: 'ok · warn' },
  pass: { mark: '✓', word: 'ok' },
  skip: { mark: '–', word: 'skipped' },
  none: { mark: ' ', word: 'not planned' },
};

/** Worst first: a square of several variants takes the state of its worst one. */
const ORDER: readonly State[] = ['fail', 'nm', 'allowed', 'warn', 'pass', 'skip', 'none'];

export function stateOf(cell: CellResult, phase: PhaseResult): State {
  switch (phase.verdict) {
    case 'failed':
      return cell.allowedToFail ? 'allowed' : 'fail';
    case 'not-measured':
      return 'nm';
    case 'skipped':
      return 'skip';
    case 'passed':
      return notableChecks(phase.checks ?? []).length > 0 ? 'warn' : 'pass';
  }
}

export function worst(states: readonly State[]): State {
  return ORDER.find((s) => states.includes(s)) ?? 'none';
}

/** Failed (allowed or not) or not measured: what the "failures only" filter keeps and what expands. */
/**
 * A sub-check's state, read from the check (never from its label: a lifecycle check that passed is labelled
 * with what the server did, `pass (dropped)`). Not recorded or skipped: `skip`.
 */
export function checkState(c: SubCheckResult | undefined, allowedToFail = false): State {
  if (!c || c.outcome === 'skipped' || c.outcome === 'not-applicable' || c.outcome === 'contested') return 'skip';
  if (c.outcome === 'passed') return 'pass';
  if (c.outcome === 'not-measured') return 'nm';
  if (c.level === 'warn') return 'warn';
  return allowedToFail ? 'allowed' : 'fail';
}

export const isProblem = (s: State): boolean => s === 'fail' || s === 'allowed' || s === 'nm';

/** Expands in place: a problem, or a pass with a warning to read. */
export const expands = (s: State): boolean => isProblem(s) || s === 'warn';

/** The square's word: `ok`, `FAIL`, `loopback only`, `skipped`, `ok · 2 warn`. */
export function wordOf(cell: CellResult, phase: PhaseResult): string {
  const state = stateOf(cell, phase);
  if (state === 'skip') return 'skipped';
  if (state === 'warn') {
    // A contested check (the cells disagree, no `expect` says which is right) is named as such, never as a warning.
    const notable = notableChecks(phase.checks ?? []);
    const contested = notable.filter((c) => c.outcome === 'contested').length;
    const warned = notable.length - contested;
    return [phaseLabel(cell, phase), ...(warned ? [`${warned} warn`] : []), ...(contested ? [`${contested} contested`] : [])].join(' · ');
  }
  return phaseLabel(cell, phase);
}
