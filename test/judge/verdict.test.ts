import { describe, expect, test } from 'vitest';
import type { Verdict } from '../../src/results/types.js';
import {
  asInterrupted,
  auditRun,
  baselineMatches,
  cellOutcome,
  decideCell,
  decideRun,
  judgeBaseline,
  runReasons,
} from '../../src/judge/verdict.js';
import { CLIENT_NEW, FOUR_CELLS, makeRun, NODE_20, variantSpecs, type CellSpec } from '../reports/helpers/make-run.js';
import { storedFacts } from '../../src/judge/verdict.js';

const cell = (verdict: Verdict, allowedToFail = false) => ({ verdict, allowedToFail });

describe('cellOutcome', () => {
  test.each([
    ['passed', false, 'passed'],
    ['passed', true, 'stale-allowance'],
    ['failed', false, 'failed'],
    ['failed', true, 'allowed-failure'],
    ['not-measured', false, 'not-measured'],
    ['not-measured', true, 'not-measured'],
    ['skipped', false, 'not-measured'],
  ] as const)('%s, allowedToFail=%s → %s', (verdict, allowed, outcome) => {
    expect(cellOutcome(verdict, allowed)).toBe(outcome);
  });
});

describe('decideCell', () => {
  const p = (...verdicts: Verdict[]) => verdicts.map((verdict) => ({ verdict }));
  test.each([
    [p('passed', 'passed'), 'passed'],
    [p('passed', 'skipped'), 'passed'],
    [p('passed', 'failed', 'not-measured'), 'failed'],
    [p('passed', 'not-measured'), 'not-measured'],
    [p('skipped', 'skipped'), 'skipped'],
    [p(), 'not-measured'],
  ] as const)('%j → %s', (phases, verdict) => {
    expect(decideCell(phases)).toBe(verdict);
  });
});

describe('decideRun', () => {
  test.each([
    ['all passed', [cell('passed'), cell('passed')], false, 'passed', 0],
    ['allowed failure is fine', [cell('passed'), cell('failed', true)], false, 'passed', 0],
    ['a failure', [cell('passed'), cell('failed')], false, 'failed', 1],
    ['a stale allowance', [cell('passed'), cell('passed', true)], false, 'failed', 1],
    ['not measured, none failed', [cell('passed'), cell('not-measured')], false, 'not-measured', 3],
    ['failure beats not measured', [cell('not-measured'), cell('failed')], false, 'failed', 1],
    ['allowed failure + not measured', [cell('failed', true), cell('not-measured')], false, 'not-measured', 3],
    ['all phases disabled proves nothing', [cell('skipped')], false, 'not-measured', 3],
    ['no cells', [], false, 'not-measured', 3],
    ['interrupted wins', [cell('failed')], true, 'interrupted', 130],
  ] as const)('%s', (_name, cells, interrupted, verdict, exitCode) => {
    expect(decideRun(cells, interrupted)).toEqual({ verdict, exitCode });
  });
});

describe('decideRun facts', () => {
  test('fewer cells than asked for is an unfinished run', () => {
    expect(decideRun([cell('passed')], false, { expected: 2 })).toEqual({ verdict: 'interrupted', exitCode: 130 });
  });
  test('lockstep errors fail an otherwise passing run', () => {
    expect(decideRun([cell('passed')], false, { lockstepErrors: ['x'] })).toEqual({ verdict: 'failed', exitCode: 1 });
  });
  test('the phases decide, not a stored cell verdict', () => {
    const phases = [{ verdict: 'passed' as const }, { verdict: 'failed' as const }];
    expect(decideRun([{ phases, allowedToFail: false } as never], false)).toEqual({ verdict: 'failed', exitCode: 1 });
  });
});

