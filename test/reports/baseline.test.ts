import { describe, expect, test } from 'vitest';
import { baselineFromRun, parseBaseline, renderBaseline } from '../../src/reports/baseline.js';
import { auditRun, decideRun, judgeBaseline, runReasons } from '../../src/judge/verdict.js';
import { FOUR_CELLS, makeRun, variantSpecs } from './helpers/make-run.js';

const [floor, v1] = FOUR_CELLS;
const failing = () => makeRun([{ ...floor!, phases: { http: { verdict: 'failed', message: 'wrong token → 200 (want 401)' } } }, v1!]);
const entry = (over: object = {}) => ({ cell: 'v1-floor', phase: 'http' as const, reason: 'no auth by design', line: 3, ...over });

describe('the one verdict function judges the baseline', () => {
  test('a listed failure does not fail the run; the phase stays failed', () => {
    const run = failing();
    expect(decideRun(run.cells, false)).toEqual({ verdict: 'failed', exitCode: 1 });
    expect(decideRun(run.cells, false, { baseline: [entry()] })).toEqual({ verdict: 'passed', exitCode: 0 });
    expect(judgeBaseline(run.cells, [entry()]).expected).toEqual([{ cell: 'v1-floor', phase: 'http', entry: entry() }]);
  });

  test('a message pattern that does not match leaves the failure unlisted — and the entry stale', () => {
    const run = failing();
    const e = entry({ message: '^timed out' });
    expect(decideRun(run.cells, false, { baseline: [e] })).toEqual({ verdict: 'failed', exitCode: 1 });
    expect(runReasons(run.cells, false, { baseline: [e] })).toEqual([
      'stale baseline entry (line 3): v1-floor · http no longer fails as listed; delete line 3',
      'phases failed: v1-floor · http',
    ]);
    expect(decideRun(run.cells, false, { baseline: [entry({ message: 'wrong token' })] }).exitCode).toBe(0);
  });

  test('a listed failure that now passes is stale (exit 1); an entry for a cell that did not run is neither', () => {
    const passing = makeRun([floor!, v1!]);
    expect(decideRun(passing.cells, false, { baseline: [entry()] })).toEqual({ verdict: 'failed', exitCode: 1 });
    expect(decideRun(passing.cells, false, { baseline: [entry({ cell: 'v2-rep' })] })).toEqual({ verdict: 'passed', exitCode: 0 });
  });

  test('a stored run with its baseline audits clean (merge and report judge it the same way)', () => {
    const run = failing();
    const judged = {
      ...run,
      baseline: { file: 'mcp-matrix.baseline.json', entries: [entry()] },
      verdict: 'passed' as const,
      exitCode: 0 as const,
    };
    expect(auditRun(judged)).toEqual([]);
    expect(auditRun({ ...judged, baseline: undefined })).toEqual([
      expect.stringMatching(/^run: stored verdict "passed" \(exit 0\), but its cells say "failed"/),
    ]);
  });
});

describe('the baseline file', () => {
  test('round trip: written one entry per line, read back with each entry’s line', () => {
    const entries = baselineFromRun(failing(), []);
    expect(entries).toEqual([
      { cell: 'v1-floor', phase: 'http', reason: 'known failure (added by --update-baseline): wrong token → 200 (want 401)' },
    ]);
    const parsed = parseBaseline(
      renderBaseline([...entries, { cell: 'v1-latest', phase: 'leaks', message: 'Timeout', reason: 'r' }]),
      'b.json',
    );
    expect(parsed.ok && parsed.value.map((e) => [e.cell, e.line])).toEqual([
      ['v1-floor', 3],
      ['v1-latest', 4],
    ]);
  });

  test('--update-baseline keeps the reason and pattern of an entry that still matches', () => {
    expect(baselineFromRun(failing(), [entry({ message: 'wrong token' })])).toEqual([
      { cell: 'v1-floor', phase: 'http', message: 'wrong token', reason: 'no auth by design' },
    ]);
  });

  test('bad input is named with its path', () => {
    const bad = (text: string) => {
      const r = parseBaseline(text, 'b.json');
      return r.ok ? 'ok' : r.error.message;
    };
    expect(bad('{')).toMatch(/^b\.json: not valid JSON/);
    expect(bad('{"expectedFailures":[{"cell":"a","phase":"http"}]}')).toBe(
      'b.json: expectedFailures[0].reason: why this failure is known (required)',
    );
    expect(bad('{"expectedFailures":[{"cell":"a","phase":"http","reason":"r","message":"("}]}')).toMatch(
      /^b\.json: expectedFailures\[0\]\.message: not a valid regular expression/,
    );
    expect(bad('{"expectedFailures":[{"cell":"a","phase":"http","reason":"r","why":1}]}')).toMatch(/unknown key "why"/);
  });
});

describe('the baseline with axes: an entry names a variant, or a cell (every variant of it)', () => {
  const OLD = 'v2-latest~client-1.0.0~node-22';
  const NEW = 'v2-latest~client-latest-2~node-22';
  const fails = (...ids: string[]) =>
    makeRun(
      variantSpecs(
        Object.fromEntries(ids.map((id) => [id, { phases: { stdio: { verdict: 'failed' as const, message: 'resource_link' } } }])),
      ),
    );
  const stdio = (cell: string) => ({ cell, phase: 'stdio' as const, reason: 'old hosts cannot read resource_link', line: 2 });

  test('a variant entry lists that variant only; the same failure on another variant still fails the run', () => {
    const run = fails(OLD, NEW);
    expect(decideRun(run.cells, false, { baseline: [stdio(OLD)] })).toEqual({ verdict: 'failed', exitCode: 1 });
    expect(runReasons(run.cells, false, { baseline: [stdio(OLD)] })).toEqual([`phases failed: ${NEW} · stdio`]);
    expect(decideRun(fails(OLD).cells, false, { baseline: [stdio(OLD)] })).toEqual({ verdict: 'passed', exitCode: 0 });
  });

  test('a cell entry lists the phase on each of its variants; stale only when none of them fails it', () => {
    const run = fails(OLD, NEW);
    expect(decideRun(run.cells, false, { baseline: [stdio('v2-latest')] })).toEqual({ verdict: 'passed', exitCode: 0 });
    expect(judgeBaseline(run.cells, [stdio('v2-latest')]).expected.map((x) => x.cell)).toEqual([OLD, NEW]);
    expect(judgeBaseline(fails(OLD).cells, [stdio('v2-latest')]).stale).toEqual([]);
    const passing = fails();
    expect(judgeBaseline(passing.cells, [stdio('v2-latest')]).stale).toEqual([stdio('v2-latest')]);
    expect(runReasons(passing.cells, false, { baseline: [stdio('v2-latest')] })).toEqual([
      'stale baseline entry (line 2): v2-latest · stdio no longer fails as listed; delete line 2',
    ]);
    // A cell that did not run (another cell's --cell run) leaves its entry alone.
    expect(judgeBaseline(passing.cells, [stdio('v2-rep')]).stale).toEqual([]);
  });

  test('--update-baseline writes new failures by variant id and keeps a cell entry once', () => {
    expect(baselineFromRun(fails(OLD, NEW), []).map((e) => e.cell)).toEqual([OLD, NEW]);
    expect(baselineFromRun(fails(OLD, NEW), [stdio('v2-latest')])).toEqual([
      { cell: 'v2-latest', phase: 'stdio', reason: 'old hosts cannot read resource_link' },
    ]);
  });
});
