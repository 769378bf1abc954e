// A variant's driver phases side by side: each group (judge/side-by-side.ts) in a driver of its own, on its own copy of
// the cell's tree, with server tags of its own (a driver's end sweeps its tags); what did not pass there is run again
// alone on the cell's own tree once every group has ended, and only that run counts.
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DriverSpec, ServerCommand } from '../../contract/protocol.js';
import { mergeBeside, SIDE_ORDER, toConfirm, writtenWhy, type DriverRun, type SidePhase } from '../../judge/side-by-side.js';
import type { PhaseName } from '../../results/types.js';
import { runDriver, writeSpec, type DriverHooks, type DriverLayout, type DriverOptions, type DriverOutcome } from '../driver-launch.js';
import { copyCellTree, COPIED_MARK, removeCopy, writtenSince } from './tree-copy.js';

/** How a variant's phases ran, as results.json records it (`phaseRuns`): the groups side by side, and which ran again alone. */
export interface PhaseRuns {
  sideBySide: SidePhase[][];
  confirmedAlone: SidePhase[];
  /** The groups whose copy could not be made: their phases ran once, after the others, alone on the cell's own tree. */
  inTurn?: SidePhase[];
  /** The variant's driver ran on a copy of the cell's tree beside the cell's other variants (its one group). */
  variantsBeside?: true;
}

/**
 * A variant's phases side by side only where cores would otherwise idle: fewer variants at once than cores (decided
 * from the plan and the machine, never from the load, so two runs of one plan run alike), on Linux (`cp -al`).
 */
export function sideBySideFits(config: { sideBySide?: boolean }, concurrency: number, cores: number): boolean {
  return config.sideBySide !== false && concurrency < cores && process.platform === 'linux';
}

/**
 * The driver's outcome over every group (and the lone run); `ran` absent: no copy could be made, the phases ran in
 * turn. A later copy that could not be made: the groups started keep their results, the others' phases join the lone
 * run. `idle`: called once, when the last group's driver starts its first phase, for work this thread can do while the
 * drivers run.
 */
export async function runBeside(
  layout: DriverLayout,
  spec: DriverSpec,
  options: DriverOptions,
  hooks: DriverHooks,
  groups: SidePhase[][],
  idle?: () => void,
): Promise<{ outcome: DriverOutcome; ran?: PhaseRuns }> {
  // The cell's own spec is the whole one from the start, as in turn: a kept cell of an interrupted run re-runs every phase.
  await writeSpec(layout, spec, options.execPath);
  const copies: string[] = [];
  const started: Promise<GroupEnd>[] = [];
  try {
    // The copies one after another, each group's driver started once its own is whole: the first group starts after
    // one copy, not three made at once on the same cores.
    for (const [i, group] of groups.entries()) {
      const made = await copyCellTree(spec.cellDir, spec.packageDir);
      if (!made.ok) break;
      copies.push(made.value);
      const last = i === groups.length - 1 && idle ? onFirstStart(hooks, idle) : hooks;
      const run = runGroup(layout, spec, options, last, group, made.value, i);
      // Settled below with the others; never unhandled meanwhile.
      run.catch(() => undefined);
      started.push(run);
    }
    // Settled, not raced: a group that throws (its spec or mark not written) waits for the others' drivers to end
    // before its error goes up and the copies go, so no driver runs on a removed copy.
    const settled = await Promise.allSettled(started);
    // No copy at all: the phases run in turn.
    if (!started.length) return { outcome: await runDriver(layout, spec, options, hooks) };
    const thrown = settled.find((s) => s.status === 'rejected');
    if (thrown) throw thrown.reason;
    const beside = groups.slice(0, started.length);
    // The groups whose copy could not be made: their phases run after the others, alone on the cell's tree, as in turn.
    const inTurn = SIDE_ORDER.filter((p) => groups.slice(started.length).flat().includes(p));
    const ends = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    await joinLogs(layout.log, ends, beside);
    const outcomes = ends.map((e) => e.outcome);
    const runs: DriverRun[] = outcomes.map((o, i) => ({
      phases: beside[i]!,
      results: o.results,
      ...(o.kind === 'done' ? { summary: o.summary } : {}),
    }));
    // A server that wrote into its copy: in turn the next phases' servers would have seen it, so every phase runs in turn.
    const written = options.signal?.aborted ? undefined : ends.find((e) => e.written)?.written;
    const confirm = options.signal?.aborted ? [] : written ? SIDE_ORDER.filter((p) => beside.flat().includes(p)) : toConfirm(runs);
    const again = options.signal?.aborted ? [] : SIDE_ORDER.filter((p) => confirm.includes(p) || inTurn.includes(p));
    const lone = again.length ? await runDriver(layout, loneSpec(spec, again), options, only(hooks, again)) : undefined;
    // A kept cell's spec is the whole one: run again by hand, it runs every phase in turn.
    await writeSpec(layout, spec, options.execPath);
    const merged = mergeBeside(
      runs,
      lone && { phases: again, results: lone.results, ...(lone.kind === 'done' ? { summary: lone.summary } : {}) },
      written && writtenWhy(written),
    );
    const ran: PhaseRuns = { sideBySide: beside, confirmedAlone: confirm, ...(inTurn.length ? { inTurn } : {}) };
    const stopped = lone?.kind === 'crashed' ? lone : outcomes.find((o) => o.kind === 'crashed' && options.signal?.aborted);
    if (stopped?.kind === 'crashed') return { outcome: { ...stopped, results: merged.results }, ran };
    return { outcome: { kind: 'done', results: merged.results, summary: merged.summary }, ran };
  } finally {
    // Each group removed its own copy as its driver ended; what an error left is removed here.
    await Promise.all(copies.map(removeCopy));
  }
}