describe('auditRun', () => {
  test('a run as written is consistent', () => {
    expect(auditRun(makeRun())).toEqual([]);
    expect(auditRun(makeRun([{ ...FOUR_CELLS[0]!, allowedToFail: true, phases: { stdio: { verdict: 'failed' } } }]))).toEqual([]);
  });

  test('a flipped run verdict over failed phases is named', () => {
    const run = makeRun([{ ...FOUR_CELLS[0]!, phases: { leaks: { verdict: 'not-measured' } } }]);
    expect(auditRun({ ...run, verdict: 'passed', exitCode: 0 })).toEqual([
      'run: stored verdict "passed" (exit 0), but its cells say "not-measured" (exit 3)',
    ]);
  });

  test('a dropped phase is named', () => {
    const run = makeRun([FOUR_CELLS[0]!]);
    const cell = run.cells[0]!;
    expect(auditRun({ ...run, cells: [{ ...cell, phases: cell.phases.filter((p) => p.phase !== 'http') }] })).toEqual([
      'cell v1-floor: records phases [environment, stdio, bind, conformance, leaks], but every cell records [environment, stdio, http, bind, conformance, leaks] once each, in order',
    ]);
  });
});

describe('asInterrupted', () => {
  test('a passed run interrupted while its reports were written says interrupted, exit 130, and stays consistent', () => {
    const run = asInterrupted(makeRun());
    expect(run).toMatchObject({ interrupted: true, verdict: 'interrupted', exitCode: 130 });
    expect(auditRun(run)).toEqual([]);
  });
});

describe('auditRun: each disagreement named exactly', () => {
  test('a run exit code that disagrees while its verdict agrees, and the reverse', () => {
    const run = makeRun();
    expect(auditRun({ ...run, exitCode: 3 })).toEqual(['run: stored verdict "passed" (exit 3), but its cells say "passed" (exit 0)']);
    expect(auditRun({ ...run, verdict: 'failed' })).toEqual(['run: stored verdict "failed" (exit 0), but its cells say "passed" (exit 0)']);
  });

  test('a cell that is not in the plan names the planned cells', () => {
    const run = makeRun();
    const cells = run.cells.map((c, i) => (i === 0 ? { ...c, id: 'v9-extra' } : c));
    expect(auditRun({ ...run, cells })).toEqual([
      'cell v9-extra (pin 1.24.0) is not in the plan (planned: v1-floor, v1-latest, v2-rep, v2-latest)',
    ]);
  });

  test('a stored cell verdict over failed phases names the phases that did not pass; none named when all passed', () => {
    const failing = makeRun([
      { ...FOUR_CELLS[0]!, phases: { stdio: { verdict: 'failed' }, http: { verdict: 'skipped' }, leaks: { verdict: 'not-measured' } } },
    ]);
    const c = failing.cells[0]!;
    expect(auditRun({ ...failing, cells: [{ ...c, verdict: 'passed' }] })).toEqual([
      'cell v1-floor: stored verdict "passed", but its phases say "failed" (stdio failed, leaks not-measured)',
    ]);
    const passing = makeRun([FOUR_CELLS[0]!]);
    const p = passing.cells[0]!;
    expect(auditRun({ ...passing, cells: [{ ...p, verdict: 'failed' }] })).toEqual([
      'cell v1-floor: stored verdict "failed", but its phases say "passed"',
    ]);
  });
});

