// A square's word in matrix.html: a pass with a warning to read says how many; a contested check is named as such.
import { describe, expect, it } from 'vitest';
import { checkResult } from '../../../src/contract/checks.js';
import type { PhaseResult } from '../../../src/results/types.js';
import { stateOf, wordOf } from '../../../src/reports/html/marks.js';
import { FOUR_CELLS, makeCell } from '../helpers/make-run.js';

const cell = makeCell(FOUR_CELLS[1]!);
const stdio = (checks: PhaseResult['checks']): PhaseResult => ({ phase: 'stdio', verdict: 'passed', durationMs: 1, checks });
const contested = checkResult('session', 'require', { outcome: 'contested', message: 'not judged', short: 'contested' });
const warned = checkResult('unknown-tool', 'warn', { outcome: 'failed', message: 'a success' });

describe('wordOf', () => {
  it('a contested check is named contested, a warning as a warning, both when both', () => {
    expect([stateOf(cell, stdio([contested])), wordOf(cell, stdio([contested]))]).toEqual(['warn', 'ok · 1 contested']);
    expect(wordOf(cell, stdio([warned]))).toBe('ok · 1 warn');
    expect(wordOf(cell, stdio([contested, warned]))).toBe('ok · 1 warn · 1 contested');
    expect(wordOf(cell, stdio([]))).toBe('ok');
  });
});
