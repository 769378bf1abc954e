import { describe, expect, it } from 'vitest';
import { phaseLabel, phaseOf } from '../../src/reports/view.js';
import { makeCell } from './helpers/make-run.js';

describe('phaseLabel: bind', () => {
  const cell = (details: Record<string, unknown>) =>
    makeCell({ id: 'c', pin: 'latest@1', version: '1.32.2', major: 1, phases: { bind: { verdict: 'passed', details } } });

  it('a loopback-only pass is shown as "loopback only", never as a plain ok refusal', () => {
    const c = cell({ outcome: 'loopback-only' });
    expect(phaseLabel(c, phaseOf(c, 'bind'))).toBe('loopback only');
  });

  it('a real refusal is ok', () => {
    const c = cell({ outcome: 'refused', exitCode: 2 });
    expect(phaseLabel(c, phaseOf(c, 'bind'))).toBe('ok');
  });
});
