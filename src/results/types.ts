// The shape of results.json: the source of truth every report is rendered from.
// Bump RESULTS_SCHEMA_VERSION on any breaking change to these types.

import type { LeakedHandle, EnvironmentEvidence } from './evidence.js';
import type { PhaseDetails } from './details.js';

export type { LeakedHandle, InstalledPackage, SdkRuntime, EnvironmentEvidence, InstallSourceRef } from './evidence.js';
export type * from './details.js';

export const RESULTS_SCHEMA_VERSION = 2;

export type PhaseName = 'environment' | 'stdio' | 'http' | 'bind' | 'conformance' | 'leaks';
export const PHASES: readonly PhaseName[] = ['environment', 'stdio', 'http', 'bind', 'conformance', 'leaks'];

/** The result of phase `name` among `phases`, typed as that phase's (its details are that phase's). */
export function findPhase<P extends PhaseName>(phases: readonly PhaseResult[], name: P): PhaseResultOf<P> | undefined {
  return phases.find((p) => p.phase === name) as PhaseResultOf<P> | undefined;
}

export type Verdict = 'passed' | 'failed' | 'not-measured' | 'skipped';

/** How a cell is shown: a failure of an `allowedToFail` cell is an allowed failure; a pass is a stale allowance. */
export type CellOutcome = 'passed' | 'failed' | 'allowed-failure' | 'stale-allowance' | 'not-measured';

/** A sub-check's level: `require` fails its phase, `warn` is shown and never fails, `off` is not run. */
export type CheckLevel = 'require' | 'warn' | 'off';

/**
 * A sub-check's outcome: a verdict, or
 * - `not-applicable`: the MCP revision the cell negotiated does not have the requirement (it came later, or was
 *   removed);
 * - `contested`: measured, but not judged on one row: a configured step that answered `isError: true` on some rows
 *   and not on others, with no `expect` to say which is right (src/judge/split-steps.ts). The answer parity finding
 *   that names both answers fails the run instead (docs/phases.md, "A step the cells disagree on").
 * Both are shown and recorded, never failed, never passed (`decidePhase`).
 */
export type CheckOutcome = Verdict | 'not-applicable' | 'contested';

/**
 * What a check rests on: a keyword of the source it cites (`MUST`, `SHOULD`), or, where no spec makes it one,
 * `SDK default` (what the SDKs do by default, e.g. Host validation); absent: the harness's own expectation.
 */
export type Requirement = 'MUST' | 'SHOULD' | 'SDK default';

/**
 * One reported sub-check of a phase (the catalogue of known ids and their requirements:
 * src/contract/checks.ts). A phase that records `checks` has exactly the verdict they fold to
 * (`decidePhase`, audited by verdict.ts).
 */
export interface SubCheckResult {
  /** The check's id, e.g. `origin`, `protocol-version`, `oauth-audience`: what `<phase>.checks` in the config names. */
  id: string;
  /**
   * `skipped`: not run for this server (no auth, no session issued, DELETE refused) or `off`; `not-applicable`: the
   * negotiated MCP revision does not have the requirement; `contested`: the rows disagree on `isError` alone and the
   * step has no `expect` (the parity finding judges it). The message says which.
   */
  outcome: CheckOutcome;
  level: CheckLevel;
  /** The requirement's strength; absent: the harness's own expectation (the configured round trip). */
  requirement?: Requirement;
  /**
   * Where the requirement is written: `{ revision: 'MCP 2025-06-18', section: 'basic/transports#security-warning' }`;
   * for an MCP requirement, the revision the check was judged by (`revision`), when one was negotiated.
   */
  spec?: { revision: string; section: string };
  /** The MCP revision the cell negotiated, which an MCP requirement was judged by: `2025-03-26`. */
  revision?: string;
  /** What was seen, naming the true cause: `a foreign Origin (http://evil.example) got 200 (want 403)`. */
  message: string;
  /** The table cell's text, when the message is too long for it: `200 (want 403)`. */
  short?: string;
  /** The step to name when this check decides the phase's failure. */
  step?: string;
  /** What was sent and what came back (statuses, headers), token masked. */
  evidence?: Record<string, unknown>;
  /** Who judged: absent for mcp-matrix's own checks; e.g. `@modelcontextprotocol/conformance@0.1.9` for a second judge. */
  judge?: string;
  /** The id of an mcp-matrix check that judges the same requirement (set by a second judge, so reports can compare). */
  sameAs?: string;
}

