// One cell end to end: fresh dir → install (once) → environment → per variant: the driver phases on that
// variant's client and Node → one CellResult per variant. Never throws. It orchestrates only: every rule
// that judges or demotes a phase after the driver returned is src/judge/'s.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DriverSpec, OAuthServerSpec } from '../driver/protocol.js';
import { withAuthorizationServer } from './authorization-server.js';
import type { Plan, PlannedCell, PlannedClient, PlannedNode, PlannedVariant } from '../plan/plan.js';
import type { Tarball } from '../pack/pack.js';
import {
  PHASES,
  type CellResult,
  type ClientInstallRef,
  type EnvironmentEvidence,
  type InstallSourceRef,
  type PhaseName,
  type PhaseResult,
} from '../results/types.js';
import { decideCellResult } from '../results/verdict.js';
import { compareJudges } from '../results/second-judge.js';
import { installDriver, runDriver, type DriverHooks, type DriverLayout } from './driver-launch.js';
import { installReusing } from './reuse-install.js';
import { bindKey, bindToShare, sharedBind, sharedBindSkip, type BindShare } from '../judge/bind-share.js';
import { verifyEnvironment } from '../judge/environment.js';
import { driverStopped, harnessError, installFailure, instrumentMissing, nextPhase, notRun, suiteMissing } from '../judge/not-measured.js';
import { checkToolSchemas } from '../judge/tool-schemas.js';
import { judgeVariantEnvironment } from '../judge/variant-environment.js';
import { withRuntimePath, type NodeRuntime } from './node-runtime.js';
import type { ClientInstall } from './client-install.js';
import type { ConformanceSuite } from './conformance-suite.js';
import type { RunSecrets } from '../judge/secrets.js';
import type { SecretPhase } from '../config/types.js';
import { sdkPackageNames } from '../judge/sdk-tree.js';
import { createCellDir } from './workspace.js';
import { fail, type Result } from '../util/result.js';

export interface CellContext {
  plan: Plan;
  tarball: Tarball;
  runDir: string;
  harnessVersion: string;
  npmVersion: string;
  keep: boolean;
  signal: AbortSignal;
  /** Takes a finished cell's directory away off the cell's critical path (the run awaits it before it ends). */
  dispose(dir: string): void;
  repro(cell: PlannedCell, variant: PlannedVariant): string;
  /** A client variant's client, installed once per run (shared by every variant that names it). */
  clientInstall?(client: PlannedClient): Promise<Result<ClientInstall>>;
  /** A Node variant's runtime, installed once per release (a per-user cache). */
  nodeRuntime?(node: PlannedNode): Promise<Result<NodeRuntime>>;
  /** The conformance suite, installed once per run (a per-user cache); absent: the conformance phase is not measured. */
  conformanceSuite?(): Promise<Result<ConformanceSuite>>;
  /** The config's secrets in this run's environment; absent: the config declares none. */
  secrets?: RunSecrets;
  /** The tree cache's root (install reuse); undefined: every cell is a plain npm install. */
  treeCache?: string;
}

/** The environment every server and the driver get: enough to run, nothing inherited by accident. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  // MCP_MATRIX_RUN: the run's cookie, which every process the run starts carries (see process/cookie.ts).
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM', 'SystemRoot', 'MCP_MATRIX_RUN'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, ...extra };
}

/** The cell's server install, shared by its variants: installed and verified once, or why not. */
export type CellInstall =
  | {
      kind: 'installed';
      cellDir: string;
      installMs: number;
      attempts: number;
      /** The static half of the environment check (the runtime half is each variant's). */
      env: { result: PhaseResult; evidence: EnvironmentEvidence };
      /** The driver shipped into the cell: the one a variant without a client axis runs. */
      driver: DriverLayout;
    }
  | { kind: 'not-installed'; cellDir?: string; installMs: number; attempts?: number; environment: PhaseResult };

