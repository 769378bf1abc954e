// One variant end to end on its cell's shared install: client and Node, driver run, environment → one CellResult.
// Never throws. It orchestrates only: every rule that judges or demotes a phase after the driver is src/judge/'s.
import { SHARED_PHASES, shareKey, sharedWith, toShare, type PhaseShare } from '../judge/phase-share.js';
import { harnessError, instrumentMissing, nextPhase, notRun } from '../judge/not-measured.js';
import { checkToolSchemas } from '../judge/tool-schemas.js';
import { explainMissing } from '../judge/environment/missing-import.js';
import { judgeVariantEnvironment } from '../judge/environment/variant-environment.js';
import type { SecretPhase } from '../contract/config.js';
import type { PlannedCell, PlannedVariant } from '../plan/plan.js';
import { PHASES, type CellResult, type ClientInstallRef, type PhaseName, type PhaseResult } from '../results/types.js';
import { compareJudges } from '../judge/second-judge.js';
import { decideCellResult } from '../judge/verdict.js';
import { withAuthorizationServer } from './authorization-server.js';
import type { CellContext, CellInstall } from './cell-context.js';
import type { DriverHooks } from './driver-launch.js';
import { runVariantDriver, type VariantTools } from './variant-driver.js';
import type { VariantLane } from './side/variant-side.js';
import { markCell } from '../util/marks.js';
import { defined } from '../contract/fields.js';

/** One variant: its driver run on the cell's install. Awaits the shared install; never throws. */
export async function runVariant(
  cell: PlannedCell,
  variant: PlannedVariant,
  installing: Promise<CellInstall>,
  ctx: CellContext,
  hooks: DriverHooks = {},
  shares?: PhaseShare,
  lane?: VariantLane,
): Promise<CellResult> {
  const results = new Map<PhaseName, PhaseResult>();
  const record = (recorded: PhaseResult) => {
    const r = checkToolSchemas(recorded);
    results.set(r.phase, r);
    hooks.onPhaseResult?.(r);
  };
  let environment: CellResult['environment'];
  let summary: CellResult['summary'] = { leakedHandles: null };
  let phaseRuns: CellResult['phaseRuns'];
  let clientRef: ClientInstallRef | undefined;
  hooks.onPhaseStart?.('environment');
  const install = await installing;
  // A variant's own time: the cell's install, checked and with its driver shipped (all of which it needs), and
  // its driver run; not the wait for a turn.
  const started = performance.now() - (install.kind === 'installed' ? install.readyMs : install.installMs);
  if (install.cellDir) markCell(install.cellDir, 'variant-start');
  let stopped: string | undefined;
  try {
    if (install.kind === 'not-installed') record(install.environment);
    else {
      environment = install.env.evidence;
      const deps = await variantDeps(variant, ctx);
      markCell(install.cellDir, 'deps-end');
      if (!deps.ok) {
        stopped = deps.why;
        record(instrumentMissing(install.env.result, deps));
      } else {
        clientRef = deps.client?.ref;
        // Shown once the servers' runtime SDK is folded in: the verdict rests on what they loaded.
        results.set('environment', install.env.result);
        // bind and conformance, if an earlier variant of this cell measured them on this Node release.
        // (A lane's later variant run beside its lane's earlier ones takes them once those end: variant-driver.ts.)
        let taken = sharedWith(shares, variant);
        if (!ctx.signal.aborted)
          ({ summary, phaseRuns, taken } = await withAuthorizationServer(ctx.plan.config.http, (oauth) =>
            runVariantDriver(cell, variant, install, deps, ctx, hooks, record, taken, oauth, lane),
          ));
        markCell(install.cellDir, 'driver-end');
        for (const phase of SHARED_PHASES) {
          const measured = taken[phase] ? undefined : toShare(phase, [...results.values()]);
          if (shares && measured) shares.set(shareKey(phase, variant), { variant: variant.id, result: measured });
        }
        const cfg = ctx.plan.config;
        const gapped = (phase: SecretPhase) => ctx.secrets?.gaps.has(phase) === true;
        const folded = await judgeVariantEnvironment({
          env: install.env,
          cellDir: install.cellDir,
          installSet: cell.installSet,
          primary: cell.primary,
          binFile: ctx.plan.bin.file,
          ...(install.pnp ? { pnpPackages: install.pnp.all } : {}),
          enabled: { stdio: cfg.stdio !== false && !gapped('stdio'), http: cfg.http !== false && !gapped('http') },
          ...(gapped('stdio') || gapped('http') ? { notRun: 'the config says they need a secret that is not set' } : {}),
          phases: [...results.values()],
          ...(variant.node ? { nodeVersion: variant.node.version } : {}),
        });
        environment = folded.evidence;
        record(folded.result);
      }
    }
  } catch (error) {
    record(harnessError(error, ctx.signal.aborted, nextPhase(results)));
  }
  if (install.cellDir) markCell(install.cellDir, 'judged');
  const checks = install.kind === 'installed' ? (install.env.result.checks ?? []) : [];
  const phases = compareJudges(
    await Promise.all(
      PHASES.map((phase) => {
        const result = results.get(phase) ?? notRun(phase, results, ctx.signal.aborted, stopped);
        // A server that died for want of a package: the cause named (judge/environment/missing-import.ts).
        return result.verdict === 'failed' && result.stderrTail
          ? explainMissing(result, ctx.plan.package.name, checks, install.kind === 'installed' ? install.pnp?.all : undefined)
          : result;
      }),
    ),
  );
  const { verdict, outcome } = decideCellResult(phases, cell.allowedToFail);
  return {
    id: variant.id,
    cell: cell.id,
    ...(variant.client
      ? {
          client: {
            pin: variant.client.pin,
            major: variant.client.major,
            version: variant.client.version,
            package: variant.client.package,
          },
        }
      : {}),
    ...defined({ clientInstall: clientRef }),
    ...(variant.node ? { node: { spec: variant.node.spec, version: variant.node.version } } : {}),
    pin: cell.pin,
    ...(cell.role ? { role: cell.role } : {}),
    major: cell.major,
    version: cell.version,
    allowedToFail: cell.allowedToFail,
    installSet: cell.installSet,
    verdict,
    outcome,
    phases,
    ...defined({ environment }),
    summary,
    ...defined({ phaseRuns }),
    durationMs: Math.round(performance.now() - started - (lane?.waitedMs ?? 0)),
    repro: ctx.repro(cell, variant),
    ...(ctx.keep && install.cellDir ? { cellDir: install.cellDir } : {}),
  };
}

type VariantDeps = ({ ok: true } & VariantTools) | { ok: false; step: string; message: string; why: string };

/** The variant's client install and Node runtime (shared, each made once); a failure is the harness's: not measured. */
async function variantDeps(variant: PlannedVariant, ctx: CellContext): Promise<VariantDeps> {
  const [client, node] = await Promise.all([
    variant.client && ctx.clientInstall ? ctx.clientInstall(variant.client) : undefined,
    variant.node && ctx.nodeRuntime ? ctx.nodeRuntime(variant.node) : undefined,
  ]);
  if (client && !client.ok)
    return { ok: false, step: 'client install', message: client.error.message, why: "the variant's client could not be installed" };
  if (node && !node.ok)
    return { ok: false, step: 'node runtime', message: node.error.message, why: "the variant's Node runtime could not be installed" };
  return { ok: true, ...(client?.ok ? { client: client.value } : {}), ...(node?.ok ? { node: node.value } : {}) };
}