/** What every phase result has, whatever its phase. */
export interface PhaseResultBase {
  verdict: Verdict;
  durationMs: number;
  /** One line naming the cause when the verdict is not `passed`. */
  message?: string;
  /** The step inside the phase that failed or timed out, e.g. `initialize`, `tools/call add-note`. */
  step?: string;
  /** Last lines of the server's stderr (token redacted), when relevant. */
  stderrTail?: string;
  /** Lines the server wrote to stdout that were not JSON-RPC (bounded). */
  stdoutNoise?: string[];
  /** The phase's sub-checks, every one of them (warn and off included), in report order. */
  checks?: SubCheckResult[];
}

/**
 * The result of phase `P` (of each, for a union): its evidence (counts, timings, handles, http statuses …) is
 * its own shape (details.ts).
 */
export type PhaseResultOf<P extends PhaseName> = P extends PhaseName ? PhaseResultBase & { phase: P; details?: PhaseDetails[P] } : never;

/** A phase's result, told apart by `phase`: `if (r.phase === 'http') r.details?.checks` reads a typed field. */
export type PhaseResult = PhaseResultOf<PhaseName>;

export interface CellSummary {
  serverName?: string;
  serverVersion?: string;
  protocolVersion?: string;
  tools?: number;
  resources?: number;
  resourceTemplates?: number;
  prompts?: number;
  /** `null` when the leaks phase did not measure. */
  leakedHandles: LeakedHandle[] | null;
  /** The driver's peak RSS: server output is captured in bounded buffers, whatever a server writes. */
  driverPeakRssMb?: number;
}

/** The client a variant drives the server with, when it is not the cell's own SDK (the `clients` axis). */
export interface ClientRef {
  /** As configured: `1.0.0`, `latest@2`, `floor@1` … */
  pin: string;
  major: number;
  /** The exact version installed. */
  version: string;
  /** `@modelcontextprotocol/sdk` (1.x) or `@modelcontextprotocol/client` (2.x). */
  package: string;
}

/** The Node runtime a variant runs the driver and the servers on (the `node` axis). */
export interface NodeRef {
  /** As configured: `22` or `22.11.0`. */
  spec: string;
  /** The exact release, e.g. `22.11.0`. */
  version: string;
}

/** One variant of a cell: cell × client × Node. Absent axes mean the cell's own client and the host's Node. */
/** Where a client variant's client came from: the per-user client cache (reused or installed by this run), or an install of the run's own (cache off). */
export interface ClientInstallRef {
  source: 'cache' | 'installed' | 'run';
  /** sha256 of the client install's package-lock.json: the exact client tree the driver loaded. */
  lockfileSha256: string;
  installedAt: string;
  /** The cache entry, relative to the client cache (`<key>/<entry>`; no user paths in evidence); absent when the run installed its own. */
  cacheEntry?: string;
}

export interface VariantRef {
  /** `<cell id>[~client-<pin>][~node-<spec>]`, e.g. `latest-2~client-1.0.0~node-22`; the cell id alone without axes. */
  id: string;
  client?: ClientRef;
  node?: NodeRef;
}

/** One row of results: a variant of a cell (without axes, the cell itself: `id === cell`). */
export interface CellResult {
  /** The variant id (see VariantRef). */
  id: string;
  /** The id of the cell (the server install) this variant ran in. */
  cell: string;
  client?: ClientRef;
  /** How the variant's client was installed (client variants only). */
  clientInstall?: ClientInstallRef;
  node?: NodeRef;
  pin: string;
  role?: string;
  major: number;
  /** The exact SDK version the pin resolved to. */
  version: string;
  allowedToFail: boolean;
  /** Exact versions installed next to the tarball, by package name. */
  installSet: Record<string, string>;
  verdict: Verdict;
  outcome: CellOutcome;
  phases: PhaseResult[];
  environment?: EnvironmentEvidence;
  summary: CellSummary;
  /** Absent: the driver ran the phases in turn. Else the groups it ran side by side, each on its own copy of the tree, and the phases run again alone (src/judge/side-by-side.ts). `inTurn`: the phases of the groups whose copy could not be made, run after the others alone on the cell's own tree. `variantsBeside`: the variant's one driver ran on a copy of the tree beside the cell's other variants. */
  phaseRuns?: { sideBySide: string[][]; confirmedAlone: string[]; inTurn?: string[]; variantsBeside?: true };
  durationMs: number;
  /** The command that reproduces this cell alone. */
  repro: string;
  /** Kept cell directory (only with --keep). */
  cellDir?: string;
}

