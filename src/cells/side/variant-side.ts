// A variant's driver beside the cell's other variants: on its own copy of the cell's tree (tree-copy.ts), with its own
// server tags (the variant's id); what does not pass there is run again alone on the cell's own tree, and a server that
// wrote into its copy sends the cell back to in turn (docs/phases.md, "A cell's variants side by side").
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DriverSpec } from '../../contract/protocol.js';
import { mergeBeside, toConfirm, type DriverRun } from '../../judge/side-by-side.js';
import { runDriver, writeSpec, type DriverHooks, type DriverLayout, type DriverOptions, type DriverOutcome } from '../driver-launch.js';
import { loneSpec, measuredPhases, only, onCopy, specOnCopy, type PhaseRuns } from './side-driver.js';
import { copyCellTree, COPIED_MARK, removeCopy, writtenSince } from './tree-copy.js';

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
