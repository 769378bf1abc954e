// Apply defaults once; nothing downstream reads the raw config.
import path from 'node:path';
import type { ClientSpec } from '../contract/config.js';
import type { CheckLevel } from '../results/types.js';
import { CHECKS, defaultLevel, type CheckPhase } from '../contract/checks.js';
import type { ParityAllowance } from '../results/types.js';
import type { CellConfig, MajorRecipe, MatrixConfig, Step, StrictInstall, SurfaceExpectation } from './define.js';
import { cellIdOf } from './schema-rules.js';
import { DEFAULT_MAJORS } from './majors.js';
import type { LoadedConfig } from './load.js';
import type { ForkPolicy, SecretPhase, SecretSpec } from '../contract/config.js';
import { sha256 } from '../util/sha256.js';
import { fail, ok, type Result } from '../util/result.js';

export { DEFAULT_MAJORS };

/** A secret named without its phases is needed by every phase that starts the server. */
export const SECRET_PHASES: readonly SecretPhase[] = ['stdio', 'http', 'bind', 'conformance', 'leaks'];

export const DEFAULT_HTTP_ARGS = ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'];
export const DEFAULT_HTTP_ENV = { MCP_SERVER_TOKEN: '{token}' };
export const DEFAULT_BIND_ARGS = ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'];

export interface ResolvedCell extends Required<Omit<CellConfig, 'role' | 'clients' | 'node' | 'install'>> {
  role?: string;
  /** A strict install (absent: npm's, so a config without it hashes as it always did). */
  install?: StrictInstall;
  /** The cell's client axis (its own list, else the top-level one); absent when there is none. */
  clients?: string[];
  /** The cell's Node axis as specs (`22`, `22.11.0`); absent when there is none. */
  node?: string[];
}

/** How the stdio, http and bind phases start the server: what their resolved parts share. */
export interface ServerStart {
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
}

export interface ResolvedConfig {
  file: string;
  dir: string;
  /** `packageDir` of a tarball source: the config's package directory that `--tarball` stands in for (locations in reports). */
  source: { kind: 'directory'; dir: string } | { kind: 'tarball'; file: string; packageDir?: string };
  bin?: string;
  cells: ResolvedCell[];
  majors: Record<string, MajorRecipe>;
  env: Record<string, string>;
  stdio:
    | false
    | (ServerStart & {
        expect: SurfaceExpectation;
        steps: Step[];
        /** Each sub-check's level (the session and the lifecycle edges), defaults applied. */
        checks: Record<string, CheckLevel>;
      });
  http:
    | false
    | (ServerStart & {
        path: string;
        host: string;
        readyTimeoutMs: number;
        auth: 'bearer' | 'none' | 'oauth';
        /** With `auth: 'oauth'`: what the tokens carry (audience absent: the endpoint URL). */
        oauth?: { audience?: string; scopes: string[] };
        /** Every http sub-check's level, defaults applied (src/contract/checks.ts). */
        checks: Record<string, CheckLevel>;
      });
  bind: false | (ServerStart & { dropEnv: string[]; path?: string });
  leaks: false | { graceMs: number; checks: Record<string, CheckLevel> };
  /** The environment's sub-check levels (the undeclared-import checks); only when declared, so a config without it hashes as before. */
  environment?: { checks: Record<string, CheckLevel> };
  /** On by default whenever http is configured (the suite tests the server's HTTP endpoint). */
  conformance: false | { timeoutMs: number };
  /** Why each `false` phase is skipped: left out of the config, or set to `false`. */
  skipped: Partial<Record<ConfigPhase | 'conformance', SkipReason>>;
  install: { attempts: number; timeoutMs: number; reuse: boolean; reuseWindowMs: number };
  lockstep: 'error' | 'warn' | 'off';
  /** Only when declared (a config without it hashes as before): phases side by side when the run has spare cores. */
  sideBySide?: boolean;
  client: ClientSpec;
  /** Surface parity and the snapshot (mcp-surface.json next to the config); `false` turns both off. */
  surface: false | { allow: { item: string; path?: string }[] };
  /** The secrets the servers need from the environment (names only, never values); absent when none. */
  secrets?: SecretSpec[];
  /** Only when declared (the default, 'not-measured', hashes as a config without it). */
  secretsOnFork?: ForkPolicy;
  /** Parity of recorded values (step answers, lifecycle behaviours) across cells and the snapshot; `false` turns it off. */
  parity: false | { allow: ParityAllowance[] };
}

