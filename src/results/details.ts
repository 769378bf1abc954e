// What each phase records as its `details` in results.json: one named shape per phase (PhaseDetails), so
// that reports and judges read fields, never cast a bag. Evidence only shown as JSON stays `unknown`.

import type { InstallSourceRef, SdkRuntime } from './evidence.js';

/** A configured step that failed on its answer: its compared item, its label, and whether only `isError` failed it. */
export interface FailedStep {
  item: string;
  step: string;
  /** No `expect`, and the tool answered `isError: true` (src/driver/client/steps.ts). */
  unexpectedIsError?: true;
}

/** A request the server sent to the client during the phase, and what the client answered (`result`, `error <code> …`). */
export interface SeenRequest {
  method: string;
  answer: string;
}

/** A second judge's check whose outcome differs from mcp-matrix's own check of the same requirement. */
export interface Disagreement {
  /** The second judge's check: `conformance › dns-rebinding-protection`. */
  theirs: string;
  theirOutcome: string;
  /** Ours: `http › origin`. */
  ours: string;
  ourOutcome: string;
}

/** Details any phase may carry: added after the phase by the driver's runner, the judges, the phase share. */
export interface CommonDetails {
  /** Values run-level parity compares, by item (src/contract/compared.ts). */
  compared?: Record<string, unknown>;
  /** The configured steps whose answer failed their check (the phase failed at the first). */
  failedSteps?: FailedStep[];
  /** Items the split-steps judge already judged as contested (src/judge/split-steps.ts). */
  contestedSteps?: string[];
  /** Requests the server made of the client during the phase. */
  serverRequests?: SeenRequest[];
  /** A phase run once per cell and Node release: the variant that measured it (src/judge/phase-share.ts). */
  measuredBy?: string;
  measuredMs?: number;
  shared?: string;
  /** A phase run side by side that did not pass there, run again alone: this is the lone run's result (src/judge/side-by-side.ts). */
  confirmedAlone?: { why: string; beside: { verdict: string; message?: string } };
  /** A second judge disagreed with an own check (src/judge/second-judge.ts). */
  disagreements?: Disagreement[];
}

/** A bare import Node could not find when a server started, classified (src/judge/missing-import.ts). */
export interface MissingImport {
  /** The package Node could not find (`zod`). */
  package: string;
  /** The importing package and the file, relative to it (absent when the stderr line was cut before it). */
  importer?: { name: string; version: string; file?: string };
  /** Where the importer declares it, if it does. */
  declaredIn?: 'dependencies' | 'peerDependencies' | 'optionalDependencies';
  /** `outside-packages`: the importing file (absolute), which is in no installed package. */
  file?: string;
  /**
   * `peer-not-provided`, `pnp-escaped`: Yarn PnP's (a peer no ancestor provides; a resolution PnP's hooks never saw);
   * `outside-packages`: the importer is outside node_modules (a script the server wrote, a user's file).
   */
  case: 'own-undeclared' | 'dependency-undeclared' | 'declared-not-installed' | 'peer-not-provided' | 'pnp-escaped' | 'outside-packages';
}

/** What the stdio and http phases' servers tell of the install: the SDK they loaded, an import they missed. */
export interface ServerDetails {
  /** What each of the phase's servers loaded (src/driver/sdk-runtime.ts). */
  sdkRuntime?: SdkRuntime[];
  /** Why a failed server could not start, when Node could not find an import. */
  missingImport?: MissingImport;
}

/** `details.lifecycle`: the lifecycle sub-checks' wall time, and each one run with the waits it made by design. */
export interface LifecycleTimes {
  durationMs: number;
  /** http: opening the checks' own session (initialize, notifications/initialized), inside `durationMs`. */
  sessionMs?: number;
  checks: { id: string; durationMs: number; waits?: LifecycleWait[] }[];
}

/** A wait a lifecycle check made by design (for a late answer, up to its deadline). */
export interface LifecycleWait {
  for: string;
  ms: number;
  deadlineMs?: number;
}

/** What the lifecycle checks record in their phase's details. */
export interface LifecycleDetails {
  compared?: Record<string, unknown>;
  lifecycle?: LifecycleTimes;
}

/** A listed item's shape (a tool's required arguments, a resource's URI), for `mcp-matrix init`. */
export interface ItemShape {
  name: string;
  /** Tools: required argument names with their JSON type; prompts: required argument names. */
  arguments?: Record<string, string>;
  /** Resources: the URI; templates: the URI template. */
  uri?: string;
}

export interface EnvironmentDetails extends CommonDetails {
  /** Every SDK copy of the tree, `name@version`. */
  sdk?: string[];
  sdkClaim?: string;
  /** Each problem of a failed check, one line each. */
  problems?: string[];
  /** The runtime half of the check: what the servers loaded (src/judge/runtime-sdk.ts). */
  runtime?: { verdict: 'passed' | 'failed' | 'not-measured'; messages?: string[] };
  /** Servers that ran on another Node than the variant's (src/judge/node-engines.ts). */
  nodeMismatch?: string[];
  /** A failed install: npm's attempts and exit code, and where its tree came from. */
  attempts?: number;
  code?: string | number | null;
  installSource?: InstallSourceRef;
}

