// A variant's driver beside the cell's other variants: on its own copy of the cell's tree (tree-copy.ts), with its own
// server tags (the variant's id); what does not pass there is run again alone on the cell's own tree, and a server that
// wrote into its copy sends the cell back to in turn (docs/phases.md, "A cell's variants side by side").
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DriverSpec } from '../../contract/protocol.js';
import { SHARED_PHASES, type SharedResults } from '../../judge/phase-share.js';
import type { PhaseResult } from '../../results/types.js';
import { mergeBeside, toConfirm, type DriverRun } from '../../judge/side-by-side.js';
import { runDriver, writeSpec, type DriverHooks, type DriverLayout, type DriverOptions, type DriverOutcome } from '../driver-launch.js';
import { loneSpec, measuredPhases, only, onCopy, specOnCopy, type PhaseRuns } from './side-driver.js';
import { copyCellTree, COPIED_MARK, removeCopy, writtenSince } from './tree-copy.js';

const TAKEN_LATER = "a later variant of its lane: taken over from the lane's earlier variant once its row stands (not this run's result)";

const NOT_CLEAN_BESIDE_VARIANTS =
  "it did not pass beside the cell's other variants (each on its own copy of the tree): run again alone on the cell's own tree, this is that run's result";

/** A variant's place among its cell's variants run side by side (src/orchestrator/cell-lanes.ts). */
export interface VariantLane {
  /** Runs a driver beside the cell's other variants' drivers. */
  beside<T>(task: () => Promise<T>): Promise<T>;
  /** Runs a driver alone on the cell: once every driver beside has ended, and none starts until it ends. */
  alone<T>(task: () => Promise<T>): Promise<T>;
  /** Set when a server wrote into the variant's copy (what it wrote): the cell runs this variant and the next in turn. */
  wrote?: string;
  /**
   * A lane's later variant run beside its lane's earlier ones (src/orchestrator/cell-lanes.ts): its driver runs neither
   * bind nor conformance, and this gives the shared results it takes, once every earlier variant's row stands.
   */
  later?: () => Promise<SharedResults>;
  /** How long `later` waited for the earlier variants' rows (not the variant's own time). */
  waitedMs?: number;
  /** Set when the run beside was not the one its turn would have made (a share it waited for is not there): why. */
  again?: string;
}

/**
 * The variant's driver on its own copy of the cell's tree, beside the cell's other variants; the phases not clean there
 * (judge/side-by-side.ts, the rule of phases side by side) run again alone on the cell's own tree, and only that run
 * counts. A copy that cannot be made: the driver runs alone on the cell's tree, as in turn.
 */
export async function runOnCopy(
  layout: DriverLayout,
  spec: DriverSpec,
  options: DriverOptions,
  hooks: DriverHooks,
  lane: VariantLane,
): Promise<{ outcome: DriverOutcome; ran?: PhaseRuns }> {
  // The variant's own spec is the whole one from the start, as in turn: a kept cell re-runs every phase by hand.
  await writeSpec(layout, spec, options.execPath);
  const made = await copyCellTree(spec.cellDir, spec.packageDir);
  if (!made.ok) return { outcome: await lane.alone(() => runDriver(layout, spec, options, hooks)) };
  const copy = made.value;
  try {
    const dir = onCopy(spec.cellDir, copy, layout.dir);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(copy, '.mcp-matrix', COPIED_MARK), '');
    const own: DriverLayout = { ...layout, dir, log: path.join(dir, 'driver.log') };
    const phases = measuredPhases(spec);
    const onIt = specOnCopy(spec, copy, onCopy(spec.cellDir, copy, spec.workDir ?? dir));
    const beside = await lane.beside(() => runDriver(own, onIt, options, only(hooks, phases)));
    const text = await readFile(own.log, 'utf8').catch(() => '');
    if (text)
      await appendFile(layout.log, `--- beside the cell's other variants, on a copy of its tree ---\n${text}`).catch(() => undefined);
    const aborted = () => options.signal?.aborted === true;
    // A server that wrote into its copy: in turn the cell's next variants would see it, so the cell goes back to in turn.
    const written = aborted() ? undefined : await writtenSince(copy, path.join(copy, '.mcp-matrix', COPIED_MARK));
    if (written) {
      lane.wrote = written;
      return { outcome: beside };
    }
    const run: DriverRun = { phases, results: beside.results, ...(beside.kind === 'done' ? { summary: beside.summary } : {}) };
    const again = aborted() ? [] : toConfirm([run]);
    const ran: PhaseRuns = { sideBySide: [phases], confirmedAlone: again, variantsBeside: true };
    if (!again.length) return { outcome: beside, ran };
    const lone = await lane.alone(() => runDriver(layout, loneSpec(spec, again), options, only(hooks, again)));
    await writeSpec(layout, spec, options.execPath);
    const loneRun = { phases: again, results: lone.results, ...(lone.kind === 'done' ? { summary: lone.summary } : {}) };
    const merged = mergeBeside([run], loneRun, NOT_CLEAN_BESIDE_VARIANTS);
    if (lone.kind === 'crashed') return { outcome: { ...lone, results: merged.results }, ran };
    return { outcome: { kind: 'done', results: merged.results, summary: merged.summary }, ran };
  } finally {
    await removeCopy(copy);
  }
}

/** Stand-ins for the shared phases a lane's later variant leaves to its lane's earlier ones (`unshared`: its spec with no share). */
export function laterStandIns(unshared: DriverSpec): SharedResults {
  const measured = measuredPhases(unshared);
  const standIns: SharedResults = {};
  for (const phase of SHARED_PHASES)
    if (measured.includes(phase)) standIns[phase] = { phase, verdict: 'not-measured', durationMs: 0, message: TAKEN_LATER };
  return standIns;
}

/**
 * A lane's later variant's results with the shares it takes (`final`: its spec with them, as its turn would have written
 * it) in place of `ran`'s stand-ins, as its driver would have reported them; or why not: the run must be the one its turn
 * would have made, the same phases measured and each stand-in taken over.
 */
export function takeLater(
  results: readonly PhaseResult[],
  ran: DriverSpec,
  final: DriverSpec,
): { results: PhaseResult[] } | { again: string } {
  const measured = measuredPhases(final);
  const other = measuredPhases(ran);
  const missing = SHARED_PHASES.filter((p) => ran.standIns?.[p] && !final.standIns?.[p]);
  if (missing.length || measured.join() !== other.join())
    return { again: `no clean ${missing.join(' or ') || 'share'} from the lane's earlier variants: it measures its own in its turn` };
  // As in turn: the share went through the spec file and the driver's message, JSON both ways.
  const deferred = new Set<string>(SHARED_PHASES.filter((p) => ran.standIns?.[p]));
  return {
    results: results.map((r) => {
      const share = deferred.has(r.phase) ? final.standIns?.[r.phase] : undefined;
      return share ? (JSON.parse(JSON.stringify(share)) as PhaseResult) : r;
    }),
  };
}

/** A later variant's results without its stand-ins, where it took nothing over (its row will not stand, or the run stopped). */
export function withoutStandIns(results: readonly PhaseResult[], ran: DriverSpec): PhaseResult[] {
  return results.filter((r) => !(SHARED_PHASES as readonly string[]).includes(r.phase) || !ran.standIns?.[r.phase]);
}
