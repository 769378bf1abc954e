// A run's RunResult from its rows: the plan and host it ran on, and the run verdict, decided with the
// plan's lockstep findings, the baseline and the surface check (judge/verdict.ts, results/surface.ts).
import os from 'node:os';
import path from 'node:path';
import type { Tarball } from '../pack/pack.js';
import { selectedIds, type Plan, type PlannedCell, type PlannedVariant } from '../plan/plan.js';
import { compareRecorded, parityFailures, type Recorded } from '../results/parity.js';
import { judgeSplitSteps } from '../judge/split-steps.js';
import { compareSnapshot, surfaceCheck, surfaceFailures, type SurfaceItems } from '../results/surface.js';
import { RESULTS_SCHEMA_VERSION, type BaselineEntry, type CellResult, type RunResult, type VariantRef } from '../results/types.js';
import { decideRun } from '../judge/verdict.js';
import { HARNESS_VERSION } from '../version.js';
import { defined } from '../contract/fields.js';

/** Everything the run knew besides its rows: what assemble writes into results.json around them. */
export interface RunContext {
  plan: Plan;
  tarball: Tarball;
  selected: PlannedCell[];
  startedAt: Date;
  npmVersion: string;
  commit: string | undefined;
  /** The config's directory inside its git checkout (reports' locations are repository paths); undefined outside git. */
  configDir: string | undefined;
  baseline: { file: string; entries: BaselineEntry[] } | undefined;
  snapshot: SurfaceItems | undefined;
  /** The recorded values (step answers, behaviours) in the committed mcp-surface.json. */
  recorded: Recorded | undefined;
  /** The registry look-ups reused within the reuse window. */
  lookedUp?: { name: string; lookedUpAt: string; ageMs: number }[];
}

export function assemble(facts: RunContext, rows: CellResult[], interrupted: boolean): RunResult {
  const { plan, baseline } = facts;
  // A step that failed on some rows only is judged across them before anything is decided.
  const ran = judgeSplitSteps(rows);
  const finishedAt = new Date();
  const lockstepErrors = plan.lockstep.filter((f) => f.level === 'error').map((f) => `lockstep: ${f.message}`);
  const warnings = plan.lockstep.filter((f) => f.level === 'warning').map((f) => `lockstep: ${f.message}`);
  // A claim that the cells do not cover fails the run when lockstep is 'error'.
  const failing = plan.config.lockstep === 'error' ? lockstepErrors : [];
  const surface = runSurface(plan, ran, facts.snapshot);
  const parity = plan.config.parity === false ? undefined : compareRecorded(ran, plan.config.parity.allow, facts.recorded);
  const decision = decideRun(ran, interrupted, {
    expected: facts.selected.reduce((n, c) => n + c.variants.length, 0),
    lockstepErrors: failing,
    ...defined({ baseline: baseline?.entries }),
    surfaceFailures: surfaceFailures(surface),
    parityFailures: parityFailures(parity),
  });
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    tool: { name: 'mcp-matrix', version: HARNESS_VERSION },
    startedAt: facts.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - facts.startedAt.getTime(),
    interrupted: decision.verdict === 'interrupted',
    plan: planRecord(facts),
    host: hostRecord(facts.npmVersion),
    cells: ran,
    verdict: decision.verdict,
    exitCode: decision.exitCode,
    warnings: [...lockstepErrors, ...warnings],
    ...(failing.length > 0 ? { lockstepErrors: failing } : {}),
    ...defined({ baseline, surface, parity }),
  };
}

/** The surface check across the rows (and against the committed snapshot), unless the config turns it off. */
function runSurface(plan: Plan, ran: CellResult[], snapshot: SurfaceItems | undefined): RunResult['surface'] {
  const allow = plan.config.surface === false ? undefined : plan.config.surface.allow;
  return allow && surfaceCheck(ran, allow, snapshot && compareSnapshot(snapshot, ran, allow));
}

/** What results.json records of the plan: the config, the package and its tarball, every planned cell. */
function planRecord({ plan, tarball, selected, commit, configDir, lookedUp }: RunContext): RunResult['plan'] {
  const chosen = selectedIds(plan.cells, selected);
  return {
    configHash: plan.hash,
    configFile: path.basename(plan.config.file),
    ...packageDirOf(plan.config),
    ...defined({ configDir }),
    package: { name: plan.package.name, version: plan.package.version, ...(commit ? { commit } : {}) },
    tarball: { file: path.basename(tarball.file), size: tarball.size, sha512: tarball.sha512 },
    cells: plan.cells.map((c) => ({
      id: c.id,
      variants: c.variants.map(variantRef),
      pin: c.pin,
      ...(c.role ? { role: c.role } : {}),
      version: c.version,
      major: c.major,
      allowedToFail: c.allowedToFail,
      installSet: c.installSet,
    })),
    ...defined({ selected: chosen }),
    ...(lookedUp?.length ? { lookedUp } : {}),
  };
}

function hostRecord(npmVersion: string): RunResult['host'] {
  return {
    node: process.version,
    npm: npmVersion,
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    ...(process.env.CI ? { ci: process.env.GITHUB_ACTIONS ? 'github-actions' : 'ci' } : {}),
  };
}

/** What results.json records of a variant: the client and Node it ran with, without the plan's working fields. */
export function variantRef(v: PlannedVariant): VariantRef {
  return {
    id: v.id,
    ...(v.client ? { client: { pin: v.client.pin, major: v.client.major, version: v.client.version, package: v.client.package } } : {}),
    ...(v.node ? { node: { spec: v.node.spec, version: v.node.version } } : {}),
  };
}

/** Where the package's directory is, relative to the config's (posix): reports point at its package.json. */
function packageDirOf(config: Plan['config']): { packageDir?: string } {
  const dir = config.source.kind === 'directory' ? config.source.dir : config.source.packageDir;
  return dir === undefined ? {} : { packageDir: path.relative(config.dir, dir).split(path.sep).join('/') || '.' };
}
