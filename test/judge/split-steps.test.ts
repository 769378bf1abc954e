import { describe, expect, test } from 'vitest';
import { checkResult } from '../../src/contract/checks.js';
import type { ParityAllowance, PhaseResult, RunResult } from '../../src/results/types.js';
import { compareRecorded } from '../../src/results/parity.js';
import { judgeSplitSteps } from '../../src/judge/split-steps.js';
import { auditRun, decideRun, storedFacts } from '../../src/judge/verdict.js';
import { mergeResults, renderJunit, renderMarkdown, renderSarif } from '../../src/reports/index.js';
import { renderHtml } from '../../src/reports/html/page.js';
import { makeRun, pieceOf, type CellSpec } from '../reports/helpers/make-run.js';

// What the driver records for `tools/call lose` (fixtures/broken/answer-iserror-dropped): isError on 1.x, dropped on 2.x.
const errored = { isError: true, content: [{ type: 'text', text: 'sha256:aaaaaaaaaaaa (16 chars)' }] };
const dropped = { isError: false, content: [{ type: 'text', text: 'sha256:aaaaaaaaaaaa (16 chars)' }] };
const ITEM = 'tools/call lose';

function stdio(
  value: unknown,
  failure?: { message: string; unexpectedIsError?: true },
  extra: Record<string, unknown> = {},
): Partial<PhaseResult> {
  const session = failure
    ? checkResult('session', 'require', { outcome: 'failed', message: failure.message, step: ITEM })
    : checkResult('session', 'require', { outcome: 'passed', message: 'initialize, the lists, every step and ping answered' });
  const edge = checkResult(
    'unknown-method',
    'require',
    failure ? { outcome: 'skipped', message: 'not run' } : { outcome: 'passed', message: 'ok' },
  );
  return {
    verdict: failure ? 'failed' : 'passed',
    ...(failure ? { message: failure.message, step: ITEM } : {}),
    checks: [session, edge],
    details: {
      compared: { [ITEM]: value },
      ...(failure ? { failedSteps: [{ item: ITEM, step: ITEM, ...(failure.unexpectedIsError ? { unexpectedIsError: true } : {}) }] } : {}),
      ...extra,
    },
  };
}

const RETURNED = `${ITEM}: returned isError: "lost on purpose" · sent tools/call {"name":"lose","arguments":{}}`;
const EXPECTED = `${ITEM}: expected isError, got a success: "lost on purpose" · sent tools/call {"name":"lose","arguments":{}}`;
const cell = (id: string, major: number, version: string, phase: Partial<PhaseResult>): CellSpec => ({
  id,
  pin: `latest@${major}`,
  version,
  major,
  phases: { stdio: phase },
});

function judged(run: RunResult, allow: ParityAllowance[] = []): RunResult {
  const cells = judgeSplitSteps(run.cells);
  const parity = compareRecorded(cells, allow);
  return { ...run, cells, parity, ...decideRun(cells, false, storedFacts({ ...run, parity })) };
}

const phaseOf = (run: RunResult, id: string) => run.cells.find((c) => c.id === id)!.phases.find((p) => p.phase === 'stdio')!;

