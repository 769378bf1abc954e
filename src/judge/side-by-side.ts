// A cell's phases run side by side (each group on its own copy of the cell's tree) report what running them in turn
// would: a phase that did not pass beside the others is run again alone on the cell's tree, and only that run counts.
import { withDetails } from '../contract/fields.js';
import { failedBesideProof } from './beside-proof.js';
import type { CellSummary, LeakedHandle, PhaseName, PhaseResult } from '../results/types.js';

/** The phases that start servers, in the groups that may run side by side (bind is short: it rides with conformance). */
const SIDE_GROUPS: readonly (readonly SidePhase[])[] = [['stdio'], ['http'], ['bind', 'conformance']];
export type SidePhase = 'stdio' | 'http' | 'bind' | 'conformance';
export const SIDE_ORDER: readonly SidePhase[] = ['stdio', 'http', 'bind', 'conformance'];

/** What one driver run reported: the phases it was given to measure, its results (every phase) and its summary. */
export interface DriverRun {
  phases: readonly SidePhase[];
  results: readonly PhaseResult[];
  summary?: CellSummary;
}

/** The groups of `measured` (the phases a driver would run, not stood in for) that run side by side; one group: no point. */
export function sideGroups(measured: readonly SidePhase[]): SidePhase[][] {
  const groups = SIDE_GROUPS.map((g) => g.filter((p) => measured.includes(p))).filter((g) => g.length > 0);
  // bind alone (~0.2 s) does not pay for a driver and a copy of its own: without conformance it follows http.
  const http = groups.find((g) => g.includes('http'));
  const alone = groups.findIndex((g) => g.length === 1 && g[0] === 'bind');
  if (http && alone >= 0) {
    http.push('bind');
    groups.splice(alone, 1);
  }
  return groups.length > 1 ? groups : [];
}

/**
 * Passed or skipped with no sub-check failed, not measured or contested at any level, but for a `warn` check that
 * failed on the server's own answer (beside-proof.ts): nothing that running beside another phase could have caused,
 * so it stands; anything else is confirmed alone.
 */
export function cleanBeside(result: PhaseResult | undefined): boolean {
  if (!result || (result.verdict !== 'passed' && result.verdict !== 'skipped')) return false;
  const phase = result.phase;
  return !(result.checks ?? []).some(
    (c) => (c.outcome === 'failed' && !failedBesideProof(phase, c)) || c.outcome === 'not-measured' || c.outcome === 'contested',
  );
}

const resultOf = (run: DriverRun, phase: PhaseName): PhaseResult | undefined => run.results.find((r) => r.phase === phase);

/**
 * The phases to run again alone, in phase order: each one not clean beside the others, and every phase of a run
 * whose own leaks phase was not clean (its leak belongs to one of them, and alone it is judged with every server).
 */
export function toConfirm(runs: readonly DriverRun[]): SidePhase[] {
  const again = new Set<SidePhase>();
  for (const run of runs) {
    const leaks = resultOf(run, 'leaks');
    for (const phase of run.phases) if (!cleanBeside(leaks) || !cleanBeside(resultOf(run, phase))) again.add(phase);
  }
  return SIDE_ORDER.filter((p) => again.has(p));
}

const NOT_CLEAN =
  "it did not pass beside the cell's other phases (each group on its own copy of the tree): run again alone on the cell's own tree, this is that run's result";

/** Why every phase ran again in turn: a server wrote into its copy of the tree (`written`: what it wrote). */
export function writtenWhy(written: string): string {
  return `a server wrote into its copy of the cell's tree (${written}), which in turn the next phases' servers would see: every phase run again in turn on the cell's own tree, this is that run's result`;
}

/** The lone run's result, saying so and why, with what the side-by-side run had reported. */
export function confirmedAlone(alone: PhaseResult, beside: PhaseResult | undefined, why = NOT_CLEAN): PhaseResult {
  return withDetails(alone, {
    confirmedAlone: {
      why,
      beside: beside ? { verdict: beside.verdict, ...(beside.message ? { message: beside.message } : {}) } : { verdict: 'not reported' },
    },
  });
}

/**
 * Every phase as the runs report it: a phase of `lone` from it (confirmed alone when a group ran it), each other
 * measured phase from its group, a phase no run measured (skipped, stood in for) from the first group that reported
 * it; leaks and the summary merged. `why`: why the lone run's phases ran again (default: they did not pass beside the
 * others). Total: no group gives the lone run's phases alone.
 */
