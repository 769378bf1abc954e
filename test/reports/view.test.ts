// The table's phase cells: bind's "loopback only"; HTTP shows what each sub-check found (`ok` only when every one passed).
import { describe, expect, it } from 'vitest';
import type { PhaseResult } from '../../src/results/types.js';
import { httpLabel, phaseLabel, phaseOf } from '../../src/reports/view.js';
import { FOUR_CELLS, makeCell } from './helpers/make-run.js';

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

const latestCell = makeCell(FOUR_CELLS[1]!);
const check = (outcome: string, short: string) => ({ outcome, text: short, short });
const http = (verdict: PhaseResult['verdict'], checks?: Record<string, unknown>): PhaseResult => ({
  phase: 'http',
  verdict,
  durationMs: 1,
  ...(checks ? { details: { checks } } : {}),
});

describe('httpLabel', () => {
  it('is ok when every sub-check passed', () => {
    const checks = {
      noToken: check('ok', '401'),
      wwwAuthenticate: check('ok', 'Bearer challenge'),
      wrongToken: check('ok', '401'),
      roundTrip: check('ok', 'ok'),
    };
    expect(httpLabel(latestCell, http('passed', checks))).toBe('ok');
  });

  it('names every finding of a failed phase, and what passed', () => {
    const checks = {
      noToken: check('ok', '401'),
      wwwAuthenticate: check('failed', 'no challenge'),
      wrongToken: check('failed', '403 (want 401)'),
      roundTrip: check('ok', 'ok'),
    };
    expect(httpLabel(latestCell, http('failed', checks))).toBe(
      'FAIL · no token 401, no challenge · wrong token 403 (want 401) · round trip ok',
    );
  });

  it("shows http.auth: 'none' as no auth, never as ok", () => {
    const noAuth = check('no auth', 'no auth');
    const checks = { noToken: noAuth, wwwAuthenticate: noAuth, wrongToken: noAuth, roundTrip: check('ok', 'ok') };
    expect(httpLabel(latestCell, http('passed', checks))).toBe('no auth · round trip ok');
    const broken = { ...checks, roundTrip: check('failed', 'failed at initialize') };
    expect(httpLabel(latestCell, http('failed', broken))).toBe('FAIL · no auth · round trip failed at initialize');
  });

  it('falls back to the verdict label without sub-checks (older results, not measured, skipped)', () => {
    expect(httpLabel(latestCell, http('passed'))).toBe('ok');
    expect(httpLabel(latestCell, http('not-measured'))).toBe('not measured');
    expect(httpLabel(latestCell, http('skipped'))).toBe('n/a');
  });
});
