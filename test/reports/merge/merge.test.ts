import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../../src/results/types.js';
import { mergeResults, renderMarkdown, renderTable } from '../../../src/reports/index.js';
import { FOUR_CELLS, makeRun, pieceOf, variantSpecs } from '../helpers/make-run.js';

function pieces(run: RunResult) {
  return run.cells.map((cell, i) => ({
    file: `cell-${cell.id}/results.json`,
    run: pieceOf(run, cell.id, `2026-08-25T10:0${i}:00.000Z`, `2026-08-25T10:0${i}:30.000Z`),
  }));
}

const whole = () => {
  const [floor, v1, rep, latest] = FOUR_CELLS;
  return makeRun(
    [floor!, { ...v1!, phases: { http: { verdict: 'failed', message: 'no 401' } } }, { ...rep!, allowedToFail: true }, latest!],
    { warnings: ['registry slow'] },
  );
};

function merged(input: ReturnType<typeof pieces>): RunResult {
  const result = mergeResults(input);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.run;
}

describe('mergeResults', () => {
  test('renders the same table as one run, in any order', () => {
    const run = whole();
    const parts = pieces(run);
    const forward = merged(parts);
    const backward = merged([...parts].reverse());
    const shuffled = merged([parts[2]!, parts[0]!, parts[3]!, parts[1]!]);
    expect(renderTable(forward)).toBe(renderTable(run));
    expect(renderMarkdown(backward)).toBe(renderMarkdown(forward));
    expect(renderMarkdown(shuffled)).toBe(renderMarkdown(forward));
    expect(forward.cells.map((c) => c.id)).toEqual(['v1-floor', 'v1-latest', 'v2-rep', 'v2-latest']);
  });

  test('recomputes verdict and exit code, times and warnings', () => {
    const run = merged(pieces(whole()));
    expect(run).toMatchObject({ verdict: 'failed', exitCode: 1, interrupted: false });
    expect(run.startedAt).toBe('2026-08-25T10:00:00.000Z');
    expect(run.finishedAt).toBe('2026-08-25T10:03:30.000Z');
    expect(run.durationMs).toBe(210_000);
    expect(run.warnings).toEqual(['registry slow']);
  });

  test('an interrupted piece makes the merged run interrupted', () => {
    const parts = pieces(makeRun());
    parts[1]!.run = { ...parts[1]!.run, interrupted: true, verdict: 'interrupted', exitCode: 130 };
    expect(merged(parts)).toMatchObject({ verdict: 'interrupted', exitCode: 130 });
  });

  test('a missing cell names the cell, the pin and the --cell run', () => {
    const parts = pieces(makeRun()).filter((p) => !p.file.includes('v2-rep'));
    const result = mergeResults(parts);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/cell v2-rep \(pin 2\.0\.0\) has no evidence.*mcp-matrix run --cell v2-rep/);
    }
  });

  test('a piece of another plan or another tarball is refused', () => {
    const parts = pieces(makeRun());
    const other = parts[3]!;
    other.run = {
      ...other.run,
      plan: { ...other.run.plan, configHash: 'deadbeef', tarball: { ...other.run.plan.tarball, sha512: 'sha512-other' } },
    };
    const result = mergeResults(parts);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.join('\n')).toMatch(
        /cell-v2-latest\/results\.json: belongs to another plan \(configHash deadbeef, but cell-v1-floor\/results\.json has 9f86d0/,
      );
      expect(result.errors.join('\n')).toMatch(/cell-v2-latest\/results\.json: tested another tarball \(sha512 sha512-other/);
    }
  });

  test('a duplicated cell names both files', () => {
    const parts = pieces(makeRun());
    const again = { file: 'retry/results.json', run: parts[0]!.run };
    const result = mergeResults([...parts, again]);
    expect(result).toEqual({
      ok: false,
      exitCode: 1,
      errors: ['cell v1-floor appears twice: in cell-v1-floor/results.json and in retry/results.json; pass one result per cell.'],
    });
  });

  test('a cell outside the plan is refused', () => {
    const parts = pieces(makeRun());
    const stray = makeRun([{ id: 'v3', pin: '3.0.0', version: '3.0.0', major: 3 }]);
    parts.push({ file: 'stray.json', run: { ...parts[0]!.run, cells: stray.cells } });
    const result = mergeResults(parts);
    expect(result).toMatchObject({
      ok: false,
      errors: [expect.stringMatching(/^stray\.json: cell v3 \(pin 3\.0\.0\) is not in the plan/)],
    });
  });

  test('pieces of --cell runs (plan.selected) merge into the whole plan', () => {
    const parts = pieces(makeRun()).map((p) => ({ ...p, run: { ...p.run, plan: { ...p.run.plan, selected: [p.run.cells[0]!.id] } } }));
    expect(renderTable(parts[1]!.run).split('\n')).toHaveLength(3);
    const run = merged(parts);
    expect(run.plan.selected).toBeUndefined();
    expect(renderTable(run)).toBe(renderTable(makeRun()));
  });

  test('an interrupted piece whose verdict was edited to passed is refused', () => {
    const parts = pieces(makeRun());
    parts[1]!.run = { ...parts[1]!.run, interrupted: true };
    expect(mergeResults(parts)).toEqual({
      ok: false,
      exitCode: 2,
      errors: [
        'cell-v1-latest/results.json: run: stored verdict "passed" (exit 0), but its cells say "interrupted" (exit 130); refusing to merge it (re-run the cell to regenerate it).',
      ],
    });
  });

  test('a piece whose http phase failed but whose cell says passed is refused, naming the file and the cell', () => {
    const parts = pieces(makeRun());
    const piece = parts[2]!.run;
    const cell = piece.cells[0]!;
    const phases = cell.phases.map((p) => (p.phase === 'http' ? { ...p, verdict: 'failed' as const, message: 'no 401' } : p));
    parts[2]!.run = { ...piece, cells: [{ ...cell, phases }] };
    const result = mergeResults(parts);
    expect(result).toEqual({
      ok: false,
      exitCode: 2,
      errors: [
        'cell-v2-rep/results.json: cell v2-rep: stored verdict "passed", but its phases say "failed" (http failed); refusing to merge it (re-run the cell to regenerate it).',
        'cell-v2-rep/results.json: cell v2-rep: stored outcome "passed", but its phases and the plan\'s allowedToFail (false) say "failed"; refusing to merge it (re-run the cell to regenerate it).',
        'cell-v2-rep/results.json: run: stored verdict "passed" (exit 0), but its cells say "failed" (exit 1); refusing to merge it (re-run the cell to regenerate it).',
      ],
    });
  });

  test('a piece whose allowedToFail was flipped against the plan is refused', () => {
    const run = makeRun([FOUR_CELLS[0]!, { ...FOUR_CELLS[1]!, phases: { http: { verdict: 'failed', message: 'no 401' } } }]);
    const parts = pieces(run);
    const piece = parts[1]!.run;
    // Flipped consistently inside the cell (outcome and the run verdict follow), but not in the plan.
    const cell = { ...piece.cells[0]!, allowedToFail: true, outcome: 'allowed-failure' as const };
    parts[1]!.run = { ...piece, cells: [cell], verdict: 'passed', exitCode: 0 };
    const result = mergeResults(parts);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.exitCode).toBe(2);
      expect(result.errors).toContain(
        'cell-v1-latest/results.json: cell v1-latest: allowedToFail is true, but the plan says false; refusing to merge it (re-run the cell to regenerate it).',
      );
    }
  });

  test("a piece whose plan's allowance was flipped with its cell is refused against the other pieces", () => {
    const run = makeRun([FOUR_CELLS[0]!, { ...FOUR_CELLS[1]!, phases: { http: { verdict: 'failed', message: 'no 401' } } }]);
    const parts = pieces(run);
    const piece = parts[1]!.run;
    const cell = { ...piece.cells[0]!, allowedToFail: true, outcome: 'allowed-failure' as const };
    const cells = piece.plan.cells.map((c) => (c.id === cell.id ? { ...c, allowedToFail: true } : c));
    parts[1]!.run = { ...piece, plan: { ...piece.plan, cells }, cells: [cell], verdict: 'passed', exitCode: 0 };
    const result = mergeResults(parts);
    expect(result).toEqual({
      ok: false,
      exitCode: 2,
      errors: [
        "cell-v1-latest/results.json: its plan's cells differ from cell-v1-floor/results.json's although both carry configHash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08; one was edited.",
      ],
    });
  });

  test('lockstep errors that failed a piece fail the merged run', () => {
    const parts = pieces(makeRun()).map((p) => ({
      ...p,
      run: { ...p.run, lockstepErrors: ['no floor cell'], verdict: 'failed' as const, exitCode: 1 as const },
    }));
    expect(merged(parts)).toMatchObject({ verdict: 'failed', exitCode: 1, lockstepErrors: ['no floor cell'] });
  });

  test('pieces are variants: one per fan-out job, merged into every variant of every cell', () => {
    const run = makeRun(
      variantSpecs({ 'v2-latest~client-1.0.0~node-22': { phases: { stdio: { verdict: 'failed', message: 'resource_link' } } } }),
    );
    const parts = pieces(run).map((p) => ({ ...p, run: { ...p.run, plan: { ...p.run.plan, selected: [p.run.cells[0]!.id] } } }));
    const whole = merged([...parts].reverse());
    expect(whole.cells.map((c) => c.id)).toEqual(run.cells.map((c) => c.id));
    expect(whole).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(renderMarkdown(whole)).toBe(
      renderMarkdown({ ...run, startedAt: whole.startedAt, finishedAt: whole.finishedAt, durationMs: whole.durationMs }),
    );
  });

  test('a missing variant is named with its cell and its own --cell run; a variant twice names both files', () => {
    const run = makeRun(variantSpecs());
    const parts = pieces(run);
    const result = mergeResults(parts.filter((p) => !p.file.includes('v1-latest~client-latest-2')));
    expect(result).toEqual({
      ok: false,
      exitCode: 1,
      errors: [
        'variant v1-latest~client-latest-2~node-22 of cell v1-latest (pin latest@1) has no evidence: no piece contains it. The `mcp-matrix run --cell v1-latest~client-latest-2~node-22` run produced no results.json (or it was not passed to merge); re-run that variant.',
      ],
    });
    const twice = mergeResults([...parts, { file: 'retry/results.json', run: parts[3]!.run }]);
    expect(twice).toMatchObject({
      ok: false,
      errors: [
        'variant v2-latest~client-latest-2~node-22 of cell v2-latest appears twice: in cell-v2-latest~client-latest-2~node-22/results.json and in retry/results.json; pass one result per variant.',
      ],
    });
  });

  test('nothing to merge', () => {
    expect(mergeResults([])).toMatchObject({ ok: false });
  });
});