describe('auditRun and storedFacts: variants', () => {
  const run = makeRun(variantSpecs({ 'v2-latest~client-1.0.0~node-22': { phases: { stdio: { verdict: 'failed', message: 'x' } } } }));

  test('a run of variants as written is consistent, and expects every variant', () => {
    expect(auditRun(run)).toEqual([]);
    expect(storedFacts(run).expected).toBe(4);
    expect(storedFacts({ ...run, plan: { ...run.plan, selected: ['v1-latest'] } }).expected).toBe(2);
    expect(storedFacts({ ...run, plan: { ...run.plan, selected: ['v1-latest~client-1.0.0~node-22'] } }).expected).toBe(1);
  });

  test('a row whose cell, client or Node is not the planned variant is named', () => {
    const rows = run.cells.map((c, i) =>
      i === 0
        ? { ...c, cell: 'v2-latest' }
        : i === 1
          ? { ...c, client: CLIENT_NEW, node: NODE_20 }
          : i === 2
            ? { ...c, client: undefined }
            : c,
    );
    expect(auditRun({ ...run, cells: rows })).toEqual([
      'cell v1-latest~client-1.0.0~node-22: recorded in cell v2-latest, but the plan puts this variant in cell v1-latest',
      'cell v1-latest~client-latest-2~node-22: ran Node 20.19.5 (spec 20), but the plan says 22.11.0 (spec 22)',
      "cell v2-latest~client-1.0.0~node-22: ran client the cell's own, but the plan says @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0)",
    ]);
  });

  test('a row the plan does not list names the planned variants', () => {
    const rows = run.cells.map((c, i) => (i === 3 ? { ...c, id: 'v2-latest~client-0.9.0' } : c));
    expect(auditRun({ ...run, cells: rows })[0]).toBe(
      'cell v2-latest~client-0.9.0 (pin latest@2) is not in the plan (planned: v1-latest~client-1.0.0~node-22, v1-latest~client-latest-2~node-22, v2-latest~client-1.0.0~node-22, v2-latest~client-latest-2~node-22)',
    );
  });
});

describe('runReasons', () => {
  type Phase = 'stdio' | 'http' | 'leaks';
  const c = (id: string, phases: [Phase, Verdict][], allowedToFail = false) => ({
    id,
    allowedToFail,
    phases: phases.map(([phase, verdict]) => ({ phase, verdict, durationMs: 1 })),
  });
  const ok = (id: string, allowedToFail = false) => c(id, [['stdio', 'passed']], allowedToFail);

  test('a passing run has no reason; an allowed failure is no reason', () => {
    expect(runReasons([ok('a'), ok('b')], false)).toEqual([]);
    expect(runReasons([ok('a'), c('b', [['stdio', 'failed']], true)], false)).toEqual([]);
  });

  test('interrupted, and every lockstep error prefixed once', () => {
    expect(runReasons([ok('a')], true)).toEqual(['interrupted']);
    expect(runReasons([ok('a')], false, { lockstepErrors: ['lockstep: x differs', 'y differs'] })).toEqual([
      'lockstep: x differs',
      'lockstep: y differs',
    ]);
  });

  test('stale allowances and missing cells, singular and plural', () => {
    expect(runReasons([ok('a', true)], false)).toEqual(['stale allowance: a passed but is marked allowedToFail']);
    expect(runReasons([ok('a', true), ok('b', true)], false)).toEqual(['stale allowance: a, b passed but are marked allowedToFail']);
    expect(runReasons([ok('a'), c('b', [])], false)).toEqual(['missing cell: b (no result)']);
    expect(runReasons([ok('a'), c('b', []), c('c', [])], false)).toEqual(['missing cells: b, c (no result)']);
  });

  test('failed phases are named by cell; not-measured phases only when nothing failed', () => {
    expect(
      runReasons(
        [
          c('a', [
            ['stdio', 'failed'],
            ['http', 'failed'],
          ]),
          c('b', [['leaks', 'not-measured']]),
        ],
        false,
      ),
    ).toEqual(['phases failed: a · stdio, a · http']);
    expect(runReasons([ok('a'), c('b', [['leaks', 'not-measured']])], false)).toEqual(['not measured: b · leaks']);
  });
});

