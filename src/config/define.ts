// The user-facing config types. `defineConfig` is an identity function: it exists for autocompletion.
import type { Step, SurfaceExpectation } from '../contract/config.js';
import type { CheckLevel } from '../results/types.js';

export type { Step, SurfaceExpectation };

export interface CellConfig {
  /** An exact SDK version (`1.24.0`, `2.0.0`), `latest@N`, `floor` or `floor@N`. */
  pin: string;
  /** Why this cell exists, shown in the table: `lower supported boundary`. */
  role?: string;
  /** Stable id used by `--cell` and in reports. @default the pin, with `@` turned into `-` */
  id?: string;
  /** A failure is shown as allowed; a pass makes the run fail (the allowance is stale). @default false */
  allowedToFail?: boolean;
  /** This cell's client axis; replaces the top-level `clients` (`[]`: none, the cell's own client). */
  clients?: string[];
  /** This cell's Node axis; replaces the top-level `node` (`[]`: none, the host's Node). */
  node?: (number | string)[];
  /**
   * How the cell installs the package: `npm` (its flat node_modules), `pnpm-strict` (pnpm with `hoist=false`:
   * a package resolves only what it declares, as strict users install it) or `yarn-pnp` (Yarn Berry's Plug'n'Play).
   * @default 'npm'
   */
  install?: 'npm' | StrictInstall;
}

/** The strict-install legs: each resolves a package's imports only through what it declares. */
export type StrictInstall = 'pnpm-strict' | 'yarn-pnp';

export interface MajorRecipe {
  /** Packages installed at exactly the pinned version; the first is the one the package declares a range on. */
  pinned: string[];
  /** Packages chosen per pin: the newest version whose peer range on `peerOf` admits the pin. */
  companions?: { name: string; peerOf: string }[];
}

export interface ServerPhaseConfig {
  /** Arguments after the bin; `{host}`, `{port}`, `{token}`, `{cellDir}` and `{tmp}` are substituted. */
  args?: string[];
  /** Extra environment for the server; values are substituted like args. */
  env?: Record<string, string>;
  /** Bound for each step of the phase, in ms. @default 15000 */
  timeoutMs?: number;
}

export interface StdioConfig extends ServerPhaseConfig {
  /** Counts (or exact names) the server must advertise. */
  expect?: SurfaceExpectation;
  /** Scripted tool calls, resource reads and prompt gets with expectations. */
  steps?: Step[];
  /**
   * The level of each sub-check, by id (`session`, `unknown-method`, `unknown-tool`, `invalid-arguments`,
   * `repeated-initialize`, `cancellation`): `'require'` fails the phase, `'warn'` is shown and never fails,
   * `'off'` is not run. @default `'require'` for each
   */
  checks?: Partial<Record<string, CheckLevel>>;
}

export interface HttpConfig extends ServerPhaseConfig {
  /** @default '/mcp' */
  path?: string;
  /** Loopback host the server is told to bind. @default '127.0.0.1' */
  host?: string;
  /** How long the port may take to answer, in ms. @default 15000 */
  readyTimeoutMs?: number;
  /**
   * `'bearer'`: no token and a wrong token must get 401 with `WWW-Authenticate: Bearer`. `'none'`: the server
   * has no auth by design (loopback only); those checks are skipped and shown as "no auth". `'oauth'`: a resource
   * server validating JWT access tokens from the harness's local authorization server (`{issuer}`, `{jwksUri}`,
   * `{audience}` in args and env). @default 'bearer'
   */
  auth?: 'bearer' | 'none' | 'oauth';
  /** With `auth: 'oauth'`: the tokens' audience (default: the endpoint URL) and scopes (default: none). */
  oauth?: { audience?: string; scopes?: string[] };
  /**
   * The level of each sub-check, by id (`origin`, `host`, `protocol-version`, `session-ended-404` …; the list:
   * docs/config.md): `'require'` fails the phase, `'warn'` is shown and never fails, `'off'` is not run.
   * @default a MUST is `'require'`, a SHOULD `'warn'`; `origin` and `host` are `'warn'` when a token guards the endpoint
   */
  checks?: Partial<Record<string, CheckLevel>>;
}

