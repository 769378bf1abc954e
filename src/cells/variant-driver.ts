// One variant's driver run on its cell's install: where the driver works (the cell's own, or a variant's
// directory with the driver shipped into its client), its spec and backstop, and each phase result it
// reports (a shared bind or conformance, a missing suite or a secret gap stands in for its phase: driver-spec.ts).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DriverSpec, OAuthServerSpec } from '../contract/protocol.js';
import { driverStopped, suiteMissing } from '../judge/not-measured.js';
import type { SharedResults } from '../judge/phase-share.js';
import type { PlannedCell, PlannedVariant } from '../plan/plan.js';
import type { CellResult, PhaseResult } from '../results/types.js';
import { fail, type Result } from '../util/result.js';
import type { CellContext, CellInstall } from './cell-context.js';
import type { ClientInstall } from './install/client-install.js';
import type { ConformanceSuite } from './conformance/conformance-suite.js';
import { runDriver, writeSpec, type DriverHooks, type DriverLayout, type DriverOptions } from './driver-launch.js';
import { measuredPhases, runBeside, type PhaseRuns } from './side/side-driver.js';
import { laterStandIns, runOnCopy, takeLater, withoutStandIns, type VariantLane } from './side/variant-side.js';
import { sideGroups } from '../judge/side-by-side.js';
import { warmToolSchemas } from '../judge/tool-schemas.js';
import { baseEnv, driverBound, driverSpec, withPnp, withVariantNode, type SpecInput } from './driver-spec.js';
import type { NodeRuntime } from './runtime/node-runtime.js';
import { markCell } from '../util/marks.js';
import { defined } from '../contract/fields.js';

/** The variant's own instruments, installed by the run: its client and its Node. */
export interface VariantTools {
  client?: ClientInstall;
  node?: NodeRuntime;
}

export async function runVariantDriver(
  cell: PlannedCell,
  variant: PlannedVariant,
  install: Extract<CellInstall, { kind: 'installed' }>,
  deps: VariantTools,
  ctx: CellContext,
  hooks: DriverHooks,
  record: (r: PhaseResult) => void,
  shared: SharedResults = {},
  oauth?: OAuthServerSpec,
  lane?: VariantLane,
): Promise<{ summary: CellResult['summary']; phaseRuns?: PhaseRuns; taken: SharedResults }> {
  const cfg = ctx.plan.config;
  const { cellDir } = install;
  const alone = variant.id === cell.id;
  // Without axes the driver runs as it always did; a variant gets its own spec, log and work dir, and the
  // driver shipped into its client's install (so its bare imports resolve to that client).
  const workDir = alone ? undefined : path.join(cellDir, '.mcp-matrix', 'variants', variant.id);
  if (workDir) await mkdir(workDir, { recursive: true });
  const layout: DriverLayout = workDir
    ? {
        dir: workDir,
        entry: (deps.client?.driver ?? install.driver).entry,
        probe: install.driver.probe,
        log: path.join(workDir, 'driver.log'),
      }
    : install.driver;
  const conformance = await conformanceOf(ctx);
  markCell(cellDir, 'suite-end');
  const input: SpecInput = {
    config: cfg,
    packageName: ctx.plan.package.name,
    binFile: ctx.plan.bin.file,
    cell,
    variant,
    cellDir,
    ...defined({ workDir }),
    probe: layout.probe,
    ...defined({ node: deps.node }),
    shared,
    ...defined({ oauth }),
    ...(conformance ? { conformance: conformance.ok && conformance.value } : {}),
    ...(conformance && !conformance.ok ? { suiteMissing: suiteMissing(conformance.error.message) } : {}),
    ...(ctx.secrets ? { secrets: ctx.secrets, gaps: ctx.secrets.gaps } : {}),
    ...(install.pnp ? { pnp: install.pnp } : {}),
  };
  const specOf = (with_: SharedResults): DriverSpec => {
    const made = driverSpec({ ...input, shared: with_ });
    if (ctx.secrets?.mask.length) made.mask = ctx.secrets.mask;
    return made;
  };
  // Side by side only on a node_modules tree whose paths are all inside the cell (a strict leg's are not).
  // A variant beside the cell's other variants (cell-lanes.ts) runs its phases in turn on its own copy of the tree;
  // a lane's later variant leaves bind and conformance to its lane's earlier ones and takes them over after.
  const beside = lane && !install.pnp && !cell.install ? lane : undefined;
  const later = beside?.later;
  const spec = specOf(later ? laterStandIns(specOf({})) : shared);
  const options: DriverOptions = {
    timeoutMs: driverBound(cfg, spec.phases.conformance ? spec.phases.conformance.scenarios.length : 0),
    // A PnP cell's own driver loads its client through PnP, as the package loads the SDK.
    env: withVariantNode(withPnp(baseEnv({}), deps.client ? undefined : install.pnp?.nodeOptions), deps.node),
    signal: ctx.signal,
    ...(deps.node ? { execPath: deps.node.execPath } : {}),
    // A client's driver serves every cell of the run: the first run on a Node release compiles it, the
    // rest load the code cache. A cell's own driver runs once per Node release, so a cache would only cost.
    ...(deps.client ? { compileCacheDir: path.join(ctx.runDir, 'compile-cache') } : {}),
  };
  const groups = ctx.sideBySide && !lane && !install.pnp && !cell.install ? sideGroups(measuredPhases(spec)) : [];
  const inTurn = () => runDriver(layout, spec, options, { ...defined({ onPhaseStart: hooks.onPhaseStart }), onPhaseResult: record });
  const { outcome, ran } = beside
    ? await runOnCopy(layout, spec, options, hooks, beside)
    : groups.length
      ? await runBeside(layout, spec, options, hooks, groups, groups.flat().includes('stdio') ? warmToolSchemas : undefined)
      : { outcome: await (lane ? lane.alone(inTurn) : inTurn()) };
  let taken = shared;
  if (later && beside.wrote === undefined && !ctx.signal.aborted) {
    // The shares exactly as its turn would have taken them: once every earlier variant's row stands.
    taken = await later();
    const final = specOf(taken);
    const took = takeLater(outcome.results, spec, final);
    if ('again' in took) {
      beside.again = took.again;
      return { summary: { leakedHandles: null }, taken: {} };
    }
    await writeSpec(layout, final, options.execPath);
    outcome.results = took.results;
  } else if (later) outcome.results = withoutStandIns(outcome.results, spec);
  if (groups.length || beside) outcome.results.forEach(record);
  const phaseRuns = ran ? { phaseRuns: ran } : {};
  if (outcome.kind === 'done') return { summary: outcome.summary, ...phaseRuns, taken };
  const stopped = driverStopped(outcome, ctx.signal.aborted);
  if (stopped) record(stopped);
  return { summary: { leakedHandles: null }, ...phaseRuns, taken };
}

/** The suite for a run whose config turns the conformance phase on; a run without a provider cannot install it. */
async function conformanceOf(ctx: CellContext): Promise<Result<ConformanceSuite> | undefined> {
  if (!ctx.plan.config.conformance) return undefined;
  if (!ctx.conformanceSuite) return fail('infrastructure', 'no conformance suite was provided to this run');
  return ctx.conformanceSuite();
}