describe('the baseline, judged exactly', () => {
  type Phase = 'stdio' | 'http' | 'leaks';
  const row = (id: string, phases: [Phase, Verdict, string?][], allowedToFail = false) => ({
    id,
    allowedToFail,
    phases: phases.map(([phase, verdict, message]) => ({ phase, verdict, durationMs: 1, ...(message ? { message } : {}) })),
  });
  const entry = (cell: string, phase: Phase, over: object = {}) => ({ cell, phase, reason: 'known', line: 7, ...over });

  test('baselineMatches: the cell, the phase and a failure, all three; a message pattern when given', () => {
    const failed = { phase: 'http' as const, verdict: 'failed' as const, message: 'wrong token → 200 (want 401)' };
    expect(baselineMatches(entry('a', 'http'), 'a', failed)).toBe(true);
    expect(baselineMatches(entry('b', 'http'), 'a', failed)).toBe(false);
    expect(baselineMatches(entry('a', 'stdio'), 'a', failed)).toBe(false);
    expect(baselineMatches(entry('a', 'http'), 'a', { ...failed, verdict: 'not-measured' })).toBe(false);
    expect(baselineMatches(entry('a', 'http'), 'a', { ...failed, verdict: 'passed' })).toBe(false);
    expect(baselineMatches(entry('a', 'http', { message: 'want 401\\)$' }), 'a', failed)).toBe(true);
    expect(baselineMatches(entry('a', 'http', { message: '^want' }), 'a', failed)).toBe(false);
    // A failure without a message is matched against the empty text.
    expect(baselineMatches(entry('a', 'http', { message: '^$' }), 'a', { phase: 'http', verdict: 'failed' })).toBe(true);
    expect(baselineMatches(entry('a', 'http', { message: 'x' }), 'a', { phase: 'http', verdict: 'failed' })).toBe(false);
  });

  test('judgeBaseline: each failed phase takes the first entry that lists it; unused entries of cells that ran are stale', () => {
    const cells = [
      row('a', [
        ['stdio', 'failed', 'boom'],
        ['http', 'failed'],
        ['leaks', 'passed'],
      ]),
      row('b', [['stdio', 'failed']]),
      row('c', []),
    ];
    const first = entry('a', 'stdio', { line: 1 });
    const second = entry('a', 'stdio', { line: 2 });
    const onPassed = entry('a', 'leaks', { line: 3 });
    const wrongPhase = entry('b', 'http', { line: 4 });
    const didNotRun = entry('c', 'stdio', { line: 5 });
    const unknownCell = entry('z', 'stdio', { line: 6 });
    const onB = entry('b', 'stdio', { line: 8 });
    expect(judgeBaseline(cells, [first, second, onPassed, wrongPhase, didNotRun, unknownCell, onB])).toStrictEqual({
      expected: [
        { cell: 'a', phase: 'stdio', entry: first },
        { cell: 'b', phase: 'stdio', entry: onB },
      ],
      stale: [second, onPassed, wrongPhase],
    });
    expect(judgeBaseline(cells, [])).toStrictEqual({ expected: [], stale: [] });
  });

  test('decideRun: a listed failure passes the run, an unlisted one (other cell, other phase) fails it, a stale entry fails it', () => {
    const cells = [row('a', [['stdio', 'failed']]), row('b', [['stdio', 'passed']])];
    expect(decideRun(cells, false, { baseline: [entry('a', 'stdio')] })).toStrictEqual({ verdict: 'passed', exitCode: 0 });
    expect(decideRun(cells, false, { baseline: [entry('b', 'stdio')] })).toStrictEqual({ verdict: 'failed', exitCode: 1 });
    expect(decideRun(cells, false, { baseline: [entry('a', 'http')] })).toStrictEqual({ verdict: 'failed', exitCode: 1 });
    expect(decideRun(cells, false, { baseline: [entry('a', 'stdio'), entry('b', 'stdio')] })).toStrictEqual({
      verdict: 'failed',
      exitCode: 1,
    });
    // A listed failure beside a phase not measured: the run is not measured, not passed.
    const unmeasured = [row('a', [['stdio', 'failed']]), row('b', [['stdio', 'not-measured']])];
    expect(decideRun(unmeasured, false, { baseline: [entry('a', 'stdio')] })).toStrictEqual({ verdict: 'not-measured', exitCode: 3 });
    // Cells without ids (stored verdicts only) are judged by their verdict: a baseline cannot list them.
    expect(
      decideRun([{ phases: [{ verdict: 'failed' }], allowedToFail: false }] as never, false, { baseline: [entry('a', 'stdio')] }),
    ).toStrictEqual({
      verdict: 'failed',
      exitCode: 1,
    });
    // A failure of an allowed cell stays an allowed failure with or without a baseline.
    expect(decideRun([row('a', [['stdio', 'failed']], true)], false, { baseline: [] })).toStrictEqual({ verdict: 'passed', exitCode: 0 });
    expect(decideRun([row('a', [['stdio', 'passed']])], false, { expected: 1, baseline: [] })).toStrictEqual({
      verdict: 'passed',
      exitCode: 0,
    });
  });

  test('decideRun: surface differences fail an otherwise passing run', () => {
    const cells = [row('a', [['stdio', 'passed']])];
    expect(decideRun(cells, false, { surfaceFailures: ['surface: tool x: added'] })).toStrictEqual({ verdict: 'failed', exitCode: 1 });
    expect(decideRun(cells, false, { surfaceFailures: [] })).toStrictEqual({ verdict: 'passed', exitCode: 0 });
    expect(decideRun(cells, false, { lockstepErrors: [] })).toStrictEqual({ verdict: 'passed', exitCode: 0 });
  });

  test('runReasons: a listed failure is no reason; a stale entry is, with its line; an unlisted failure is named', () => {
    const cells = [
      row('a', [
        ['stdio', 'failed', 'boom'],
        ['http', 'failed'],
      ]),
      row('b', [['stdio', 'passed']]),
    ];
    expect(runReasons(cells, false, { baseline: [entry('a', 'stdio'), entry('a', 'http')] })).toStrictEqual([]);
    expect(
      runReasons(cells, false, { baseline: [entry('a', 'stdio', { message: 'boom' }), entry('b', 'stdio', { line: 9 })] }),
    ).toStrictEqual(['stale baseline entry (line 9): b · stdio no longer fails as listed; delete line 9', 'phases failed: a · http']);
    // A listed failure beside a phase not measured: the unmeasured phase is the reason.
    const unmeasured = [row('a', [['stdio', 'failed']]), row('b', [['leaks', 'not-measured']])];
    expect(runReasons(unmeasured, false, { baseline: [entry('a', 'stdio')] })).toStrictEqual(['not measured: b · leaks']);
  });

  test('runReasons: surface differences, counted, singular and plural, after lockstep', () => {
    const cells = [row('a', [['stdio', 'passed']])];
    expect(runReasons(cells, false, { surfaceFailures: ['surface: x'] })).toStrictEqual([
      'surface: 1 difference between cells or from mcp-surface.json (listed above)',
    ]);
    expect(runReasons(cells, false, { lockstepErrors: ['l'], surfaceFailures: ['surface: x', 'surface snapshot: y'] })).toStrictEqual([
      'lockstep: l',
      'surface: 2 differences between cells or from mcp-surface.json (listed above)',
    ]);
  });

  test('runReasons: a missing row of a cell with axes is a missing variant; expected counts only rows measured', () => {
    const rows = [
      { ...row('v1~client-1.0.0', [['stdio', 'passed']]), cell: 'v1' },
      { ...row('v1~client-latest-2', []), cell: 'v1' },
    ];
    expect(runReasons(rows, false, { expected: 2 })).toStrictEqual(['missing variant: v1~client-latest-2 (no result)']);
    expect(runReasons([{ ...row('v1', []), cell: 'v1' }, row('v2', [])], false)).toStrictEqual(['missing cells: v1, v2 (no result)']);
    expect(runReasons([row('a', [['stdio', 'passed']])], false, { expected: 3 })).toStrictEqual([]);
  });
});

