// The config → driver spec translation: what one variant's driver is told to run (commands, bounds, the
// environment every server gets), from the resolved config and where the variant's install lives. The
// driver reads nothing else of the config, so a kept spec run again by hand runs the same phases.
import path from 'node:path';
import { conformanceRun, type ResolvedConfig } from '../config/resolve.js';
import type { SecretPhase } from '../contract/config.js';
import type { DriverSpec, OAuthServerSpec } from '../contract/protocol.js';
import { SHARED_PHASES, sharedSkip, type SharedResults } from '../judge/phase-share.js';
import type { RunSecrets } from '../judge/secrets.js';
import { sdkPackageNames } from '../judge/environment/sdk-tree.js';
import type { PlannedCell, PlannedVariant } from '../plan/plan.js';
import type { PhaseName, PhaseResult } from '../results/types.js';
import type { ConformanceSuite } from './conformance/conformance-suite.js';
import type { PnpLayout } from './install/pnp-layout.js';
import { withRuntimePath, type NodeRuntime } from './runtime/node-runtime.js';

/** The environment every server and the driver get: enough to run, nothing inherited by accident. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  // MCP_MATRIX_RUN: the run's cookie, which every process the run starts carries (see process/cookie.ts).
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM', 'SystemRoot', 'MCP_MATRIX_RUN'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, ...extra };
}

/** A variant's Node comes first on PATH, for a server that starts `node` itself. */
export function withVariantNode(env: Record<string, string>, node: NodeRuntime | undefined): Record<string, string> {
  return node ? withRuntimePath(env, node) : env;
}

export interface SpecInput {
  config: ResolvedConfig;
  packageName: string;
  /** The package's bin file, relative to its directory. */
  binFile: string;
  cell: Pick<PlannedCell, 'pin' | 'major'>;
  variant: Pick<PlannedVariant, 'id' | 'client'>;
  cellDir: string;
  /** A variant's own work directory (absent: the cell's own driver, as without axes). */
  workDir?: string;
  probe: string;
  node?: NodeRuntime;
  /** Another variant's bind or conformance on this Node (judge/phase-share.ts): not run again. */
  shared?: SharedResults;
  oauth?: OAuthServerSpec;
  /** The installed conformance suite (absent: the phase is off; false: the suite could not be installed). */
  conformance?: ConformanceSuite | false;
  /** The suite that could not be installed: its not-measured result stands in for the conformance phase. */
  suiteMissing?: PhaseResult;
  /** The phases whose secret is not set in this run's environment, each with its gap (not measured, naming the secret). */
  gaps?: ReadonlyMap<SecretPhase, PhaseResult>;
  /** The config's secrets in this run's environment: each phase gets the ones it needs. */
  secrets?: Pick<RunSecrets, 'env'>;
  /** A Yarn PnP cell: the package's directory, and the `node` options every server starts with (as `yarn run`). */
  pnp?: Pick<PnpLayout, 'packageDir' | 'nodeOptions'>;
}

export function driverSpec(input: SpecInput): DriverSpec {
  const spec = phaseSpec(input);
  // Each phase switched once, here: a result known now stands in for a phase that would have run (a secret
  // gap), or that will not (a bind or conformance another variant measured, a suite that could not be installed).
  const standIns: Partial<Record<PhaseName, PhaseResult>> = {};
  if (input.suiteMissing) standIns.conformance = input.suiteMissing;
  Object.assign(standIns, input.shared);
  for (const [phase, gap] of input.gaps ?? []) {
    if (!spec.phases[phase]) continue;
    spec.phases[phase] = false;
    standIns[phase] = gap;
  }
  return Object.keys(standIns).length > 0 ? { ...spec, standIns } : spec;
}