describe('a step that failed on some rows only', () => {
  test('without expect, isError on 1.x and dropped on 2.x: no row is blamed or passed for it; the parity finding fails the run', () => {
    const run = judged(
      makeRun([
        cell('latest-1', 1, '1.32.2', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
        cell('latest-2', 2, '2.4.0', stdio(dropped)),
      ]),
    );
    const why =
      'tools/call lose: not judged: the cells disagree whether the call failed (isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)) and the step has no `expect` to say which is right (see the answer parity finding)';
    // Measured on both rows: the step check is contested (never not-measured, the machine's outcome); the phase and
    // the cell keep the verdict of their other checks, and no phase names the contested step as its cause.
    for (const id of ['latest-1', 'latest-2']) {
      const p = phaseOf(run, id);
      expect(p).toMatchObject({ verdict: 'passed', message: why });
      expect(p.step).toBeUndefined();
      expect(p.checks![0]).toMatchObject({ id: 'session', outcome: 'contested', message: why, short: 'contested', step: ITEM });
      expect(p.checks![1]).toMatchObject({ id: 'unknown-method' });
      expect(run.cells.find((c) => c.id === id)).toMatchObject({ verdict: 'passed', outcome: 'passed' });
    }
    expect(run.parity!.findings).toEqual(['stdio tools/call lose: isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)']);
    expect(run).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(auditRun(run)).toEqual([]);
    // Judged again (report, merge of a merged file): nothing changes.
    expect(judgeSplitSteps(run.cells)).toEqual(run.cells);
    // Every report shows why the rows were not judged, and the finding.
    for (const text of [renderMarkdown(run), renderHtml(run), renderJunit(run)]) {
      expect(text).toContain('the cells disagree whether the call failed');
      expect(text).toMatch(/isError true on latest-1 \(1\.32\.2\); false on latest-2 \(2\.4\.0\)/);
    }
    const md = renderMarkdown(run);
    // The stdio column says ok on both rows (nothing failed there); the check table and its notes say contested.
    expect(md).toMatch(/\n\| latest@1 → 1\.32\.2 \|[^\n]*\| ok \|/);
    expect(md).toMatch(/\| stdio › session \| [^|]* \| require \| contested \| contested \|/);
    expect(md).toContain('- `latest-1` · stdio › session (contested): tools/call lose: not judged: the cells disagree');
    // JUnit: the check is skipped with its message on each row; the parity suite's case fails.
    const junit = renderJunit(run);
    expect(junit).toMatch(/name="stdio › session"[^>]*>\s*<skipped message="[^"]*the cells disagree whether the call failed/);
    expect(junit).not.toMatch(/type="not-measured"/);
    expect(junit).toMatch(/<testsuite name="parity" tests="\d+" failures="1"/);
    // SARIF: no result for the contested check, one for the parity finding.
    const sarif = JSON.parse(renderSarif(run)) as { runs: { results: { ruleId: string; message: { text: string } }[] }[] };
    const results = sarif.runs[0]!.results;
    expect(results.some((r) => r.ruleId.includes('session'))).toBe(false);
    expect(results.map((r) => r.message.text).join('\n')).toMatch(/isError true on latest-1 \(1\.32\.2\); false on latest-2 \(2\.4\.0\)/);
  });

  test('with expect isError, the 2.x row that dropped it fails and names what the other cells answered; 1.x passes', () => {
    const run = judged(
      makeRun([cell('latest-1', 1, '1.32.2', stdio(errored)), cell('latest-2', 2, '2.4.0', stdio(dropped, { message: EXPECTED }))]),
    );
    expect(phaseOf(run, 'latest-1').verdict).toBe('passed');
    // Nothing contested: neither row records a contested step.
    expect(run.cells.map((c) => c.phases[0]!.details)).not.toContainEqual(expect.objectContaining({ contestedSteps: expect.anything() }));
    expect(phaseOf(run, 'latest-2')).toMatchObject({
      verdict: 'failed',
      message: `${EXPECTED}; the other cells answered: isError true on latest-1 (1.32.2)`,
    });
    expect(run.parity!.findings).toEqual(['stdio tools/call lose: isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)']);
    expect(auditRun(run)).toEqual([]);
    expect(judgeSplitSteps(run.cells)).toEqual(run.cells);
  });

  test('a failure on every row is no split: messages and verdicts stay', () => {
    const rows = [
      cell('latest-1', 1, '1.32.2', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
      cell('latest-2', 2, '2.4.0', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
    ];
    const run = makeRun(rows);
    expect(judgeSplitSteps(run.cells)).toEqual(run.cells);
  });

  test('a contested row that failed another step too stays failed, with both causes named', () => {
    const v1 = stdio(errored, { message: RETURNED, unexpectedIsError: true });
    (v1.details!.failedSteps as unknown[]).push({ item: 'tools/call add', step: 'tools/call add' });
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    const p = phaseOf(run, 'latest-1');
    expect(p.verdict).toBe('failed');
    expect(p.message).toMatch(
      new RegExp(`^${RETURNED.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; tools/call lose: not judged: the cells disagree`),
    );
    expect(p.step).toBe(ITEM);
    expect(phaseOf(run, 'latest-2')).toMatchObject({ verdict: 'passed', checks: [{ outcome: 'contested' }, { outcome: 'passed' }] });
    expect(auditRun(run)).toEqual([]);
  });

  test("a contested row whose other required check fails stays failed, naming that check's step", () => {
    const v1 = stdio(errored, { message: RETURNED, unexpectedIsError: true });
    v1.checks![1] = checkResult('unknown-method', 'require', { outcome: 'failed', message: 'answered a result', step: 'unknown method' });
    // The phase's message names the other failure, not the session's: the contested text goes first.
    v1.message = 'unknown-method: answered a result';
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    const p = phaseOf(run, 'latest-1');
    expect(p).toMatchObject({ verdict: 'failed', step: 'unknown method' });
    expect(p.message).toBe(
      'tools/call lose: not judged: the cells disagree whether the call failed (isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)) and the step has no `expect` to say which is right (see the answer parity finding); unknown-method: answered a result',
    );
    expect(p.checks!.map((c) => c.outcome)).toEqual(['contested', 'failed']);
    expect(run.cells[0]!.verdict).toBe('failed');
    expect(auditRun(run)).toEqual([]);
  });

  test("a contested row whose other required check was not measured is not measured, naming that check's step", () => {
    const v1 = stdio(errored, { message: RETURNED, unexpectedIsError: true });
    v1.checks![1] = checkResult('unknown-method', 'require', { outcome: 'not-measured', message: 'the driver crashed', step: 'driver' });
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    expect(phaseOf(run, 'latest-1')).toMatchObject({ verdict: 'not-measured', step: 'driver' });
  });

  test('a failed check at level warn decides nothing: the contested row passes and names no step', () => {
    const v1 = stdio(errored, { message: RETURNED, unexpectedIsError: true });
    v1.checks![1] = checkResult('unknown-method', 'warn', { outcome: 'failed', message: 'answered a result', step: 'unknown method' });
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    const p = phaseOf(run, 'latest-1');
    expect(p.verdict).toBe('passed');
    expect(p.step).toBeUndefined();
  });

  test('a phase that recorded no sub-checks (an older results.json) gets the note; its verdict stays', () => {
    const v1 = stdio(errored, { message: RETURNED, unexpectedIsError: true });
    delete v1.checks;
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    const p = phaseOf(run, 'latest-1');
    expect(p.verdict).toBe('failed');
    expect(p.message!.startsWith(`${RETURNED}; tools/call lose: not judged: `)).toBe(true);
  });

  test('no failure anywhere: nothing changes, row by row', () => {
    const run = makeRun([cell('latest-1', 1, '1.32.2', stdio(errored)), cell('latest-2', 2, '2.4.0', stdio(dropped))]);
    const out = judgeSplitSteps(run.cells);
    expect(out).toEqual(run.cells);
    expect(out[0]).toBe(run.cells[0]);
  });

  test('a row that failed another step is matched by item: the step it answered like the others gets no note', () => {
    const v1 = stdio(dropped, { message: 'tools/call add: text does not contain "3"' });
    v1.details!.failedSteps = [{ item: 'tools/call add', step: 'tools/call add' }];
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    expect(phaseOf(run, 'latest-1').message).toBe('tools/call add: text does not contain "3"');
  });

  test('what the other rows answered: the same answer, a whole answer, several paths, an answer recorded as null', () => {
    // The same answer failed on one row only (its own expectation, not the answer, differs).
    const same = stdio(dropped, { message: `${ITEM}: text does not contain "x"` });
    delete same.message;
    const one = judged(makeRun([cell('latest-1', 1, '1.32.2', same), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    expect(phaseOf(one, 'latest-1').message).toBe('the other cells answered: the same answer without failing (latest-2 (2.4.0))');
    // Answers that are not objects differ as a whole.
    const two = judged(
      makeRun([cell('latest-1', 1, '1.32.2', stdio('a', { message: `${ITEM}: failed` })), cell('latest-2', 2, '2.4.0', stdio('b'))]),
    );
    expect(phaseOf(two, 'latest-1').message).toBe(`${ITEM}: failed; the other cells answered: the answer 'b' on latest-2 (2.4.0)`);
    // Two paths differ: each named, joined as two.
    const other = { isError: false, content: [{ type: 'text', text: 'other' }] };
    const three = judged(
      makeRun([cell('latest-1', 1, '1.32.2', stdio(errored, { message: `${ITEM}: failed` })), cell('latest-2', 2, '2.4.0', stdio(other))]),
    );
    expect(phaseOf(three, 'latest-1').message).toBe(
      `${ITEM}: failed; the other cells answered: content[0].text 'other' on latest-2 (2.4.0); isError false on latest-2 (2.4.0)`,
    );
    // A row that recorded null for the contested step: no isError there either.
    const four = judged(
      makeRun([
        cell('latest-1', 1, '1.32.2', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
        cell('latest-2', 2, '2.4.0', stdio(null)),
      ]),
    );
    expect(phaseOf(four, 'latest-1').message).toMatch(/isError true on latest-1 \(1\.32\.2\); absent on latest-2 \(2\.4\.0\)/);
  });

  test('with the isError difference allowed (parity.allow), nothing fails: the run passes with the step contested on both rows', () => {
    const run = judged(
      makeRun([
        cell('latest-1', 1, '1.32.2', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
        cell('latest-2', 2, '2.4.0', stdio(dropped)),
      ]),
      [{ item: 'stdio tools/call lose', path: 'isError', reason: '2.x drops it; fixed upstream' }],
    );
    expect(run.parity!.findings).toEqual([]);
    expect(run.parity!.allowed).toEqual([
      'stdio tools/call lose: isError true on latest-1 (1.32.2); false on latest-2 (2.4.0) (2.x drops it; fixed upstream)',
    ]);
    expect(run.cells.map((c) => [c.verdict, phaseOf(run, c.id).checks![0]!.outcome])).toEqual([
      ['passed', 'contested'],
      ['passed', 'contested'],
    ]);
    expect(run).toMatchObject({ verdict: 'passed', exitCode: 0 });
  });

  test('the http round trip is judged the same way: its round-trip check is not judged, the others stay', () => {
    const http = (value: unknown, failure?: string): Partial<PhaseResult> => {
      const trip = failure
        ? checkResult('round-trip', 'require', { outcome: 'failed', message: `failed: ${failure}`, step: ITEM })
        : checkResult('round-trip', 'require', { outcome: 'passed', message: 'ok' });
      const token = checkResult('no-token-401', 'require', { outcome: 'passed', message: '401' });
      return {
        verdict: failure ? 'failed' : 'passed',
        ...(failure ? { message: `no token → 401; round trip failed: ${failure}`, step: ITEM } : {}),
        checks: [token, trip],
        details: {
          compared: { [ITEM]: value },
          ...(failure ? { failedSteps: [{ item: ITEM, step: ITEM, unexpectedIsError: true }] } : {}),
        },
      };
    };
    const run = judged(
      makeRun([
        { ...cell('latest-1', 1, '1.32.2', {}), phases: { http: http(errored, RETURNED) } },
        { ...cell('latest-2', 2, '2.4.0', {}), phases: { http: http(dropped) } },
      ]),
    );
    const p = run.cells[0]!.phases.find((x) => x.phase === 'http')!;
    expect(p.verdict).toBe('passed');
    expect(p.checks!.map((c) => [c.id, c.outcome, c.short])).toEqual([
      ['no-token-401', 'passed', undefined],
      ['round-trip', 'contested', 'contested'],
    ]);
    expect(p.message).toBe(
      // As the http phase words it (http-refusals.ts checksMessage): `round trip <the check's message>`, never "failed".
      'no token → 401; round trip tools/call lose: not judged: the cells disagree whether the call failed (isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)) and the step has no `expect` to say which is right (see the answer parity finding)',
    );
    expect(p.details!.contestedSteps).toEqual([ITEM]);
    expect(renderMarkdown(run)).toContain('| http › round-trip | harness | require | contested | contested |');
    expect(run.cells[1]!.phases.find((x) => x.phase === 'http')!.message).toMatch(/^tools\/call lose: not judged: /);
    expect(auditRun(run)).toEqual([]);
    expect(judgeSplitSteps(run.cells)).toEqual(run.cells);
  });

  test('a session check turned off is left as it is: only the note is added; a second failed step of its own is found by item', () => {
    const v1 = stdio(errored, { message: RETURNED, unexpectedIsError: true });
    v1.checks![0] = { ...v1.checks![0]!, level: 'off', outcome: 'skipped' };
    v1.verdict = 'passed';
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    const p = phaseOf(run, 'latest-1');
    expect(p.verdict).toBe('passed');
    expect(p.checks![0]).toMatchObject({ level: 'off', outcome: 'skipped' });
    expect(p.message).toMatch(/; tools\/call lose: not judged: /);
    // Recorded as judged, so a second judging (merge, report) does not add the note again.
    expect(p.details!.contestedSteps).toEqual([ITEM]);
    expect(judgeSplitSteps(run.cells)).toEqual(run.cells);
    // A passed phase without a message of its own: the note alone, no leading separator.
    delete v1.message;
    const quiet = judged(makeRun([cell('latest-1', 1, '1.32.2', v1), cell('latest-2', 2, '2.4.0', stdio(dropped))]));
    expect(phaseOf(quiet, 'latest-1').message).toMatch(/^tools\/call lose: not judged: /);
    // The row's failures listed in another order: the item is matched by name, not taken first.
    const other = stdio(dropped, { message: EXPECTED });
    other.details!.failedSteps = [
      { item: 'tools/call add', step: 'tools/call add' },
      { item: ITEM, step: ITEM },
    ];
    const two = judged(makeRun([cell('latest-1', 1, '1.32.2', stdio(errored)), cell('latest-2', 2, '2.4.0', other)]));
    expect(phaseOf(two, 'latest-2').message).toBe(`${EXPECTED}; the other cells answered: isError true on latest-1 (1.32.2)`);
  });

  test('a split where one failing row failed on more than isError is no contest: every failing row keeps its failure', () => {
    const run = judged(
      makeRun([
        cell('latest-1', 1, '1.32.2', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
        { ...cell('latest-1b', 1, '1.31.0', stdio(errored, { message: `${ITEM}: text does not contain "x"` })), pin: '1.31.0' },
        cell('latest-2', 2, '2.4.0', stdio(dropped)),
      ]),
    );
    expect(run.cells.map((c) => c.verdict)).toEqual(['failed', 'failed', 'passed']);
    expect(phaseOf(run, 'latest-1').message).toBe(`${RETURNED}; the other cells answered: isError false on latest-2 (2.4.0)`);
  });

  test('two contested steps of one row: both named, each once, joined as two causes', () => {
    const two = (value: unknown, failed: boolean): Partial<PhaseResult> => {
      const p = stdio(value, failed ? { message: RETURNED, unexpectedIsError: true } : undefined);
      p.details!.compared = { [ITEM]: value, [`${ITEM} #2`]: value };
      if (failed)
        p.details!.failedSteps = [
          { item: ITEM, step: ITEM, unexpectedIsError: true },
          { item: `${ITEM} #2`, step: ITEM, unexpectedIsError: true },
        ];
      return p;
    };
    const run = judged(makeRun([cell('latest-1', 1, '1.32.2', two(errored, true)), cell('latest-2', 2, '2.4.0', two(dropped, false))]));
    const p = phaseOf(run, 'latest-1');
    const why =
      'tools/call lose: not judged: the cells disagree whether the call failed (isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)) and the step has no `expect` to say which is right (see the answer parity finding)';
    expect(p).toMatchObject({ verdict: 'passed', message: `${why}; ${why}` });
    expect(p.details!.contestedSteps).toEqual([ITEM, `${ITEM} #2`]);
  });

  test('merge judges the rows of separate pieces together', () => {
    const whole = makeRun([
      cell('latest-1', 1, '1.32.2', stdio(errored, { message: RETURNED, unexpectedIsError: true })),
      cell('latest-2', 2, '2.4.0', stdio(dropped)),
    ]);
    const pieces = whole.cells.map((c) => {
      const piece = pieceOf(whole, c.id, whole.startedAt, whole.finishedAt);
      const parity = compareRecorded(piece.cells, []);
      return { ...piece, parity };
    });
    expect(pieces.map((p) => p.cells[0]!.verdict)).toEqual(['failed', 'passed']);
    const merged = mergeResults(pieces.map((run, i) => ({ file: `piece-${i}.json`, run })));
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.run.cells.map((c) => c.verdict)).toEqual(['passed', 'passed']);
    expect(merged.run.parity!.findings).toEqual(['stdio tools/call lose: isError true on latest-1 (1.32.2); false on latest-2 (2.4.0)']);
    expect(merged.run).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(auditRun(merged.run)).toEqual([]);
  });
});
