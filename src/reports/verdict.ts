// The verdict rules, in one place: the orchestrator (after a run) and `merge` (after fan-in)
// both decide with these functions, so a merged run exits exactly as the single run would.

import type { CellOutcome, CellResult, PhaseResult, RunResult, Verdict } from '../results/types.js';

export interface RunDecision {
  verdict: RunResult['verdict'];
  exitCode: RunResult['exitCode'];
}

/**
 * A cell's verdict from its phases: `failed` when any phase failed; `not-measured` when any could
 * not be measured (and none failed); `passed` when every enabled phase passed; `skipped` only when
 * every phase was disabled. An empty list is `not-measured` (nothing ran).
 */
export function decideCell(phases: readonly Pick<PhaseResult, 'verdict'>[]): Verdict {
  if (phases.some((p) => p.verdict === 'failed')) return 'failed';
  if (phases.length === 0 || phases.some((p) => p.verdict === 'not-measured')) return 'not-measured';
  if (phases.every((p) => p.verdict === 'skipped')) return 'skipped';
  return 'passed';
}

/**
 * How a cell is shown and counted. A failure of an `allowedToFail` cell is an allowed failure; a pass
 * of one is a stale allowance (the run fails until the allowance is removed). A cell whose every
 * phase was disabled proves nothing, so it counts as not measured, never as passed.
 */
export function cellOutcome(verdict: Verdict, allowedToFail: boolean): CellOutcome {
  switch (verdict) {
    case 'failed':
      return allowedToFail ? 'allowed-failure' : 'failed';
    case 'passed':
      return allowedToFail ? 'stale-allowance' : 'passed';
    case 'not-measured':
    case 'skipped':
      return 'not-measured';
  }
}

/**
 * The run's verdict and exit code: 130 when interrupted; 1 when any cell failed (not allowed) or an
 * allowance is stale; 3 when a cell was not measured and none failed (or there were no cells);
 * 0 when every required cell passed (allowed failures included).
 */
export function decideRun(cells: readonly Pick<CellResult, 'verdict' | 'allowedToFail'>[], interrupted: boolean): RunDecision {
  if (interrupted) return { verdict: 'interrupted', exitCode: 130 };
  const outcomes = cells.map((c) => cellOutcome(c.verdict, c.allowedToFail));
  if (outcomes.some((o) => o === 'failed' || o === 'stale-allowance')) return { verdict: 'failed', exitCode: 1 };
  if (outcomes.length === 0 || outcomes.includes('not-measured')) return { verdict: 'not-measured', exitCode: 3 };
  return { verdict: 'passed', exitCode: 0 };
}