describe('auditRun: stored surface findings', () => {
  test('findings that differ from what the cells say are named, both lists in full', () => {
    const run = makeRun();
    expect(auditRun({ ...run, surface: { cells: [], allowed: [], allow: [], findings: [] } })).toStrictEqual([]);
    expect(
      auditRun({ ...run, surface: { cells: [], allowed: [], allow: [], findings: ['tool x: added', 'tool y: removed'] } }),
    ).toStrictEqual([
      "run: stored surface findings [tool x: added; tool y: removed], but its cells' surfaces say []",
      'run: stored verdict "passed" (exit 0), but its cells say "failed" (exit 1)',
    ]);
  });

  test("two findings its cells' surfaces give, stored as one: both lists in full, each joined with '; '", () => {
    const surface = (tool: Record<string, unknown>) => ({ stdio: { details: { parity: { 'tool add': tool } } } });
    const one: CellSpec = {
      id: 'v1-latest',
      pin: 'latest@1',
      version: '1.24.0',
      major: 1,
      phases: surface({ title: 'Add', description: 'a' }),
    };
    const two: CellSpec = {
      id: 'v2-latest',
      pin: 'latest@2',
      version: '2.4.0',
      major: 2,
      phases: surface({ title: 'Sum', description: 'b' }),
    };
    const run = makeRun([one, two], { verdict: 'failed', exitCode: 1 });
    const stored = ["tool add: description 'a' on v1-latest (1.24.0); 'b' on v2-latest (2.4.0)"];
    expect(auditRun({ ...run, surface: { cells: ['v1-latest', 'v2-latest'], allowed: [], allow: [], findings: stored } })).toStrictEqual([
      "run: stored surface findings [tool add: description 'a' on v1-latest (1.24.0); 'b' on v2-latest (2.4.0)], " +
        "but its cells' surfaces say [tool add: description 'a' on v1-latest (1.24.0); 'b' on v2-latest (2.4.0); " +
        "tool add: title 'Add' on v1-latest (1.24.0); 'Sum' on v2-latest (2.4.0)]",
    ]);
  });
});

