// The contract between the orchestrator and the driver in a cell: a DriverSpec in a JSON file, DriverMessages back
// over IPC (never stdout: the v2 client prints there). Types only, so nothing here is needed inside the cell.

import type { CellSummary, CheckLevel, PhaseName, PhaseResult } from '../results/types.js';
import type { ClientSpec, Step, SurfaceExpectation } from './config.js';

export type { ClientSpec, Step, SurfaceExpectation };

/**
 * A phase's check levels: one for every check the catalogue holds in that phase, as config/resolve.ts resolved them.
 * The driver defaults none: a missing or unknown id is a protocol error (driver/spec-levels.ts).
 */
export type CheckLevels = Readonly<Record<string, CheckLevel>>;

export interface ServerCommand {
  /** Absolute path of the bin file inside the cell. */
  bin: string;
  args: string[];
  env: Record<string, string>;
}

export interface DriverSpec {
  cellDir: string;
  /** Absolute path of the installed package directory (`<cell>/node_modules/<name>`), for leak attribution. */
  packageDir: string;
  /** The major of the client the driver runs (the cell's own SDK, or a client variant's): the adapter picks its imports from it. */
  major: number;
  /** The client's exact version (a client variant's resolved pin); absent: the adapter reads the installed one. */
  clientVersion?: string;
  /**
   * This driver run's own directory for `{tmp}` and the probe's records; absent: `<cellDir>/.mcp-matrix`.
   * Variants of one cell run at once in the cell's install, each in its own work dir.
   */
  workDir?: string;
  /** Absolute path of the probe preloaded into every server process (`--import`). */
  probe: string;
  /** Base environment for every server process (already minimal; config env is merged on top). */
  baseEnv: Record<string, string>;
  /** Why a `false` phase is skipped (`not configured`, `disabled`): the message of its skipped result. */
  skipped?: Partial<Record<PhaseName, string>>;
  /**
   * Results the harness knew before the driver started (a secret not set, a bind another variant measured, a
   * conformance suite that could not be installed): each is reported as it is, in its phase's turn, the phase not run.
   */
  standIns?: Partial<Record<PhaseName, PhaseResult>>;
  /** Every server tag of this driver run starts with it (default `<MCP_MATRIX_CELL>:`): runs side by side sweep only their own. */
  tagPrefix?: string;
  /** Values masked in every output like the tokens (the config's secrets, read from the environment). */
  mask?: string[];
  /** The client the phases connect with; absent means no capabilities, no roots, a missing `arguments` left out. */
  client?: ClientSpec;
  /** The SDK package names (every major's recipe): the probe in the stdio and http servers records which copies of them load. */
  sdkPackages?: string[];
  phases: {
    stdio:
      | false
      | {
          command: ServerCommand;
          expect: SurfaceExpectation;
          steps: Step[];
          timeoutMs: number;
          /** Every sub-check's level (`session` and the lifecycle edges), resolved by the harness: one missing is a protocol error. */
          checks: CheckLevels;
        };
    http:
      | false
      | {
          /** Args/env still hold `{host}`, `{port}`, `{token}`: the driver substitutes them. */
          command: ServerCommand;
          host: string;
          path: string;
          steps: Step[];
          readyTimeoutMs: number;
          timeoutMs: number;
          /**
           * `none`: the server has no auth by design; the 401 checks are skipped (shown as "no auth"). Default `bearer`.
           * `oauth`: a resource server validating JWT access tokens from `oauth`'s authorization server.
           */
          auth?: 'bearer' | 'none' | 'oauth';
          /** With `auth: 'oauth'`: the harness's local authorization server for this run, or why there is none. */
          oauth?: OAuthServerSpec;
          /** Every sub-check's level, resolved by the harness for this `auth`: one missing is a protocol error. */
          checks: CheckLevels;
        };
    bind:
      | false
      | {
          command: ServerCommand;
          /** Env keys removed for this phase (the token variables). */
          dropEnv: string[];
          timeoutMs: number;
          /** Where a non-loopback listen is asked, without a token, what it serves (http's path). @default '/mcp' */
          path?: string;
        };
    leaks: false | { graceMs: number; checks: CheckLevels };
    /** The official conformance suite against the server started as http starts it; absent or false: skipped. */
    conformance?:
      | false
      | {
          command: ServerCommand;
          host: string;
          path: string;
          readyTimeoutMs: number;
          /** Per scenario (the suite's own run) and for the capability look-up. */
          timeoutMs: number;
          auth?: 'bearer' | 'none' | 'oauth';
          /** With `auth: 'oauth'`: the run's authorization server, whose valid token the proxy adds (or why there is none). */
          oauth?: OAuthServerSpec;
          /**
           * The suite as the harness installed it: the Node >= 22 binary, its CLI, its pinned version; `compileCache`:
           * where that Node keeps the code it compiled (NODE_COMPILE_CACHE), absent when there is none to use.
           */
          suite: { package: string; version: string; node: string; nodeVersion: string; cli: string; compileCache?: string };
          /** The scenarios that need none of the suite's fixtures (those needing a capability run only when it is advertised). */
          scenarios: { name: string; capability?: string; unauthenticatedOnly?: true; endsProcess?: true }[];
          /** The scenarios never run here, with why: shown in the details. */
          excluded: { name: string; why: string }[];
        };
  };
}

/** The http phase's part of the spec when it runs: what http.ts and the modules split from it are handed. */
export type HttpSpec = Exclude<DriverSpec['phases']['http'], false>;

/** The local authorization server (src/cells/authorization-server.ts), as the driver reaches it. */
/** The tokens the driver sends, each for one sub-check. */
export interface TestTokens {
  /** Right issuer, key, audience and lifetime: must give a full round trip. */
  valid: string;
  /** For an audience no server under test is (RFC 8707). */
  otherAudience: string;
  /** Expired an hour ago. */
  expired: string;
  /** Signed by a key the JWKS does not hold, under the JWKS key's own `kid`. */
  otherKey: string;
  /** `alg: none`, no signature. */
  algNone: string;
}

export type OAuthServerSpec =
  | {
      issuer: string;
      jwksUri: string;
      /** Where the driver asks for its test tokens (POST `{ audience, key }`). */
      tokensUrl: string;
      /** The secret that endpoint asks for (masked in every output, like the tokens). */
      tokensKey: string;
      /** The audience the tokens are for; `{host}`/`{port}` are filled in. Absent: the endpoint's URL (RFC 8707 canonical URI). */
      audience?: string;
      /** Its first port was taken (why): it was retried on another. */
      retriedAfter?: string;
    }
  | { unavailable: string };

export type DriverMessage =
  | { type: 'phase-start'; phase: PhaseName }
  | { type: 'phase-result'; result: PhaseResult }
  /** Every server process group the driver starts, so the orchestrator can kill it whatever happens. */
  | { type: 'spawned'; pid: number; phase: PhaseName }
  | { type: 'reaped'; pid: number }
  | { type: 'done'; summary: CellSummary }
  | { type: 'fatal'; message: string; stack?: string };