function phaseSpec(input: SpecInput): DriverSpec {
  const { config: cfg, cell, variant, cellDir, workDir, shared = {}, oauth, conformance } = input;
  const packageDir = input.pnp?.packageDir ?? path.join(cellDir, 'node_modules', input.packageName);
  const bin = path.join(packageDir, input.binFile);
  const secretEnv = (phase: SecretPhase) => input.secrets?.env(phase) ?? {};
  const command = (args: string[], env: Record<string, string>, phase: SecretPhase) => ({
    bin,
    args,
    env: withPnp({ ...env, ...secretEnv(phase) }, input.pnp?.nodeOptions),
  });
  const suite = conformanceRun(cfg);
  // http and conformance start the server alike, as http is configured (with the run's OAuth server, if any).
  const httpServer = (http: Exclude<ResolvedConfig['http'], false>, phase: SecretPhase) => ({
    command: command(http.args, http.env, phase),
    host: http.host,
    path: http.path,
    readyTimeoutMs: http.readyTimeoutMs,
    auth: http.auth,
    ...(oauth ? { oauth } : {}),
  });
  // A kept spec run again by hand says why it does not run a phase another variant measured.
  const skipped: Partial<Record<string, string>> = { ...cfg.skipped };
  for (const phase of SHARED_PHASES) {
    const why = sharedSkip(shared[phase]);
    if (why) skipped[phase] = why;
  }
  return {
    cellDir,
    packageDir,
    major: variant.client?.major ?? cell.major,
    ...(variant.client ? { clientVersion: variant.client.version } : {}),
    ...(workDir ? { workDir } : {}),
    probe: input.probe,
    baseEnv: withVariantNode(baseEnv({ ...cfg.env, MCP_MATRIX_CELL: variant.id, MCP_MATRIX_PIN: cell.pin }), input.node),
    skipped,
    client: cfg.client,
    sdkPackages: sdkPackageNames(cfg.majors),
    phases: {
      stdio: cfg.stdio && {
        command: command(cfg.stdio.args, cfg.stdio.env, 'stdio'),
        expect: cfg.stdio.expect,
        steps: cfg.stdio.steps,
        timeoutMs: cfg.stdio.timeoutMs,
        checks: cfg.stdio.checks,
      },
      http: cfg.http && {
        ...httpServer(cfg.http, 'http'),
        steps: cfg.stdio ? cfg.stdio.steps : [],
        timeoutMs: cfg.http.timeoutMs,
        checks: cfg.http.checks,
      },
      // bind or conformance another variant of this cell measured on this Node is not run again (its result replaces the skip).
      bind: !shared.bind &&
        cfg.bind && {
          command: command(cfg.bind.args, cfg.bind.env, 'bind'),
          dropEnv: cfg.bind.dropEnv,
          timeoutMs: cfg.bind.timeoutMs,
          ...(cfg.bind.path ? { path: cfg.bind.path } : {}),
        },
      conformance: !shared.conformance &&
        suite &&
        conformance && {
          ...httpServer(suite.http, 'conformance'),
          timeoutMs: suite.timeoutMs,
          suite: {
            package: conformance.package,
            version: conformance.version,
            node: conformance.node,
            nodeVersion: conformance.nodeVersion,
            cli: conformance.cli,
            ...(conformance.compileCache ? { compileCache: conformance.compileCache } : {}),
          },
          scenarios: conformance.catalogue.run,
          excluded: conformance.catalogue.excluded,
        },
      leaks: cfg.leaks,
    },
  };
}

/** PnP's hooks first in NODE_OPTIONS (as `yarn run` puts them), the config's own options after them. */
export function withPnp(env: Record<string, string>, nodeOptions: string | undefined): Record<string, string> {
  if (!nodeOptions) return env;
  return { ...env, NODE_OPTIONS: [nodeOptions, env.NODE_OPTIONS].filter(Boolean).join(' ') };
}

/** A backstop above the sum of every step's own bound: the driver bounds each step itself. */
export function driverBound(c: ResolvedConfig, scenarios: number): number {
  const grace = c.leaks ? c.leaks.graceMs : 10_000;
  const stdio = c.stdio ? c.stdio.timeoutMs * (6 + c.stdio.steps.length) + grace : 0;
  // Twice: a port taken by another process is retried once on a new port.
  const http = c.http ? 2 * c.http.readyTimeoutMs + c.http.timeoutMs * 8 + grace : 0;
  const bind = c.bind ? c.bind.timeoutMs : 0;
  const suite = conformanceRun(c);
  const conformance = suite ? suite.http.readyTimeoutMs + suite.http.timeoutMs + suite.timeoutMs * scenarios : 0;
  return stdio + http + bind + conformance + 30_000;
}