export function mergeBeside(
  groups: readonly DriverRun[],
  lone?: DriverRun,
  why?: string,
): { results: PhaseResult[]; summary: CellSummary } {
  const owner = (phase: SidePhase): DriverRun | undefined =>
    lone?.phases.includes(phase) ? lone : groups.find((g) => g.phases.includes(phase));
  const results: PhaseResult[] = [];
  for (const phase of SIDE_ORDER) {
    // A phase no group measured (skipped, stood in for) is reported alike by each: the first that reported it.
    const run = owner(phase) ?? groups.find((g) => resultOf(g, phase));
    const result = run && resultOf(run, phase);
    if (!result) continue;
    const beside = groups.find((g) => g.phases.includes(phase));
    // A phase of the lone run that no group ran (its copy could not be made) ran once, as in turn: nothing to confirm.
    results.push(run === lone && beside ? confirmedAlone(result, resultOf(beside, phase), why) : result);
  }
  const leaks = mergeLeaks(groups, lone);
  if (leaks) results.push(leaks);
  const ordered = [...new Set(SIDE_ORDER.flatMap((p) => owner(p) ?? []))];
  return { results, summary: mergeSummary([...ordered, ...groups, ...(lone ? [lone] : [])], groups, lone) };
}

/**
 * The leaks phase over every server: the lone run's verdict when there is one (the groups' own were clean), details of
 * all. None (not measured, as in turn after a crash) when some servers went unjudged: a lone run that stopped before its
 * leaks phase, or a group whose leaks was not clean with no lone run to judge its servers (an interrupt).
 */
function mergeLeaks(groups: readonly DriverRun[], lone: DriverRun | undefined): PhaseResult | undefined {
  const loneLeaks = lone && resultOf(lone, 'leaks');
  if (lone ? !loneLeaks : !groups.every((g) => cleanBeside(resultOf(g, 'leaks')))) return undefined;
  // A group whose leaks was not clean had every phase run again alone: the lone run speaks for its servers.
  const runs = [...groups.filter((g) => cleanBeside(resultOf(g, 'leaks'))), ...(lone ? [lone] : [])];
  const all = runs.flatMap((r) => resultOf(r, 'leaks') ?? []);
  const head = loneLeaks ?? all[0];
  if (!head || head.phase !== 'leaks' || !head.details) return head;
  const list = (key: 'servers' | 'escaped' | 'driverHandles' | 'tempFiles') =>
    all.flatMap((r) => (r.phase === 'leaks' ? ((r.details?.[key] as unknown[] | undefined) ?? []) : []));
  return {
    ...head,
    durationMs: Math.max(...all.map((r) => r.durationMs)),
    details: {
      ...head.details,
      servers: list('servers'),
      escaped: list('escaped'),
      driverHandles: list('driverHandles'),
      tempFiles: list('tempFiles') as NonNullable<typeof head.details.tempFiles>,
    },
  };
}

/** Each summary field from the first run that set it, the owners of stdio and http first; leaked handles of every run. */
function mergeSummary(ordered: readonly DriverRun[], groups: readonly DriverRun[], lone: DriverRun | undefined): CellSummary {
  const summaries = ordered.flatMap((r) => (r.summary ? [r.summary] : []));
  const merged: CellSummary = { leakedHandles: null };
  for (const s of summaries)
    for (const [key, value] of Object.entries(s)) {
      const k = key as keyof CellSummary;
      if (value !== undefined && merged[k] === undefined && k !== 'leakedHandles') Object.assign(merged, { [k]: value });
    }
  const peaks = summaries.flatMap((s) => (s.driverPeakRssMb === undefined ? [] : [s.driverPeakRssMb]));
  if (peaks.length) merged.driverPeakRssMb = Math.max(...peaks);
  const judged = [...groups.filter((g) => cleanBeside(resultOf(g, 'leaks'))), ...(lone ? [lone] : [])];
  const handles = judged.map((r) => r.summary?.leakedHandles ?? null);
  merged.leakedHandles = handles.every((h) => h === null) ? null : handles.flatMap((h): LeakedHandle[] => h ?? []);
  return merged;
}
