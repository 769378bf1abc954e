import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { mergeResults, renderMarkdown, renderTable } from '../../src/reports/index.js';
import { FOUR_CELLS, makeRun, pieceOf } from './helpers/make-run.js';

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
    parts[1]!.run = { ...parts[1]!.run, interrupted: true };
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

  test('nothing to merge', () => {
    expect(mergeResults([])).toMatchObject({ ok: false });
  });
});