/** Installs the cell (never throws); the install hooks fire here, once per cell. */
export async function installServer(cell: PlannedCell, ctx: CellContext, hooks: DriverHooks = {}): Promise<CellInstall> {
  const started = performance.now();
  let cellDir: string | undefined;
  const elapsed = () => Math.round(performance.now() - started);
  try {
    if (ctx.signal.aborted) throw new Error('interrupted');
    cellDir = await createCellDir(ctx.runDir, cell.id, ctx.plan.package.name, ctx.tarball.file, cell.installSet);
    hooks.onInstallStart?.();
    const { install, source } = await installReusing(cellDir, {
      attempts: ctx.plan.config.install.attempts,
      timeoutMs: ctx.plan.config.install.timeoutMs,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      signal: ctx.signal,
      packageName: ctx.plan.package.name,
      npmVersion: ctx.npmVersion,
      treeCache: ctx.treeCache,
    });
    hooks.onInstallEnd?.({ ok: install.kind === 'installed', durationMs: install.durationMs, attempts: install.attempts });
    if (install.kind !== 'installed') {
      const { name: packageName, ranges } = ctx.plan.package;
      const pin = { primary: cell.primary, version: cell.version, packageName, range: ranges[cell.primary] };
      return {
        kind: 'not-installed',
        cellDir,
        installMs: install.durationMs,
        attempts: install.attempts,
        environment: withSource(installFailure(install, pin), source),
      };
    }
    const env = await verifyEnvironment({
      cellDir,
      packageName: ctx.plan.package.name,
      primary: cell.primary,
      version: cell.version,
      installSet: cell.installSet,
      sdkNames: sdkPackageNames(ctx.plan.config.majors),
      tarball: ctx.tarball,
      harnessVersion: ctx.harnessVersion,
      npmVersion: ctx.npmVersion,
      install,
    });
    env.evidence.installSource = source;
    const driver = await installDriver(cellDir);
    return { kind: 'installed', cellDir, installMs: install.durationMs, attempts: install.attempts, env, driver };
  } catch (error) {
    return {
      kind: 'not-installed',
      ...(cellDir ? { cellDir } : {}),
      installMs: elapsed(),
      environment: harnessError(error, ctx.signal.aborted),
    };
  }
}