/** One group's end: its driver's outcome, the first entry its servers wrote into its copy (if any), its driver's log. */
interface GroupEnd {
  outcome: DriverOutcome;
  written?: string;
  log: string;
}

/**
 * One group's driver on its copy. Once it ends its servers are gone, so what they wrote into the copy is known, and
 * the copy goes while the other groups still run.
 */
async function runGroup(
  layout: DriverLayout,
  spec: DriverSpec,
  options: DriverOptions,
  hooks: DriverHooks,
  group: readonly SidePhase[],
  copy: string,
  index: number,
): Promise<GroupEnd> {
  const dir = path.join(copy, '.mcp-matrix');
  await mkdir(dir, { recursive: true });
  const mark = path.join(dir, COPIED_MARK);
  await writeFile(mark, '');
  const own: DriverLayout = { ...layout, dir, log: path.join(dir, 'driver.log') };
  const outcome = await runDriver(own, groupSpec(spec, group, copy, index), options, only(hooks, group));
  const written = options.signal?.aborted ? undefined : await writtenSince(copy, mark);
  const log = await readFile(own.log, 'utf8').catch(() => '');
  await removeCopy(copy);
  return { outcome, ...(written ? { written } : {}), log };
}

/** Each group's driver log appended to the cell's, in group order: a kept cell's one log tells every driver run. */
async function joinLogs(log: string, ends: readonly GroupEnd[], groups: readonly SidePhase[][]): Promise<void> {
  for (const [i, end] of ends.entries())
    if (end.log)
      await appendFile(log, `--- side by side, group ${i + 1} (${groups[i]!.join(', ')}) ---\n${end.log}`).catch(() => undefined);
}

/** The hooks, with `first` called once before the first phase start they pass on. */
function onFirstStart(hooks: DriverHooks, first: () => void): DriverHooks {
  let called = false;
  return {
    ...hooks,
    onPhaseStart: (p) => {
      if (!called) first();
      called = true;
      hooks.onPhaseStart?.(p);
    },
  };
}

/** The phases this spec has its driver measure: on, and not stood in for by a result known before it starts. */
export function measuredPhases(spec: DriverSpec): SidePhase[] {
  return SIDE_ORDER.filter((p) => spec.phases[p] && !spec.standIns?.[p]);
}

/** Only the given phases' starts and results reach the variant (the rest are another run's). */
export function only(hooks: DriverHooks, phases: readonly PhaseName[]): DriverHooks {
  return hooks.onPhaseStart ? { onPhaseStart: (p) => phases.includes(p) && hooks.onPhaseStart!(p) } : {};
}

/** The spec for one group: its phases only, on its copy of the tree (every path into the cell moved into it), its own tags. */
export function groupSpec(spec: DriverSpec, group: readonly SidePhase[], copy: string, index: number): DriverSpec {
  return {
    ...specOnCopy(restricted(spec, group), copy, path.join(copy, '.mcp-matrix')),
    tagPrefix: `${spec.baseEnv.MCP_MATRIX_CELL ?? 'cell'}~side-${index + 1}:`,
  };
}

/** `path` in the cell's tree as the same path in `copy` (a path outside the cell stays as it is). */
export function onCopy(cellDir: string, copy: string, file: string): string {
  const rel = path.relative(cellDir, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : path.join(copy, rel);
}

/** The spec on a copy of the cell's tree: the cell, the package and each server's bin moved into it, `workDir` as given. */
export function specOnCopy(spec: DriverSpec, copy: string, workDir: string): DriverSpec {
  const rebase = (file: string): string => onCopy(spec.cellDir, copy, file);
  function moved<T extends { command: ServerCommand } | false | undefined>(phase: T): T {
    return phase ? { ...phase, command: { ...phase.command, bin: rebase(phase.command.bin) } } : phase;
  }
  const { stdio, http, bind, conformance } = spec.phases;
  return {
    ...spec,
    cellDir: copy,
    packageDir: rebase(spec.packageDir),
    workDir,
    phases: { ...spec.phases, stdio: moved(stdio), http: moved(http), bind: moved(bind), conformance: moved(conformance) },
  };
}

/** The spec for the lone run: the phases to confirm, on the cell's own tree, with the cell's own tags. */
export function loneSpec(spec: DriverSpec, phases: readonly SidePhase[]): DriverSpec {
  return restricted(spec, phases);
}

function restricted(spec: DriverSpec, phases: readonly SidePhase[]): DriverSpec {
  const out = { ...spec.phases };
  for (const p of SIDE_ORDER) if (!phases.includes(p)) out[p] = false;
  return { ...spec, phases: out };
}
