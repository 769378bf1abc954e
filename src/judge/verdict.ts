// The verdict rules in one place: sub-checks → phase (decidePhase, from contract/checks.ts) → cell → run →
// exit code. `run`, `merge` and `report` all decide with these, and `auditRun` refuses a file whose stored
// verdicts disagree with its phases: a file's stored verdict is never trusted.

import {
  PHASES,
  type BaselineEntry,
  type CellOutcome,
  type ClientRef,
  type NodeRef,
  type VariantRef,
  type PhaseName,
  type CellResult,
  type PhaseResult,
  type RunResult,
  type Verdict,
} from '../results/types.js';
import { compareCells, surfaceFailures } from '../results/surface.js';
import { compareRecorded, parityFailures } from '../results/parity.js';
import { decidePhase } from '../contract/checks.js';

export { decidePhase };
import { plannedVariants, selectedVariants } from '../results/variants.js';

export interface RunDecision {
  verdict: RunResult['verdict'];
  exitCode: RunResult['exitCode'];
}

/** What besides the cells decides a run. */
export interface RunFacts {
  /** How many cells the run was asked for; fewer results means the run did not finish. */
  expected?: number;
  /** Lockstep errors that fail the run (`lockstep: 'error'`). */
  lockstepErrors?: readonly string[];
  /** Known failures: a listed failure does not fail the run; a listed one that no longer fails does (stale). */
  baseline?: readonly BaselineEntry[];
  /** Surface parity findings and snapshot drift (see surface.ts `surfaceFailures`): each fails the run. */
  surfaceFailures?: readonly string[];
  /** Parity findings of recorded values, their snapshot drift and stale allowances (parity.ts `parityFailures`): each fails the run. */
  parityFailures?: readonly string[];
}

type JudgedCell = Pick<CellResult, 'id' | 'phases' | 'allowedToFail'> & Partial<Pick<CellResult, 'cell'>>;

/** A row by its id (a variant id, or a cell id without axes), with the id of its cell when known. */
export type RowKey = string | { id: string; cell?: string };

/** Does `entry` list this failed phase of this row? An entry naming a cell covers every variant of it. */
export function baselineMatches(entry: BaselineEntry, row: RowKey, phase: Pick<PhaseResult, 'phase' | 'verdict' | 'message'>): boolean {
  const { id, cell } = typeof row === 'string' ? { id: row, cell: undefined } : row;
  if ((entry.cell !== id && entry.cell !== cell) || entry.phase !== phase.phase || phase.verdict !== 'failed') return false;
  return entry.message === undefined || new RegExp(entry.message).test(phase.message ?? '');
}

export interface BaselineJudgement {
  /** Failed phases the baseline lists: shown as expected, not failing the run. */
  expected: { cell: string; phase: PhaseName; entry: BaselineEntry }[];
  /** Entries for a cell that ran whose phase did not fail as listed: the run fails until the line is deleted. */
  stale: BaselineEntry[];
}

/** The baseline against the rows that ran (entries for cells or variants that did not run are neither used nor stale). */
export function judgeBaseline(cells: readonly JudgedCell[], entries: readonly BaselineEntry[]): BaselineJudgement {
  const expected: BaselineJudgement['expected'] = [];
  const used = new Set<BaselineEntry>();
  for (const cell of cells)
    for (const phase of cell.phases) {
      const entry = entries.find((e) => baselineMatches(e, cell, phase));
      if (entry) {
        expected.push({ cell: cell.id, phase: phase.phase, entry });
        used.add(entry);
      }
    }
  const ran = new Set(cells.filter((c) => c.phases.length > 0).flatMap((c) => [c.id, ...(c.cell ? [c.cell] : [])]));
  return { expected, stale: entries.filter((e) => !used.has(e) && ran.has(e.cell)) };
}