export type ConfigPhase = 'stdio' | 'http' | 'bind' | 'leaks';
/** A phase absent from the config is never guessed at (no default args that time out): it is skipped. */
export type SkipReason = 'not configured' | 'disabled' | 'no http phase' | 'off: MCP_MATRIX_CONFORMANCE';
export const CONFIG_PHASES: readonly ConfigPhase[] = ['stdio', 'http', 'bind', 'leaks'];

export interface Overrides {
  tarball?: string;
  /** `MCP_MATRIX_CONFORMANCE=off`: the conformance phase is off for the run. */
  conformanceOff?: boolean;
}

export function resolveConfig(loaded: LoadedConfig, overrides: Overrides = {}, cwd = process.cwd()): ResolvedConfig {
  const { config: c, dir, file } = loaded;
  const source: ResolvedConfig['source'] = overrides.tarball
    ? {
        kind: 'tarball',
        file: path.resolve(cwd, overrides.tarball),
        ...(c.tarball ? {} : { packageDir: path.resolve(dir, c.package ?? '.') }),
      }
    : c.tarball
      ? { kind: 'tarball', file: path.resolve(dir, c.tarball) }
      : { kind: 'directory', dir: path.resolve(dir, c.package ?? '.') };
  const http = c.http === undefined || c.http === false ? false : resolveHttp(c.http);
  const skipped: ResolvedConfig['skipped'] = {};
  for (const phase of CONFIG_PHASES) {
    if (c[phase] === undefined) skipped[phase] = 'not configured';
    else if (c[phase] === false) skipped[phase] = 'disabled';
  }
  const conformance = conformanceSwitch(c.conformance, http !== false, overrides.conformanceOff === true);
  if (typeof conformance === 'string') skipped.conformance = conformance;
  return {
    file,
    dir,
    source,
    ...(c.bin ? { bin: c.bin } : {}),
    cells: c.cells.map((cell) => {
      // Only a non-empty axis is recorded, so that a config without axes hashes as it always did.
      const clients = cell.clients ?? c.clients ?? [];
      const node = (cell.node ?? c.node ?? []).map(String);
      const strict = cell.install && cell.install !== 'npm' ? cell.install : undefined;
      return {
        pin: cell.pin,
        ...(cell.role ? { role: cell.role } : {}),
        id: cellIdOf(cell),
        allowedToFail: cell.allowedToFail ?? false,
        ...(strict ? { install: strict } : {}),
        ...(clients.length > 0 ? { clients } : {}),
        ...(node.length > 0 ? { node } : {}),
      };
    }),
    majors: { ...DEFAULT_MAJORS, ...(c.majors ?? {}) },
    env: c.env ?? {},
    stdio: !c.stdio
      ? false
      : {
          args: c.stdio.args ?? [],
          env: c.stdio.env ?? {},
          timeoutMs: c.stdio.timeoutMs ?? 15_000,
          expect: c.stdio.expect ?? {},
          steps: c.stdio.steps ?? [],
          checks: resolveChecks('stdio', 'none', c.stdio.checks ?? {}),
        },
    http,
    bind: !c.bind
      ? false
      : {
          // Unless given its own, bind starts the server as http does, with the host swapped to a non-loopback one.
          args: c.bind.args ?? (http ? http.args.map((a) => swapLoopbackHost(a, http.host)) : DEFAULT_BIND_ARGS),
          env: c.bind.env ?? (http ? mapValues(http.env, (v) => swapLoopbackHost(v, http.host)) : {}),
          timeoutMs: c.bind.timeoutMs ?? 10_000,
          dropEnv: c.bind.dropEnv ?? tokenEnvKeys(http ? http.env : DEFAULT_HTTP_ENV),
          ...(http ? { path: http.path } : {}),
        },
    leaks: !c.leaks ? false : { graceMs: c.leaks.graceMs ?? 10_000, checks: resolveChecks('leaks', 'none', c.leaks.checks ?? {}) },
    conformance: typeof conformance === 'string' ? false : conformance,
    skipped,
    install: {
      attempts: c.install?.attempts ?? 3,
      timeoutMs: c.install?.timeoutMs ?? 300_000,
      reuse: c.install?.reuse ?? true,
      reuseWindowMs: c.install?.reuseWindowMs ?? 600_000,
    },
    lockstep: c.lockstep ?? 'error',
    client: resolveClient(c.client ?? {}),
    surface: c.surface === false ? false : { allow: c.surface?.allow ?? [] },
    // Only when declared, so that a config without secrets hashes as it always did.
    ...(c.secrets?.length
      ? {
          secrets: c.secrets.map((s) =>
            typeof s === 'string'
              ? { name: s, phases: [...SECRET_PHASES], whenAbsent: 'not-measured' as const }
              : { name: s.name, phases: s.phases ?? [...SECRET_PHASES], whenAbsent: s.whenAbsent ?? 'not-measured' },
          ),
        }
      : {}),
    ...(c.secretsOnFork ? { secretsOnFork: c.secretsOnFork } : {}),
    ...(c.sideBySide !== undefined ? { sideBySide: c.sideBySide } : {}),
    ...(c.environment?.checks ? { environment: { checks: resolveChecks('environment', 'none', c.environment.checks) } } : {}),
    parity: c.parity === false ? false : { allow: c.parity?.allow ?? [] },
  };
}