/** One variant: its driver run on the cell's install. Awaits the shared install; never throws. */
export async function runVariant(
  cell: PlannedCell,
  variant: PlannedVariant,
  installing: Promise<CellInstall>,
  ctx: CellContext,
  hooks: DriverHooks = {},
  binds?: BindShare,
): Promise<CellResult> {
  const results = new Map<PhaseName, PhaseResult>();
  const record = (recorded: PhaseResult) => {
    const r = checkToolSchemas(recorded);
    results.set(r.phase, r);
    hooks.onPhaseResult?.(r);
  };
  let environment: CellResult['environment'];
  let summary: CellResult['summary'] = { leakedHandles: null };
  let clientRef: ClientInstallRef | undefined;
  hooks.onPhaseStart?.('environment');
  const install = await installing;
  // A variant's own time: the cell's install (which it needs) and its driver run, not the wait for a turn.
  const started = performance.now() - install.installMs;
  let stopped: string | undefined;
  try {
    if (install.kind === 'not-installed') record(install.environment);
    else {
      environment = install.env.evidence;
      const deps = await variantDeps(variant, ctx);
      if (!deps.ok) {
        stopped = deps.why;
        record(instrumentMissing(install.env.result, deps));
      } else {
        clientRef = deps.client?.ref;
        // Shown once the servers' runtime SDK is folded in: the verdict rests on what they loaded.
        results.set('environment', install.env.result);
        const taken = binds?.get(bindKey(variant));
        if (!ctx.signal.aborted)
          summary = await withAuthorizationServer(ctx.plan.config.http, (oauth) =>
            runPhases(cell, variant, install, deps, ctx, hooks, record, taken && sharedBind(taken), oauth),
          );
        const measured = taken ? undefined : bindToShare([...results.values()]);
        if (binds && measured) binds.set(bindKey(variant), { variant: variant.id, result: measured });
        const cfg = ctx.plan.config;
        const gapped = (phase: SecretPhase) => ctx.secrets?.gaps.has(phase) === true;
        const folded = await judgeVariantEnvironment({
          env: install.env,
          cellDir: install.cellDir,
          installSet: cell.installSet,
          primary: cell.primary,
          binFile: ctx.plan.bin.file,
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
  const phases = compareJudges(PHASES.map((phase) => results.get(phase) ?? notRun(phase, results, ctx.signal.aborted, stopped)));
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
    ...(clientRef ? { clientInstall: clientRef } : {}),
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
    ...(environment ? { environment } : {}),
    summary,
    durationMs: Math.round(performance.now() - started),
    repro: ctx.repro(cell, variant),
    ...(ctx.keep && install.cellDir ? { cellDir: install.cellDir } : {}),
  };
}

type VariantDeps = { ok: true; client?: ClientInstall; node?: NodeRuntime } | { ok: false; step: string; message: string; why: string };

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

async function runPhases(
  cell: PlannedCell,
  variant: PlannedVariant,
  install: Extract<CellInstall, { kind: 'installed' }>,
  deps: Extract<VariantDeps, { ok: true }>,
  ctx: CellContext,
  hooks: DriverHooks,
  record: (r: PhaseResult) => void,
  bind?: PhaseResult,
  oauth?: OAuthServerSpec,
): Promise<CellResult['summary']> {
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
  const packageDir = path.join(cellDir, 'node_modules', ctx.plan.package.name);
  const bin = path.join(packageDir, ctx.plan.bin.file);
  const secretEnv = (phase: SecretPhase) => ctx.secrets?.env(phase) ?? {};
  const command = (args: string[], env: Record<string, string>, phase: SecretPhase) => ({
    bin,
    args,
    env: { ...env, ...secretEnv(phase) },
  });
  // A variant's Node comes first on PATH, for a server that starts `node` itself.
  const withNode = (env: Record<string, string>) => (deps.node ? withRuntimePath(env, deps.node) : env);
  const conformance = await conformanceOf(ctx);
  const spec: DriverSpec = {
    cellDir,
    packageDir,
    major: variant.client?.major ?? cell.major,
    ...(variant.client ? { clientVersion: variant.client.version } : {}),
    ...(workDir ? { workDir } : {}),
    probe: layout.probe,
    baseEnv: withNode(baseEnv({ ...cfg.env, MCP_MATRIX_CELL: variant.id, MCP_MATRIX_PIN: cell.pin })),
    // A kept spec run again by hand says why it does not run bind.
    skipped: sharedBindSkip(bind) ? { ...cfg.skipped, bind: sharedBindSkip(bind)! } : cfg.skipped,
    client: cfg.client,
    sdkPackages: sdkPackageNames(cfg.majors),
    phases: {
      stdio: cfg.stdio && {
        command: command(cfg.stdio.args, cfg.stdio.env, 'stdio'),
        expect: cfg.stdio.expect,
        steps: cfg.stdio.steps,
        timeoutMs: cfg.stdio.timeoutMs,
      },
      http: cfg.http && {
        command: command(cfg.http.args, cfg.http.env, 'http'),
        host: cfg.http.host,
        path: cfg.http.path,
        steps: cfg.stdio ? cfg.stdio.steps : [],
        readyTimeoutMs: cfg.http.readyTimeoutMs,
        timeoutMs: cfg.http.timeoutMs,
        auth: cfg.http.auth,
        ...(oauth ? { oauth } : {}),
        checks: cfg.http.checks,
      },
      // A bind another variant of this cell measured on this Node is not run again (its result replaces the skip).
      bind: !bind &&
        cfg.bind && {
          command: command(cfg.bind.args, cfg.bind.env, 'bind'),
          dropEnv: cfg.bind.dropEnv,
          timeoutMs: cfg.bind.timeoutMs,
          ...(cfg.bind.path ? { path: cfg.bind.path } : {}),
        },
      conformance: cfg.http &&
        cfg.http.auth !== 'oauth' &&
        conformance?.ok && {
          command: command(cfg.http.args, cfg.http.env, 'conformance'),
          host: cfg.http.host,
          path: cfg.http.path,
          readyTimeoutMs: cfg.http.readyTimeoutMs,
          timeoutMs: cfg.conformance ? cfg.conformance.timeoutMs : 30_000,
          auth: cfg.http.auth,
          suite: {
            package: conformance.value.package,
            version: conformance.value.version,
            node: conformance.value.node,
            nodeVersion: conformance.value.nodeVersion,
            cli: conformance.value.cli,
          },
          scenarios: conformance.value.catalogue.run,
          excluded: conformance.value.catalogue.excluded,
        },
      leaks: cfg.leaks,
    },
  };
  if (ctx.secrets?.mask.length) spec.mask = ctx.secrets.mask;
  // A phase whose secret is not set is not run: its gap (not measured, naming the secret) stands in for it.
  const blocked = new Map<PhaseName, PhaseResult>();
  for (const [phase, gap] of ctx.secrets?.gaps ?? []) {
    if (!spec.phases[phase]) continue;
    spec.phases[phase] = false;
    blocked.set(phase, gap);
  }
  const suiteFailure = conformance && !conformance.ok ? suiteMissing(conformance.error.message) : undefined;
  const outcome = await runDriver(
    layout,
    spec,
    {
      timeoutMs: driverBound(ctx.plan, spec.phases.conformance ? spec.phases.conformance.scenarios.length : 0),
      env: withNode(baseEnv({})),
      signal: ctx.signal,
      ...(deps.node ? { execPath: deps.node.execPath } : {}),
      // A client's driver serves every cell of the run: the first run on a Node release compiles it, the
      // rest load the code cache. A cell's own driver runs once per Node release, so a cache would only cost.
      ...(deps.client ? { compileCacheDir: path.join(ctx.runDir, 'compile-cache') } : {}),
    },
    {
      ...(hooks.onPhaseStart ? { onPhaseStart: hooks.onPhaseStart } : {}),
      onPhaseResult: (r) =>
        record(blocked.get(r.phase) ?? (bind && r.phase === 'bind' ? bind : suiteFailure && r.phase === 'conformance' ? suiteFailure : r)),
    },
  );
  if (outcome.kind === 'done') return outcome.summary;
  const stopped = driverStopped(outcome, ctx.signal.aborted);
  if (stopped) record(stopped);
  return { leakedHandles: null };
}

/** The suite for a run whose config turns the conformance phase on; a run without a provider cannot install it. */
async function conformanceOf(ctx: CellContext): Promise<Result<ConformanceSuite> | undefined> {
  if (!ctx.plan.config.conformance) return undefined;
  if (!ctx.conformanceSuite) return fail('infrastructure', 'no conformance suite was provided to this run');
  return ctx.conformanceSuite();
}

/** A backstop above the sum of every step's own bound: the driver bounds each step itself. */
function driverBound(plan: Plan, scenarios: number): number {
  const c = plan.config;
  const grace = c.leaks ? c.leaks.graceMs : 10_000;
  const stdio = c.stdio ? c.stdio.timeoutMs * (6 + c.stdio.steps.length) + grace : 0;
  // Twice: a port taken by another process is retried once on a new port.
  const http = c.http ? 2 * c.http.readyTimeoutMs + c.http.timeoutMs * 8 + grace : 0;
  const bind = c.bind ? c.bind.timeoutMs : 0;
  const conformance = c.http && c.conformance ? c.http.readyTimeoutMs + c.http.timeoutMs + c.conformance.timeoutMs * scenarios : 0;
  return stdio + http + bind + conformance + 30_000;
}

/** A failed install's result names where npm's tree came from (install reuse falls back to npm's own install). */
function withSource(result: PhaseResult, source: InstallSourceRef): PhaseResult {
  return { ...result, details: { ...result.details, installSource: source } };
}