export interface StdioDetails extends CommonDetails, ServerDetails {
  pid?: number;
  serverInfo?: unknown;
  protocolVersion?: string;
  capabilities?: unknown;
  /** Listed names by kind (`null`: the kind is not supported). */
  surface?: Record<string, string[] | null>;
  shapes?: Record<string, ItemShape[]>;
  /** What run-level surface parity and the snapshot compare (src/results/surface.ts). */
  parity?: Record<string, unknown>;
  /** Each configured step's outcome (timings, arguments sent). */
  steps?: unknown[];
  lifecycle?: LifecycleTimes;
}

/** One of the http column's sub-checks in its table words: `text` goes into the message, `short` into the cell. */
export interface HttpTableCheck {
  /** `n/a`: the challenge is judged only on a refusal (a 4xx). `not run`: the server had exited (`text` says so). */
  outcome: 'ok' | 'failed' | 'no auth' | 'n/a' | 'not run';
  text: string;
  short: string;
  /** The step to name when this sub-check is the first that failed. */
  step?: string;
  /** `{ exited: 'code 7' }` on the check that met the server's exit. */
  evidence?: Record<string, unknown>;
}

/** The http column's checks in its own words (`auth: 'oauth'`: the resource-server checks too, each with its id). */
export interface HttpTableChecks {
  noToken: HttpTableCheck;
  wwwAuthenticate: HttpTableCheck;
  wrongToken: HttpTableCheck;
  roundTrip: HttpTableCheck;
  oauth?: (HttpTableCheck & { id: string })[];
}

/** A request's status and its challenge, as the refusal checks saw them. */
export interface HttpProbe {
  status: number;
  wwwAuthenticate: string | null;
}

export interface PortRace {
  port: number;
  cause: string;
}

export interface HttpDetails extends CommonDetails, ServerDetails {
  port?: number;
  url?: string;
  auth?: string;
  /** The port race the phase retried after. */
  retriedAfter?: PortRace;
  /** Both attempts met a port race. */
  portRaces?: PortRace[];
  issuer?: string;
  jwksUri?: string;
  audience?: string;
  authorizationServerRetriedAfter?: string;
  pid?: number;
  /** How the listener was recognised as the server's. */
  identity?: string;
  listener?: { pid: number; cmdline: string };
  readyMs?: number;
  unauthenticated?: HttpProbe;
  wrongToken?: HttpProbe;
  oauth?: unknown;
  specChecksMs?: number;
  hostAllowlist?: string;
  roundTrip?: boolean;
  /** The round trip's evidence (when it passed). */
  protocolVersion?: string;
  tools?: number;
  call?: { step: string; ms: number };
  lifecycle?: LifecycleTimes;
  /** The MCP revision every check was judged by. */
  judgedBy?: string;
  /** The four checks the HTTP column shows in its own words. */
  checks?: HttpTableChecks;
}

/** How the bind phase ended (the table reads `loopback-only`). */
export type BindOutcome =
  | 'refused'
  | 'loopback-only'
  | 'listened'
  | 'tried-to-listen'
  | 'could-not-start'
  | 'crashed'
  | 'exited-0'
  | 'killed-by-signal'
  | 'never-listened'
  | 'cannot-spawn'
  | 'port-race';

export interface BindDetails extends CommonDetails {
  port?: number;
  pid?: number;
  host?: string;
  hostGiven?: boolean;
  portRaces?: PortRace[];
  exitCode?: number | null;
  signal?: string | null;
  exitMs?: number;
  stderrLine?: string;
  listened?: unknown;
  attempted?: unknown;
  startFailure?: unknown;
  unauthenticated?: unknown;
  unauthenticatedWithLoopbackHost?: unknown;
  outcome?: BindOutcome;
  listens?: unknown[];
}

/** A conformance scenario as the details list it. */
export interface ScenarioDetail {
  name: string;
  verdict: string;
  level?: string;
  message?: string;
  durationMs?: number;
}

export interface ConformanceDetails extends CommonDetails {
  suite?: { package: string; version: string; node?: string };
  url?: string;
  auth?: string;
  excluded?: unknown;
  proxy?: { url: string; adds: string; forwarded?: unknown };
  capabilities?: unknown;
  scenarios?: ScenarioDetail[];
  notAdvertised?: { name: string; why: string }[];
}

export interface LeaksDetails extends CommonDetails {
  servers?: unknown[];
  escaped?: unknown[];
  escapedCheck?: string;
  driverHandles?: unknown[];
  graceMs?: number;
  tempFiles?: { role: string; pid: number | undefined; dir: string; left: string[] }[];
}

/** Each phase's details, by phase name. */
export interface PhaseDetails {
  environment: EnvironmentDetails;
  stdio: StdioDetails;
  http: HttpDetails;
  bind: BindDetails;
  conformance: ConformanceDetails;
  leaks: LeaksDetails;
}