/**
 * The conformance phase's one switch. Not a phase to configure on its own: it runs wherever http does, each
 * scenario within its bound, unless the config or MCP_MATRIX_CONFORMANCE=off turns it off (the reason).
 */
function conformanceSwitch(c: MatrixConfig['conformance'], http: boolean, envOff: boolean): { timeoutMs: number } | SkipReason {
  if (c === false) return 'disabled';
  if (!http) return 'no http phase';
  if (envOff) return 'off: MCP_MATRIX_CONFORMANCE';
  return { timeoutMs: c?.timeoutMs ?? 30_000 };
}

/** What the conformance phase runs when its switch is on: its bound, and the server as http starts it. */
export function conformanceRun(
  config: Pick<ResolvedConfig, 'conformance' | 'http'>,
): false | { timeoutMs: number; http: Exclude<ResolvedConfig['http'], false> } {
  // resolveConfig turned it on only with http; the check narrows the type, it decides nothing.
  return config.conformance !== false && config.http !== false && { timeoutMs: config.conformance.timeoutMs, http: config.http };
}

/** Configured roots imply the `roots` capability; `{}` is what hosts send for a tool without arguments. */
function resolveClient(c: NonNullable<MatrixConfig['client']>): ClientSpec {
  const capabilities = { ...(c.capabilities ?? {}) };
  if (c.roots && !capabilities.roots) capabilities.roots = {};
  return { capabilities, roots: c.roots ?? [], noArguments: c.noArguments ?? 'omit' };
}

function resolveHttp(h: NonNullable<Exclude<MatrixConfig['http'], false>>): Exclude<ResolvedConfig['http'], false> {
  return {
    args: h.args ?? DEFAULT_HTTP_ARGS,
    env: h.env ?? DEFAULT_HTTP_ENV,
    timeoutMs: h.timeoutMs ?? 15_000,
    path: h.path ?? '/mcp',
    host: h.host ?? '127.0.0.1',
    readyTimeoutMs: h.readyTimeoutMs ?? 15_000,
    auth: h.auth ?? 'bearer',
    ...(h.auth === 'oauth'
      ? { oauth: { ...(h.oauth?.audience ? { audience: h.oauth.audience } : {}), scopes: h.oauth?.scopes ?? [] } }
      : {}),
    checks: resolveChecks('http', h.auth ?? 'bearer', h.checks ?? {}),
  };
}