/** The cell as the run judges it: a failure the baseline lists counts as passed. */
function unlisted(cell: JudgedCell, entries: readonly BaselineEntry[]): Pick<PhaseResult, 'verdict'>[] {
  return cell.phases.map((p) => (entries.some((e) => baselineMatches(e, cell, p)) ? { verdict: 'passed' } : p));
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

/** Verdict and outcome of a cell, from its phases and the plan's allowance only. */
export function decideCellResult(
  phases: readonly Pick<PhaseResult, 'verdict'>[],
  allowedToFail: boolean,
): { verdict: Verdict; outcome: CellOutcome } {
  const verdict = decideCell(phases);
  return { verdict, outcome: cellOutcome(verdict, allowedToFail) };
}

/**
 * The run's verdict and exit code: 130 when interrupted (or fewer cells finished than were asked
 * for); 1 when any cell failed (not allowed), an allowance is stale, lockstep errors fail the run, or the surface differs (cells or snapshot);
 * 3 when a cell was not measured and none failed (or there were no cells); 0 when every required
 * cell passed (allowed failures included).
 */
export function decideRun(
  cells: readonly Pick<CellResult, 'phases' | 'allowedToFail'>[] | readonly Pick<CellResult, 'verdict' | 'allowedToFail'>[],
  interrupted: boolean,
  facts: RunFacts = {},
): RunDecision {
  if (interrupted || (facts.expected !== undefined && cells.length < facts.expected)) return { verdict: 'interrupted', exitCode: 130 };
  const baseline = facts.baseline ?? [];
  const judged = cells.filter((c): c is JudgedCell => 'phases' in c && 'id' in c);
  const outcomes = cells.map((c) =>
    cellOutcome('phases' in c ? decideCell('id' in c ? unlisted(c as JudgedCell, baseline) : c.phases) : c.verdict, c.allowedToFail),
  );
  const stale = baseline.length > 0 ? judgeBaseline(judged, baseline).stale : [];
  if (
    outcomes.some((o) => o === 'failed' || o === 'stale-allowance') ||
    (facts.lockstepErrors?.length ?? 0) > 0 ||
    stale.length > 0 ||
    (facts.surfaceFailures?.length ?? 0) > 0 ||
    (facts.parityFailures?.length ?? 0) > 0
  )
    return { verdict: 'failed', exitCode: 1 };
  if (outcomes.length === 0 || outcomes.includes('not-measured')) return { verdict: 'not-measured', exitCode: 3 };
  return { verdict: 'passed', exitCode: 0 };
}

/**
 * Why the run did not pass, one reason per kind, in the order a reader acts on them: lockstep errors,
 * stale allowances, cells without a result, failed phases, then (when nothing failed) phases not
 * measured. Empty when the run passed. `cells` are the cells to show: a planned cell without a
 * result appears with no phases.
 */
export function runReasons(
  cells: readonly (Pick<CellResult, 'id' | 'phases' | 'allowedToFail'> & Partial<Pick<CellResult, 'cell'>>)[],
  interrupted: boolean,
  facts: RunFacts = {},
): string[] {
  const measured = cells.filter((c) => c.phases.length > 0);
  const decision = decideRun(measured, interrupted, { ...facts, expected: Math.min(facts.expected ?? 0, measured.length) });
  const missingRows = cells.filter((c) => c.phases.length === 0);
  const missing = missingRows.map((c) => c.id);
  // A row that is one variant of a cell with axes is a variant; without axes a row is its cell.
  const unit = missingRows.some((c) => 'cell' in c && c.cell !== c.id) ? 'variant' : 'cell';
  if (decision.verdict === 'passed' && missing.length === 0) return [];
  const reasons: string[] = [];
  if (interrupted) reasons.push('interrupted');
  for (const e of facts.lockstepErrors ?? []) reasons.push(e.startsWith('lockstep') ? e : `lockstep: ${e}`);
  const surface = facts.surfaceFailures?.length ?? 0;
  if (surface)
    reasons.push(`surface: ${surface} difference${surface > 1 ? 's' : ''} between cells or from mcp-surface.json (listed above)`);
  const parity = facts.parityFailures?.length ?? 0;
  if (parity)
    reasons.push(
      `parity: ${parity} difference${parity > 1 ? 's' : ''} in recorded answers or behaviours between cells, from mcp-surface.json, or stale allowances (listed above)`,
    );
  const stale = measured.filter((c) => cellOutcome(decideCell(c.phases), c.allowedToFail) === 'stale-allowance').map((c) => c.id);
  if (stale.length) reasons.push(`stale allowance: ${stale.join(', ')} passed but ${stale.length > 1 ? 'are' : 'is'} marked allowedToFail`);
  if (missing.length) reasons.push(`missing ${unit}${missing.length > 1 ? 's' : ''}: ${missing.join(', ')} (no result)`);
  const baseline = facts.baseline ?? [];
  for (const e of judgeBaseline(measured, baseline).stale)
    reasons.push(`stale baseline entry (line ${e.line}): ${e.cell} · ${e.phase} no longer fails as listed; delete line ${e.line}`);
  const failed = measured
    .filter((c) => !c.allowedToFail)
    .flatMap((c) =>
      c.phases.filter((p) => p.verdict === 'failed' && !baseline.some((e) => baselineMatches(e, c, p))).map((p) => `${c.id} · ${p.phase}`),
    );
  if (failed.length) reasons.push(`phases failed: ${failed.join(', ')}`);
  if (reasons.length === 0) {
    const unmeasured = measured.flatMap((c) => c.phases.filter((p) => p.verdict === 'not-measured').map((p) => `${c.id} · ${p.phase}`));
    if (unmeasured.length) reasons.push(`not measured: ${unmeasured.join(', ')}`);
  }
  return reasons;
}

/** The run as an interrupted one: a signal arrived after its cells (while its reports were written). */
export function asInterrupted(run: RunResult): RunResult {
  return run.interrupted ? run : { ...run, interrupted: true, ...decideRun(run.cells, true) };
}

/** The facts a stored run carries: the variants it was asked for, its lockstep errors, baseline and surface differences. */
export function storedFacts(run: Pick<RunResult, 'plan' | 'lockstepErrors' | 'baseline' | 'surface' | 'parity'>): RunFacts {
  const surface = surfaceFailures(run.surface);
  const parity = parityFailures(run.parity);
  return {
    expected: selectedVariants(run.plan).length,
    ...(run.lockstepErrors ? { lockstepErrors: run.lockstepErrors } : {}),
    ...(run.baseline ? { baseline: run.baseline.entries } : {}),
    ...(surface.length > 0 ? { surfaceFailures: surface } : {}),
    ...(parity.length > 0 ? { parityFailures: parity } : {}),
  };
}

/**
 * Every place where a stored run disagrees with what its phases and its plan imply, each naming the
 * cell (empty when the file is consistent). A cell's phases must be the five phases in order, its
 * allowance must be the plan's, its verdict and outcome must follow from them, and the run's verdict
 * and exit code must follow from the cells.
 */
export function auditRun(run: RunResult): string[] {
  const problems: string[] = [];
  const planned = new Map(plannedVariants(run.plan).map((row) => [row.variant.id, row]));
  for (const cell of run.cells) {
    const where = `cell ${cell.id}`;
    const names = cell.phases.map((p) => p.phase);
    if (names.join() !== PHASES.join())
      problems.push(`${where}: records phases [${names.join(', ')}], but every cell records [${PHASES.join(', ')}] once each, in order`);
    for (const p of cell.phases) {
      const folded = foldedVerdict(p);
      if (folded !== p.verdict)
        problems.push(`${where}: ${p.phase} is stored "${p.verdict}", but its sub-checks fold to "${folded}"${checkCulprits(p)}`);
    }
    const row = planned.get(cell.id);
    if (!row) {
      problems.push(`${where} (pin ${cell.pin}) is not in the plan (planned: ${[...planned.keys()].join(', ')})`);
      continue;
    }
    const ref = row.cell;
    problems.push(...variantProblems(cell, row.cell.id, row.variant));
    if (cell.allowedToFail !== ref.allowedToFail)
      problems.push(`${where}: allowedToFail is ${cell.allowedToFail}, but the plan says ${ref.allowedToFail}`);
    const decided = decideCellResult(cell.phases, ref.allowedToFail);
    if (cell.verdict !== decided.verdict)
      problems.push(`${where}: stored verdict "${cell.verdict}", but its phases say "${decided.verdict}"${culprits(cell.phases)}`);
    if (cell.outcome !== decided.outcome)
      problems.push(
        `${where}: stored outcome "${cell.outcome}", but its phases and the plan's allowedToFail (${ref.allowedToFail}) say "${decided.outcome}"`,
      );
  }
  if (run.surface) {
    const parity = compareCells(run.cells, run.surface.allow);
    if (JSON.stringify(parity.findings) !== JSON.stringify(run.surface.findings))
      problems.push(
        `run: stored surface findings [${run.surface.findings.join('; ')}], but its cells' surfaces say [${parity.findings.join('; ')}]`,
      );
  }
  if (run.parity) {
    const recomputed = compareRecorded(run.cells, run.parity.allow);
    const stored = [...run.parity.findings, ...run.parity.stale];
    const said = [...recomputed.findings, ...recomputed.stale];
    if (JSON.stringify(said) !== JSON.stringify(stored))
      problems.push(`run: stored parity findings [${stored.join('; ')}], but its cells' recorded values say [${said.join('; ')}]`);
  }
  const decision = decideRun(run.cells, run.interrupted, storedFacts(run));
  if (run.verdict !== decision.verdict || run.exitCode !== decision.exitCode)
    problems.push(
      `run: stored verdict "${run.verdict}" (exit ${run.exitCode}), but its cells say "${decision.verdict}" (exit ${decision.exitCode})`,
    );
  return problems;
}

/** A row must be the variant the plan names: the same cell, client and Node. */
function variantProblems(cell: CellResult, planCell: string, variant: VariantRef): string[] {
  const where = `cell ${cell.id}`;
  const out: string[] = [];
  if (cell.cell !== planCell) out.push(`${where}: recorded in cell ${cell.cell}, but the plan puts this variant in cell ${planCell}`);
  const client = (c?: ClientRef): string => (c ? `${c.package}@${c.version} (pin ${c.pin})` : "the cell's own");
  if (client(cell.client) !== client(variant.client))
    out.push(`${where}: ran client ${client(cell.client)}, but the plan says ${client(variant.client)}`);
  const node = (n?: NodeRef): string => (n ? `${n.version} (spec ${n.spec})` : "the host's");
  if (node(cell.node) !== node(variant.node)) out.push(`${where}: ran Node ${node(cell.node)}, but the plan says ${node(variant.node)}`);
  return out;
}

/**
 * The verdict a phase's sub-checks imply. The environment's checks (undeclared imports) sit beside rules that are
 * not checks (the install, the SDK copies, the range), which may only make it worse: its verdict is the worse of the two.
 */
function foldedVerdict(p: PhaseResult): Verdict {
  if (!p.checks) return p.verdict;
  const folded = decidePhase(p.checks);
  if (p.phase !== 'environment') return folded;
  return decideCell([{ verdict: p.verdict }, { verdict: folded }]) as Verdict;
}

function checkCulprits(phase: PhaseResult): string {
  const decisive = (phase.checks ?? []).filter((c) => c.level === 'require' && (c.outcome === 'failed' || c.outcome === 'not-measured'));
  return decisive.length ? ` (${decisive.map((c) => `${c.id} ${c.outcome}`).join(', ')})` : '';
}

function culprits(phases: readonly PhaseResult[]): string {
  const notPassed = phases.filter((p) => p.verdict === 'failed' || p.verdict === 'not-measured');
  return notPassed.length ? ` (${notPassed.map((p) => `${p.phase} ${p.verdict}`).join(', ')})` : '';
}