export interface BindConfig extends ServerPhaseConfig {
  /** Environment variables removed for this phase. @default the http env keys whose value holds `{token}` */
  dropEnv?: string[];
}

export interface LeaksConfig {
  /** How long a server may take to exit by itself after stdin EOF or SIGTERM, in ms. @default 10000 */
  graceMs?: number;
  /**
   * A level per sub-check: `shutdown` (every server exits by itself, leaves no process) and `temp-files` (a server
   * leaves nothing in its own temporary directory inside the cell). @default `shutdown` `'require'`, `temp-files` `'warn'`
   */
  checks?: Partial<Record<string, CheckLevel>>;
}

export interface ConformanceConfig {
  /** Bound for one scenario of the suite (its own process), in ms. @default 30000 */
  timeoutMs?: number;
}

export interface EnvironmentConfig {
  /**
   * A level per sub-check: `undeclared-imports` (a package imported on the start path is not declared) and
   * `undeclared-dynamic-imports` (the same for `import()` and guarded requires). @default `'require'` and `'warn'`
   */
  checks?: Partial<Record<string, CheckLevel>>;
}

export interface InstallConfig {
  /** Attempts for network-type install errors (timeouts, resets, 5xx). @default 3 */
  attempts?: number;
  /** Bound for one `npm install`, in ms. @default 300000 */
  timeoutMs?: number;
  /**
   * Reuse a cell's dependency tree from the per-user tree cache when npm, run now, resolves exactly that tree
   * (`false`, or `run --fresh`: a plain `npm install` in every cell). @default true
   */
  reuse?: boolean;
  /**
   * How long, in ms, a local run reuses npm's resolution of a cell and the tree it made, swapping only this run's
   * tarball in (`0`: npm resolves in every run; a run with `CI` set, `--plan` or `--fresh` always resolves). @default 600000
   */
  reuseWindowMs?: number;
}

export interface ClientConfig {
  /**
   * Capabilities the driver's client declares in `initialize`, e.g. `{ roots: { listChanged: true }, sampling: {} }`.
   * @default {} (plus `roots: {}` when `roots` is given)
   */
  capabilities?: Record<string, Record<string, unknown>>;
  /** What the client answers to `roots/list` (`file://` URIs; `{cellDir}` and `{tmp}` are substituted). Declares `roots`. */
  roots?: { uri: string; name?: string }[];
  /**
   * A tool step without `arguments`: `'omit'` leaves the field out (the spec allows it; the SDK's own client does it);
   * refused as invalid params, it is re-sent with `{}` and the step fails naming the difference (SDK 1.30.0–1.31.0
   * servers). `'empty'` sends `arguments: {}` (what hosts such as the Inspector send): the opt-out, which hides that.
   * @default 'omit'
   */
  noArguments?: 'empty' | 'omit';
}

export interface SurfaceConfig {
  /**
   * Surface differences that do not fail the run: an item as reports name it (`tool add`, `prompt draft`,
   * `resource template note`) and optionally a JSON path in it (`inputSchema.required`; its sub-paths match too).
   */
  allow?: { item: string; path?: string }[];
}

export interface ParityConfig {
  /**
   * Differences in recorded values (a step's answer: `stdio tools/call add`, `http tools/call add`; a lifecycle
   * behaviour) that do not fail the run, each with its reason: an item and optionally a JSON path in it
   * (`content[0].mimeType`; its sub-paths match too). An allowance that matches no difference fails the run (stale).
   */
  allow?: { item: string; path?: string; reason: string }[];
}

