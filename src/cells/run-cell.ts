// One cell end to end: fresh dir → install → environment → driver phases → CellResult. Never throws.
import { checkToolSchemas } from './schema-check.js';
import path from 'node:path';
import semver from 'semver';
import type { DriverSpec } from '../driver/protocol.js';
import type { Plan, PlannedCell } from '../plan/plan.js';
import type { Tarball } from '../pack/pack.js';
import { PHASES, type CellResult, type PhaseName, type PhaseResult } from '../results/types.js';
import { decideCellResult } from '../results/verdict.js';
import { installDriver, runDriver, type DriverHooks } from './driver-launch.js';
import { judgeRuntimeSdk, verifyEnvironment, withRuntimeSdk } from './environment.js';
import { installCell } from './install.js';
import { sdkPackageNames } from './sdk-tree.js';
import { createCellDir } from './workspace.js';
import { errorMessage } from '../util/result.js';
import { describeInfraError } from '../util/infra.js';

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
  repro(cell: PlannedCell): string;
}

/** The environment every server and the driver get: enough to run, nothing inherited by accident. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  // MCP_MATRIX_RUN: the run's cookie, which every process the run starts carries (see process/cookie.ts).
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM', 'SystemRoot', 'MCP_MATRIX_RUN'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, ...extra };
}

export async function runCell(cell: PlannedCell, ctx: CellContext, hooks: DriverHooks = {}): Promise<CellResult> {
  const started = performance.now();
  const results = new Map<PhaseName, PhaseResult>();
  const record = (recorded: PhaseResult) => {
    const r = checkToolSchemas(recorded);
    results.set(r.phase, r);
    hooks.onPhaseResult?.(r);
  };
  let environment: CellResult['environment'];
  let summary: CellResult['summary'] = { leakedHandles: null };
  let cellDir: string | undefined;
  try {
    if (ctx.signal.aborted) throw new Error('interrupted');
    hooks.onPhaseStart?.('environment');
    cellDir = await createCellDir(ctx.runDir, cell.id, ctx.plan.package.name, ctx.tarball.file, cell.installSet);
    hooks.onInstallStart?.();
    const install = await installCell(cellDir, {
      attempts: ctx.plan.config.install.attempts,
      timeoutMs: ctx.plan.config.install.timeoutMs,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      signal: ctx.signal,
    });
    hooks.onInstallEnd?.({ ok: install.kind === 'installed', durationMs: install.durationMs, attempts: install.attempts });
    if (install.kind !== 'installed') {
      const what = install.kind === 'failed' ? 'failed' : 'not-measured';
      // npm usually refuses a pin outside a declared peer range (ERESOLVE): say the plain cause first.
      const range = ctx.plan.package.ranges[cell.primary];
      const outside =
        install.kind === 'failed' && range && !semver.satisfies(cell.version, range)
          ? `pin ${cell.primary}@${cell.version} is outside the range "${range}" that ${ctx.plan.package.name} declares; `
          : '';
      const cause = install.kind === 'not-measured' ? install.cause : undefined;
      record({
        phase: 'environment',
        verdict: what,
        durationMs: install.durationMs,
        step: 'npm install',
        message: cause
          ? `${cause} (npm: ${install.message})`
          : `${outside}npm install ${install.kind === 'failed' ? 'failed' : `could not complete after ${install.attempts} attempt(s)`} (${install.code}): ${install.message}`,
        details: { attempts: install.attempts, code: install.code },
      });
    } else {
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
      environment = env.evidence;
      // Shown once the servers' runtime SDK is folded in: the verdict rests on what they loaded.
      results.set('environment', env.result);
      if (!ctx.signal.aborted) summary = await runPhases(cell, cellDir, ctx, hooks, record);
      const cfg = ctx.plan.config;
      const runtime = judgeRuntimeSdk({
        installSet: cell.installSet,
        primary: cell.primary,
        binFile: ctx.plan.bin.file,
        enabled: { stdio: cfg.stdio !== false, http: cfg.http !== false },
        phases: [...results.values()],
      });
      const folded = withRuntimeSdk(env, runtime);
      environment = folded.evidence;
      record(folded.result);
    }
  } catch (error) {
    // The harness's own failure (a full disk while writing the cell, a bug): never the server's.
    const message = ctx.signal.aborted ? 'interrupted' : `harness error: ${describeInfraError(error) ?? errorMessage(error)}`;
    record({ phase: nextPhase(results), verdict: 'not-measured', durationMs: 0, message });
  } finally {
    if (cellDir && !ctx.keep) ctx.dispose(cellDir);
  }
  const phases = PHASES.map((phase) => results.get(phase) ?? notRun(phase, results, ctx.signal.aborted));
  const { verdict, outcome } = decideCellResult(phases, cell.allowedToFail);
  return {
    id: cell.id,
    cell: cell.id,
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
    repro: ctx.repro(cell),
    ...(ctx.keep && cellDir ? { cellDir } : {}),
  };
}

/** The first phase without a result: where the harness stopped. */
function nextPhase(results: Map<PhaseName, PhaseResult>): PhaseName {
  return PHASES.find((p) => !results.has(p)) ?? 'leaks';
}

