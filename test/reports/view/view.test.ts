// The table's phase cells: bind's "loopback only"; HTTP shows what each sub-check found (`ok` only when every one passed).
import { describe, expect, it } from 'vitest';
import type { PhaseResult } from '../../../src/results/types.js';
import { checkResult } from '../../../src/contract/checks.js';
import { displayCells, httpLabel, phaseLabel, phaseOf, stdioLabel } from '../../../src/reports/view/view.js';
import { CLIENT_OLD, FOUR_CELLS, makeCell, makeRun, NODE_22, variantSpecs } from '../helpers/make-run.js';
import { malformed } from '../../helpers/malformed.js';

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
  ...(checks ? { details: { checks: malformed(checks) } } : {}),
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

  it('a round trip the cells disagree on (contested after the driver wrote its text) is shown contested, never ok', () => {
    const checks = {
      noToken: check('ok', '401'),
      wwwAuthenticate: check('ok', 'Bearer challenge'),
      wrongToken: check('ok', '401'),
      roundTrip: check('failed', 'failed at tools/call lose'),
    };
    const contested = checkResult('round-trip', 'require', { outcome: 'contested', message: 'not judged', short: 'contested' });
    expect(httpLabel(latestCell, { ...http('passed', checks), checks: [contested] })).toBe(
      'ok · no token 401 · wrong token 401 · round trip contested',
    );
    const allOk = { ...checks, roundTrip: check('ok', 'ok') };
    expect(httpLabel(latestCell, { ...http('passed', allOk), checks: [contested] })).toBe(
      'ok · no token 401 · wrong token 401 · round trip contested',
    );
    expect(httpLabel(latestCell, { ...http('passed', allOk), checks: [{ ...contested, level: 'off' }] })).toBe('ok');
  });

  it('falls back to the verdict label without sub-checks (older results, not measured, skipped)', () => {
    expect(httpLabel(latestCell, http('passed'))).toBe('ok');
    expect(httpLabel(latestCell, http('not-measured'))).toBe('not measured');
    expect(httpLabel(latestCell, http('skipped'))).toBe('n/a');
  });
});

describe('displayCells: one row per variant', () => {
  const run = makeRun(variantSpecs());

  it('rows follow the plan, grouped by cell', () => {
    expect(displayCells(run).map((c) => [c.cell, c.id])).toEqual([
      ['v1-latest', 'v1-latest~client-1.0.0~node-22'],
      ['v1-latest', 'v1-latest~client-latest-2~node-22'],
      ['v2-latest', 'v2-latest~client-1.0.0~node-22'],
      ['v2-latest', 'v2-latest~client-latest-2~node-22'],
    ]);
  });

  it('a planned variant without a result is shown as not measured, with its client, Node and its own repro', () => {
    const lost = { ...run, cells: run.cells.filter((c) => c.id !== 'v2-latest~client-1.0.0~node-22') };
    const rows = displayCells(lost);
    expect(rows).toHaveLength(4);
    const missing = rows[2]!;
    expect(missing).toMatchObject({
      id: 'v2-latest~client-1.0.0~node-22',
      cell: 'v2-latest',
      client: CLIENT_OLD,
      node: NODE_22,
      pin: 'latest@2',
      verdict: 'not-measured',
      outcome: 'not-measured',
      phases: [],
      repro: 'npx mcp-matrix run --config matrix.config.ts --cell v2-latest~client-1.0.0~node-22',
    });
    expect(missing).not.toHaveProperty('variants');
  });

  it('a --cell run shows the variants it was asked for: by variant id or by cell id', () => {
    const one = { ...run, plan: { ...run.plan, selected: ['v2-latest~client-latest-2~node-22'] }, cells: [] };
    expect(displayCells(one).map((c) => c.id)).toEqual(['v2-latest~client-latest-2~node-22']);
    const cell = { ...run, plan: { ...run.plan, selected: ['v1-latest'] }, cells: run.cells.slice(0, 1) };
    expect(displayCells(cell).map((c) => [c.id, c.verdict])).toEqual([
      ['v1-latest~client-1.0.0~node-22', 'passed'],
      ['v1-latest~client-latest-2~node-22', 'not-measured'],
    ]);
  });
});

describe('stdioLabel', () => {
  const stdio = (verdict: PhaseResult['verdict'], checks: PhaseResult['checks']): PhaseResult => ({
    phase: 'stdio',
    verdict,
    durationMs: 1,
    checks,
  });
  const session = (outcome: 'passed' | 'contested', level: 'require' | 'off' = 'require') =>
    checkResult('session', level, { outcome, message: outcome, ...(outcome === 'contested' ? { short: 'contested' } : {}) });

  it('a contested step check is named beside the verdict; a plain pass is ok', () => {
    expect(stdioLabel(latestCell, stdio('passed', [session('contested')]))).toBe('ok · session contested');
    expect(stdioLabel(latestCell, stdio('passed', [session('passed')]))).toBe('ok');
    expect(stdioLabel(latestCell, stdio('passed', [session('contested', 'off')]))).toBe('ok');
    expect(stdioLabel(latestCell, stdio('failed', [session('contested')]))).toBe('FAIL · session contested');
    expect(stdioLabel(latestCell, stdio('passed', undefined))).toBe('ok');
  });
});
