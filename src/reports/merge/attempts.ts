// Re-runs of a fan-out: per variant the newest attempt's piece (`attempt-<n>/`) replaces older ones, and a piece
// older than the plan is dropped: "re-run all jobs" plans again, and a cell that died must not pass on an old piece.
import type { RunResult } from '../../results/types.js';

export interface AttemptPiece {
  file: string;
  /** From the `attempt-<n>` directory in the piece's path; 1 when there is none (a local fan-out). */
  attempt: number;
  run: RunResult;
}

/** `cell-results/attempt-2/v1/results.json` → 2; the innermost `attempt-<n>` counts; 1 without one. */
export function attemptOf(file: string): number {
  const found = [...file.split(/[\\/]/)].reverse().find((part) => /^attempt-[1-9]\d*$/.test(part));
  return found ? Number(found.slice('attempt-'.length)) : 1;
}

export function pickAttempts(pieces: readonly AttemptPiece[], planAttempt = 1): { kept: AttemptPiece[]; notes: string[] } {
  const notes: string[] = [];
  const current = pieces.filter((p) => {
    if (p.attempt >= planAttempt) return true;
    notes.push(`${p.file}: from attempt ${p.attempt}, before the plan of attempt ${planAttempt} (re-run all jobs plans again): ignored`);
    return false;
  });
  // A piece is named by the variants it holds (one in a fan-out).
  const key = (p: AttemptPiece) => p.run.cells.map((c) => c.id).join(',');
  const newest = new Map<string, AttemptPiece>();
  for (const p of current) {
    const seen = newest.get(key(p));
    if (!seen || p.attempt > seen.attempt) newest.set(key(p), p);
  }
  const kept = current.filter((p) => {
    const winner = newest.get(key(p))!;
    if (winner === p || winner.attempt === p.attempt) return true;
    notes.push(`${p.file}: replaced by ${winner.file} (attempt ${winner.attempt} re-ran it)`);
    return false;
  });
  return { kept, notes };
}