function notRun(phase: PhaseName, results: Map<PhaseName, PhaseResult>, aborted: boolean): PhaseResult {
  const env = results.get('environment');
  const message = aborted
    ? 'interrupted before this phase ran'
    : env && env.verdict !== 'passed' && env.step === 'npm install'
      ? 'not run: the cell could not be installed'
      : 'not run: the harness stopped before this phase';
  return { phase, verdict: 'not-measured', durationMs: 0, message };
}

async function runPhases(
  cell: PlannedCell,
  cellDir: string,
  ctx: CellContext,
  hooks: DriverHooks,
  record: (r: PhaseResult) => void,
): Promise<CellResult['summary']> {
  const cfg = ctx.plan.config;
  const layout = await installDriver(cellDir);
  const packageDir = path.join(cellDir, 'node_modules', ctx.plan.package.name);
  const bin = path.join(packageDir, ctx.plan.bin.file);
  const command = (args: string[], env: Record<string, string>) => ({ bin, args, env });
  const spec: DriverSpec = {
    cellDir,
    packageDir,
    major: cell.major,
    probe: layout.probe,
    baseEnv: baseEnv({ ...cfg.env, MCP_MATRIX_CELL: cell.id, MCP_MATRIX_PIN: cell.pin }),
    skipped: cfg.skipped,
    client: cfg.client,
    sdkPackages: sdkPackageNames(cfg.majors),
    phases: {
      stdio: cfg.stdio && {
        command: command(cfg.stdio.args, cfg.stdio.env),
        expect: cfg.stdio.expect,
        steps: cfg.stdio.steps,
        timeoutMs: cfg.stdio.timeoutMs,
      },
      http: cfg.http && {
        command: command(cfg.http.args, cfg.http.env),
        host: cfg.http.host,
        path: cfg.http.path,
        steps: cfg.stdio ? cfg.stdio.steps : [],
        readyTimeoutMs: cfg.http.readyTimeoutMs,
        timeoutMs: cfg.http.timeoutMs,
        auth: cfg.http.auth,
      },
      bind: cfg.bind && {
        command: command(cfg.bind.args, cfg.bind.env),
        dropEnv: cfg.bind.dropEnv,
        timeoutMs: cfg.bind.timeoutMs,
        ...(cfg.bind.path ? { path: cfg.bind.path } : {}),
      },
      leaks: cfg.leaks,
    },
  };
  const outcome = await runDriver(
    layout,
    spec,
    { timeoutMs: driverBound(ctx.plan), env: baseEnv({}), signal: ctx.signal },
    {
      ...(hooks.onPhaseStart ? { onPhaseStart: hooks.onPhaseStart } : {}),
      onPhaseResult: record,
    },
  );
  if (outcome.kind === 'done') return outcome.summary;
  // A driver that crashed, was killed or hit the backstop measured nothing more: only the server's
  // own behaviour, reported by the driver, may fail a phase.
  const phase = outcome.current ?? 'stdio';
  if (!outcome.results.some((r) => r.phase === phase)) {
    record({
      phase,
      verdict: 'not-measured',
      durationMs: 0,
      message: ctx.signal.aborted
        ? 'interrupted'
        : `${outcome.message}; the harness could not measure this phase (not a verdict on the server)`,
    });
  }
  return { leakedHandles: null };
}

/** A backstop above the sum of every step's own bound: the driver bounds each step itself. */
function driverBound(plan: Plan): number {
  const c = plan.config;
  const grace = c.leaks ? c.leaks.graceMs : 10_000;
  const stdio = c.stdio ? c.stdio.timeoutMs * (6 + c.stdio.steps.length) + grace : 0;
  // Twice: a port taken by another process is retried once on a new port.
  const http = c.http ? 2 * c.http.readyTimeoutMs + c.http.timeoutMs * 8 + grace : 0;
  const bind = c.bind ? c.bind.timeoutMs : 0;
  return stdio + http + bind + 30_000;
}
