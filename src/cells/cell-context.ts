// What a cell's run gets from the run: the plan, the tarball, where to work, and the instruments the run
// installs once and shares (a client variant's client, a Node variant's runtime, the conformance suite);
// and the cell's server install its variants share.
import type { CacheNote } from '../cache/writable.js';
import type { RunSecrets } from '../judge/secrets.js';
import type { Tarball } from '../pack/pack.js';
import type { EnvironmentEvidence, PhaseResult, PhaseResultOf } from '../results/types.js';
import type { DriverLayout } from './driver-launch.js';
import type { Plan, PlannedCell, PlannedClient, PlannedNode, PlannedVariant } from '../plan/plan.js';
import type { Result } from '../util/result.js';
import type { ClientInstall } from './install/client-install.js';
import type { PnpLayout } from './install/pnp-layout.js';
import type { ConformanceSuite } from './conformance/conformance-suite.js';
import type { NodeRuntime } from './runtime/node-runtime.js';
import type { Returnable } from './install/tree-return.js';
import type { ReuseOutcome } from './install/reuse-install.js';

export interface CellContext {
  plan: Plan;
  tarball: Tarball;
  runDir: string;
  harnessVersion: string;
  npmVersion: string;
  keep: boolean;
  signal: AbortSignal;
  /**
   * Takes a finished cell's directory away off the cell's critical path (the run awaits it before it ends); its
   * `tree`, when given, goes back to the tree cache once the run's processes are gone (tree-return.ts).
   */
  dispose(dir: string, tree?: Returnable): void;
  repro(cell: PlannedCell, variant: PlannedVariant): string;
  /** A client variant's client, installed once per run (shared by every variant that names it). */
  clientInstall?(client: PlannedClient): Promise<Result<ClientInstall>>;
  /** A Node variant's runtime, installed once per release (a per-user cache). */
  nodeRuntime?(node: PlannedNode): Promise<Result<NodeRuntime>>;
  /** The conformance suite, installed once per run (a per-user cache); absent: the conformance phase is not measured. */
  conformanceSuite?(): Promise<Result<ConformanceSuite>>;
  /** npm's cafile for the Yarn cells (npmCaForYarn), asked once per run, on the first Yarn cell; absent: each asks. */
  yarnCa?(cellDir: string): Promise<Record<string, string>>;
  /** The config's secrets in this run's environment; absent: the config declares none. */
  secrets?: RunSecrets;
  /** The tree cache's root (install reuse); undefined: every cell is a plain npm install. */
  treeCache?: string;
  /** The reuse window in ms (issue 34): absent or 0, npm resolves every cell now (CI, `--plan`, `--fresh`). */
  reuseWindowMs?: number;
  /** A variant's phases may run side by side, each group on its own copy of the cell's tree (the run has spare cores). */
  sideBySide?: boolean;
  /** A cell's variants on different Node releases may run side by side, each on its own copy of the tree (src/orchestrator/cell-lanes.ts). */
  variantsBeside?: boolean;
  /** Hears that the tree cache could not be written (the run's warnings, one line per cache). */
  cacheNote?(note: CacheNote): void;
  /**
   * Lays out an npm cell's tree instead of npm (the tests' cells installed once per dependency set,
   * test/e2e/helpers/fixture-cell.ts); absent: npm installs it. What follows the install is the same.
   */
  install?: CellInstaller;
}

/** An npm cell's tree made by other means than npm's install: what installReusing would return. */
export type CellInstaller = (cellDir: string, cell: PlannedCell, ctx: CellContext) => Promise<ReuseOutcome>;

/** The cell's server install, shared by its variants: installed and verified once, or why not. */
export type CellInstall =
  | {
      kind: 'installed';
      cellDir: string;
      installMs: number;
      /** From the cell's directory made to its driver shipped: the install, the environment's static check, the ship. */
      readyMs: number;
      attempts: number;
      /** The static half of the environment check (the runtime half is each variant's). */
      env: { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence };
      /** The driver shipped into the cell: the one a variant without a client axis runs. */
      driver: DriverLayout;
      /** The cell's tree is a tree cache entry's: what it needs to go back at the run's end. */
      returnable?: Returnable;
      /** A Yarn PnP cell: where the package is and how a program starts under PnP (absent: a node_modules cell). */
      pnp?: PnpLayout;
    }
  | { kind: 'not-installed'; cellDir?: string; installMs: number; attempts?: number; environment: PhaseResult };