describe('verdict.ts: the last survivors', () => {
  const row = (id: string, verdict: Verdict, allowedToFail = false, phase: 'stdio' | 'leaks' = 'stdio') => ({
    id,
    allowedToFail,
    phases: [{ phase, verdict, durationMs: 1 }],
  });

  test("runReasons: an allowed cell's failure is not named beside a real one; unmeasured phases joined; nothing to say about no cells", () => {
    expect(runReasons([row('a', 'failed', true), row('b', 'failed')], false)).toStrictEqual(['phases failed: b · stdio']);
    expect(runReasons([row('a', 'not-measured', false, 'leaks'), row('b', 'not-measured', false, 'leaks')], false)).toStrictEqual([
      'not measured: a · leaks, b · leaks',
    ]);
    expect(runReasons([], false)).toStrictEqual([]);
  });

  test('runReasons: rows missing from a run where only some cells have axes are "variants"', () => {
    const rows = [
      { ...row('v1~client-1.0.0', 'passed'), cell: 'v1', phases: [] },
      { ...row('v2', 'passed'), cell: 'v2', phases: [] },
    ];
    expect(runReasons(rows, false)).toStrictEqual(['missing variants: v1~client-1.0.0, v2 (no result)']);
  });

  test('decideRun: stored cells judged by their verdict take no part in the baseline', () => {
    const stored = [{ verdict: 'passed' as const, allowedToFail: false }];
    expect(decideRun(stored, false, { baseline: [{ cell: 'a', phase: 'stdio', reason: 'r', line: 1 }] })).toStrictEqual({
      verdict: 'passed',
      exitCode: 0,
    });
  });

  test('storedFacts: no surface differences, no surfaceFailures key', () => {
    expect(storedFacts(makeRun())).toStrictEqual({ expected: 4 });
  });

  test('auditRun: a row that ran a Node the plan does not name says "the host\'s"', () => {
    const run = makeRun();
    const cells = run.cells.map((c, i) => (i === 0 ? { ...c, node: NODE_20 } : c));
    expect(auditRun({ ...run, cells })).toStrictEqual(["cell v1-floor: ran Node 20.19.5 (spec 20), but the plan says the host's"]);
  });
});
