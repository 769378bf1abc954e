// Re-runs of a fan-out: per variant the newest attempt's piece, never one older than the plan.
import { describe, expect, it } from 'vitest';
import { attemptOf, pickAttempts, type AttemptPiece } from '../../../src/reports/merge/attempts.js';
import { makeRun, pieceOf } from '../helpers/make-run.js';

const run = makeRun();
const piece = (id: string, attempt: number): AttemptPiece => ({
  file: `cell-results/attempt-${attempt}/${id}/results.json`,
  attempt,
  run: pieceOf(run, id, run.startedAt, run.finishedAt),
});

describe('attempts', () => {
  it('reads the innermost attempt-<n> of a path; 1 without one', () => {
    expect(attemptOf('cell-results/attempt-3/v1/results.json')).toBe(3);
    expect(attemptOf('a/attempt-2/b/attempt-12/results.json')).toBe(12);
    expect(attemptOf('cell-results/v1/results.json')).toBe(1);
    expect(attemptOf('cell-results/attempt-0/v1/results.json')).toBe(1);
  });

  it("re-run failed jobs: a re-run variant's newer piece replaces its older one; the others stay", () => {
    const { kept, notes } = pickAttempts([piece('v1-floor', 1), piece('v1-latest', 1), piece('v1-floor', 2)], 1);
    expect(kept.map((p) => p.file)).toEqual([
      'cell-results/attempt-1/v1-latest/results.json',
      'cell-results/attempt-2/v1-floor/results.json',
    ]);
    expect(notes).toEqual([
      'cell-results/attempt-1/v1-floor/results.json: replaced by cell-results/attempt-2/v1-floor/results.json (attempt 2 re-ran it)',
    ]);
  });

  it('re-run all jobs: pieces older than the plan are dropped, so a cell that wrote nothing has no evidence', () => {
    const { kept, notes } = pickAttempts([piece('v1-floor', 1), piece('v1-latest', 1), piece('v1-latest', 2)], 2);
    expect(kept.map((p) => p.file)).toEqual(['cell-results/attempt-2/v1-latest/results.json']);
    expect(notes[0]).toBe(
      'cell-results/attempt-1/v1-floor/results.json: from attempt 1, before the plan of attempt 2 (re-run all jobs plans again): ignored',
    );
  });

  it('two pieces of one variant in one attempt are both kept (merge then names the duplicate)', () => {
    expect(pickAttempts([piece('v1-floor', 1), { ...piece('v1-floor', 1), file: 'x/results.json' }]).kept).toHaveLength(2);
  });
});