/** Every check of the phase at its configured level, else its default for this `auth`. */
export function resolveChecks(phase: CheckPhase, auth: string, levels: Partial<Record<string, CheckLevel>>): Record<string, CheckLevel> {
  return Object.fromEntries(CHECKS.filter((c) => c.phase === phase).map((c) => [c.id, levels[c.id] ?? defaultLevel(c, auth)]));
}

/** The environment checks' levels: the declared ones, else every default (the config keeps them out to hash as before). */
export function environmentLevels(c: Pick<ResolvedConfig, 'environment'>): Record<string, CheckLevel> {
  return c.environment?.checks ?? resolveChecks('environment', 'none', {});
}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/;

/**
 * An http arg or env value that names the loopback host (`127.0.0.1`, `--host=localhost`) becomes
 * `{host}`, which the bind phase fills with a non-loopback host; `{host}` itself already is.
 */
export function swapLoopbackHost(value: string, httpHost: string): string {
  const eq = value.indexOf('=');
  const head = eq >= 0 ? value.slice(0, eq + 1) : '';
  const tail = eq >= 0 ? value.slice(eq + 1) : value;
  return tail === httpHost || LOOPBACK_HOST.test(tail) ? `${head}{host}` : value;
}

function mapValues(record: Record<string, string>, f: (v: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));
}

/** The variables that carry the token (or the authorization server's coordinates): a bind check must run without them. */
function tokenEnvKeys(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([, v]) => /\{(token|issuer|jwksUri|audience)\}/.test(v))
    .map(([k]) => k);
}

/**
 * The run's reuse window in ms, or undefined when the run resolves now: with `CI` set, `--fresh`, a frozen plan
 * (`run --plan`) or install.reuse off, whatever the window. Else `MCP_MATRIX_REUSE_WINDOW_MS` (an integer ≥ 0) for this
 * run, whatever the config says, or install.reuseWindowMs. Read here, not resolved into the config: not in its hash.
 */
export function reuseWindowFor(
  config: ResolvedConfig,
  run: { fresh?: boolean | undefined; frozen?: unknown },
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  if (env.CI || run.fresh || run.frozen || !config.install.reuse) return undefined;
  const set = windowFromEnv(env);
  const ms = set.ok && set.value !== undefined ? set.value : config.install.reuseWindowMs;
  return ms > 0 ? ms : undefined;
}

/** MCP_MATRIX_REUSE_WINDOW_MS: unset or empty is none; anything but an integer ≥ 0 is a usage error naming it. */
export function windowFromEnv(env: NodeJS.ProcessEnv = process.env): Result<number | undefined> {
  const set = env.MCP_MATRIX_REUSE_WINDOW_MS?.trim();
  if (!set) return ok(undefined);
  if (/^\d+$/.test(set) && Number.isSafeInteger(Number(set))) return ok(Number(set));
  return fail(
    'usage',
    `MCP_MATRIX_REUSE_WINDOW_MS=${JSON.stringify(env.MCP_MATRIX_REUSE_WINDOW_MS)}: not a whole number of milliseconds ≥ 0 (600000 is 10 minutes); unset it to take the config's install.reuseWindowMs`,
  );
}

/** Identity of what is measured: the same config gives the same hash on any machine. */
export function hashConfig(config: ResolvedConfig): string {
  // Where the package comes from (a directory or a tarball packed from it) is not part of the identity:
  // the tarball's own sha512 is recorded beside the hash.
  const { file: _file, dir: _dir, source: _source, ...rest } = config;
  return sha256(JSON.stringify(rest));
}