export interface PlannedCellRef {
  id: string;
  /** Every variant the plan expands this cell into (one, with the cell's id, when there are no axes). */
  variants: VariantRef[];
  pin: string;
  role?: string;
  version: string;
  major: number;
  allowedToFail: boolean;
  installSet: Record<string, string>;
}

export interface RunResult {
  schemaVersion: typeof RESULTS_SCHEMA_VERSION;
  tool: { name: 'mcp-matrix'; version: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  interrupted: boolean;
  plan: {
    /** sha256 of the resolved plan (config + resolved cells); pieces of one plan share it. */
    configHash: string;
    configFile?: string;
    /** The config's directory inside its git checkout (`.` at its root, `packages/server`); absent outside git. */
    configDir?: string;
    /** The package's directory relative to the config's (`.`, `fixtures/server`); absent when the config names a tarball. */
    packageDir?: string;
    /** `commit`: the source commit (`-dirty` when the tree had changes), when known. */
    package: { name: string; version: string; commit?: string };
    tarball: { file: string; size: number; sha512: string };
    cells: PlannedCellRef[];
    /** Ids of the cells this run was asked for (`--cell`); absent when every planned cell ran. */
    selected?: string[];
    /** The registry look-ups this plan reused within the reuse window (install.reuseWindowMs), with their age. */
    lookedUp?: { name: string; lookedUpAt: string; ageMs: number }[];
  };
  host: { node: string; npm: string; os: string; ci?: string };
  cells: CellResult[];
  /** passed | failed | not-measured | interrupted */
  verdict: 'passed' | 'failed' | 'not-measured' | 'interrupted';
  exitCode: 0 | 1 | 2 | 3 | 130;
  warnings: string[];
  /** Lockstep errors that failed the run (`lockstep: 'error'`); also listed in `warnings`. */
  lockstepErrors?: string[];
  /** The baseline of known failures the run was judged with (`--baseline`, default mcp-matrix.baseline.json). */
  baseline?: { file: string; entries: BaselineEntry[] };
  /** Surface parity across the cells and drift from the snapshot; absent with `surface: false`. */
  surface?: SurfaceCheck;
  /** Parity of what the cells recorded (step answers, lifecycle behaviours) across cells; absent with `parity: false`. */
  parity?: ParityCheck;
}

/** A known failure: cell × phase, optionally only when the message matches `message` (a regular expression). */
export interface BaselineEntry {
  cell: string;
  phase: PhaseName;
  message?: string;
  reason: string;
  /** The line of the baseline file the entry starts on (to name the line to delete). */
  line: number;
}

/** A surface difference the config allows: an item (`tool add`) and, optionally, a JSON path in it. */
export interface SurfaceAllowance {
  item: string;
  path?: string;
}

export interface SurfaceCheck {
  /** Ids of the cells whose stdio run recorded a surface (the ones compared). */
  cells: string[];
  /** Differences between cells the config does not allow: each fails the run. */
  findings: string[];
  /** Differences the config allows: shown, never failing. */
  allowed: string[];
  /** The config's allowances, so that merge recomputes parity across pieces the same way. */
  allow: SurfaceAllowance[];
  /** Differences from the committed mcp-surface.json (absent when there is none): each fails the run. */
  drift?: string[];
}

/** A parity difference the config allows: a compared item (`stdio tools/call add`) and, optionally, a JSON path in it. */
export interface ParityAllowance {
  item: string;
  path?: string;
  /** Why it may differ (shown beside the allowed difference). */
  reason: string;
}

/** Parity of the values the cells' phases recorded under `details.compared` (see src/results/parity.ts). */
export interface ParityCheck {
  /** Ids of the rows that recorded any value (the ones compared). */
  cells: string[];
  /** The items compared (recorded by at least one row), e.g. `stdio tools/call add`. */
  items: string[];
  /** Differences between rows the config does not allow: each fails the run. */
  findings: string[];
  /** Differences the config allows: shown, never failing. */
  allowed: string[];
  /** Allowances that matched no difference: each fails the run until it is deleted. */
  stale: string[];
  /** The config's allowances, so that merge recomputes parity across pieces the same way. */
  allow: ParityAllowance[];
  /** Differences from the values in the committed mcp-surface.json (absent when it has none): each fails the run. */
  drift?: string[];
}