export interface MatrixConfig {
  /** Directory to `npm pack`, relative to the config file. @default '.' */
  package?: string;
  /** A packed tarball to use instead of packing `package`. */
  tarball?: string;
  /** Which bin of the package to start. @default its only bin */
  bin?: string;
  cells: CellConfig[];
  /**
   * The client axis, crossing every cell: client pins (`1.0.0`, `latest@N`, `floor`, `floor@N`); each variant
   * drives the cell's server with that client (major 1: `@modelcontextprotocol/sdk`, 2: `@modelcontextprotocol/client`).
   * @default none: each cell is driven by its own SDK's client
   */
  clients?: string[];
  /** The Node axis, crossing every cell: majors (`22`, newest release) or exact releases (`22.11.0`). @default none: the host's Node */
  node?: (number | string)[];
  /** Pin → install set recipe per SDK major. @default the major 1 and major 2 recipes of design.md */
  majors?: Record<string, MajorRecipe>;
  /** Environment given to every server process (on top of PATH, HOME and the like); `{cellDir}` and `{tmp}` are substituted. */
  env?: Record<string, string>;
  stdio?: StdioConfig | false;
  http?: HttpConfig | false;
  bind?: BindConfig | false;
  leaks?: LeaksConfig | false;
  /**
   * The official conformance suite's scenarios that need no fixture tools, against the server started as http
   * starts it. On whenever `http` is configured; `false` turns it off. @default {}
   */
  conformance?: ConformanceConfig | false;
  /** The environment phase's sub-checks (the undeclared-import checks). */
  environment?: EnvironmentConfig;
  install?: InstallConfig;
  /** What a mismatch between the declared SDK ranges and the cells is. @default 'error' */
  lockstep?: 'error' | 'warn' | 'off';
  /**
   * A cell's phases side by side, each group on its own copy of the cell's tree, when the run has spare cores (fewer
   * variants at once than cores); a phase that does not pass there is run again alone. `false`: always in turn.
   * @default true
   */
  sideBySide?: boolean;
  /** The driver's MCP client: declared capabilities, roots, how a tool step without arguments is sent. */
  client?: ClientConfig;
  /** Surface parity across cells and the `mcp-surface.json` snapshot; `false` turns both off. @default {} */
  surface?: SurfaceConfig | false;
  /**
   * Secrets the server needs, read from the run's environment (never written in the config): each is given to the
   * phases that need it and masked in every output. When one is not set (a fork's or Dependabot's pull request
   * gets no secrets), those phases are not run and read as not measured, never failed. A name alone needs every
   * server phase. @default []
   */
  secrets?: (string | SecretConfig)[];
  /**
   * A fork's or Dependabot's pull request, which GitHub gives no secrets: `'not-measured'` reports the phases a
   * missing secret kept from running as not measured, loudly, and lets the gate pass on what it did measure (the
   * run on the base repository measures them); `'fail'` fails the gate (the run is not measured, exit 3).
   * @default 'not-measured'
   */
  secretsOnFork?: 'not-measured' | 'fail';
  /**
   * Parity of what the same calls answer (each step's normalised answer) and of lifecycle behaviours, across
   * every cell and variant and against the values in `mcp-surface.json`; `false` turns it off. @default {}
   */
  parity?: ParityConfig | false;
}

export interface SecretConfig {
  /** The environment variable (`API_KEY`). */
  name: string;
  /** The phases that need it. @default every server phase: stdio, http, bind, conformance, leaks */
  phases?: ('stdio' | 'http' | 'bind' | 'conformance' | 'leaks')[];
  /** What a phase that needs it reads as when it is not set: not measured, or skipped (a choice made on purpose). @default 'not-measured' */
  whenAbsent?: 'not-measured' | 'skipped';
}

export type ConfigExport = MatrixConfig | Promise<MatrixConfig> | (() => MatrixConfig | Promise<MatrixConfig>);

/** Identity helper so `matrix.config.ts` gets types and autocompletion. */
export function defineConfig(config: MatrixConfig): MatrixConfig;
export function defineConfig(config: () => MatrixConfig | Promise<MatrixConfig>): () => MatrixConfig | Promise<MatrixConfig>;
export function defineConfig(config: ConfigExport): ConfigExport {
  return config;
}
