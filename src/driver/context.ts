// What every phase shares: the spec, the redacting sender, the servers started so far, the summary,
// and small helpers that turn waits and errors into PhaseResults instead of exceptions.

import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { PhaseName, PhaseResult, PhaseResultOf } from '../results/types.js';
import { AnsweredServers } from './server/answering.js';
import { DEFAULT_CLIENT, loadAdapter, type SdkAdapter } from './client/adapter.js';
import type { SeenRequest } from './client/adapter-observe.js';
import type { DriverMessage, DriverSpec, ServerCommand } from '../contract/protocol.js';
import { makeCookie, RUN_COOKIE_VAR, SERVER_TAG_VAR } from '../contract/cookie.js';
import { asyncIdMark, type ProbeHandle } from './probe/probe.js';
import { startTime, type ProcInfo } from './server/proc.js';
import type { EscapedProcess } from './server/escaped.js';
import type { Redactor } from './server/redact.js';
import { SDK_PACKAGES_ENV } from './probe/sdk-load.js';
import { ServerProcess, type ExitInfo } from './server/process.js';
import { withServerTemp } from './server/temp.js';
import { settledWithin } from './timer-verdict.js';

export type Summary = Extract<DriverMessage, { type: 'done' }>['summary'];
export type ServerRole = 'stdio' | 'http' | 'bind' | 'conformance';

export interface ServerRecord {
  role: ServerRole;
  proc: ServerProcess;
  /** Its MCP_MATRIX_SERVER value: what its descendants carry, escaped or not. */
  tag: string;
  /** Its shutdown, once waited for (leaks.ts `settleOnce`): the next phase starts after it, the leaks phase judges it. */
  settled?: Promise<Settled>;
  /** Its own TMPDIR and XDG dirs (server/temp.ts): what it leaves there is a leaks finding. */
  tempDir?: string;
}

/** A server's shutdown as the leaks phase judges it (phases/leaks.ts `settle`). */
export interface Settled {
  role: string;
  pid: number | undefined;
  /** ms from the stop request (EOF / SIGTERM) to exit; null when it had to be killed. */
  exitMs: number | null;
  code?: number | null;
  signal?: string | null;
  handles: ProbeHandle[];
  leftovers: ProcInfo[];
  /** Without /proc: its group still answered kill(-pgid, 0) after the grace, but its members cannot be listed. */
  unlistedGroup?: true;
  problem?: string;
  /** Why its shutdown could not be judged (the driver stalled across its bound): a `not-measured` cause. */
  unmeasured?: string;
  /** Its descendants outside its group still alive at the deadline (killed); only when there are some. */
  escaped?: EscapedProcess[];
}

/** With leaks disabled, servers still get this long to exit before they are killed: nothing is orphaned. */
export const UNJUDGED_GRACE_MS = 5000;

/** A server that died while the driver's client waited for its answer to `request` (that phase failed for it). */
export interface DiedMidRequest {
  role: ServerRole;
  pid: number | undefined;
  /** The step that was waiting: `tools/call crash`, `initialize`, `list tools` … */
  request: string;
  /** What the driver created from the request until it saw the server gone: async ids in (from, to]. */
  from: number;
  to: number;
}

/**
 * Where the client's current request began: a phase calls `begin` before each request, and `diedUnder`
 * once it sees the server gone while that request waited (see `DiedMidRequest`).
 */
export class RequestWindow {
  step: string;
  private from = asyncIdMark();
  constructor(step: string) {
    this.step = step;
  }

  begin(step: string): void {
    this.step = step;
    this.from = asyncIdMark();
  }

  diedUnder(ctx: DriverContext, role: ServerRole, proc: ServerProcess): void {
    ctx.diedMidRequest.push({ role, pid: proc.pid, request: this.step, from: this.from, to: asyncIdMark() });
  }
}

export class DriverContext {
  readonly spec: DriverSpec;
  readonly redactor: Redactor;
  readonly send: (message: DriverMessage) => void;
  readonly servers: ServerRecord[] = [];
  readonly summary: Summary = { leakedHandles: null };
  /** The phase running now: server→client requests are recorded under it. */
  phase: PhaseName | undefined;
  /** Per phase that opened a client session: every request the server sent to the client, with the answer. */
  readonly serverRequests = new Map<PhaseName, SeenRequest[]>();
  /** Servers that answered initialize, with their group then: which of its processes answered, and what it loaded. */
  readonly answered = new AnsweredServers();
  /** Servers that died under an in-flight request: what the client still holds from it is not a leak of its own. */
  readonly diedMidRequest: DiedMidRequest[] = [];
  /** Resolves once every message sent so far has left the process. */
  flush: () => Promise<void> = async () => {};
  /** The run's cookie (a driver started by hand makes its own), given to every server. */
  readonly cookie: string;
  /** Every server tag of this cell starts with this: parallel cells share the run's cookie. */
  readonly tagPrefix: string;
  private adapterPromise: Promise<SdkAdapter> | undefined;
  private counter = 0;

  constructor(spec: DriverSpec, redactor: Redactor, send: (message: DriverMessage) => void) {
    this.spec = spec;
    this.redactor = redactor;
    this.send = send;
    this.cookie = process.env[RUN_COOKIE_VAR] || makeCookie(process.pid, startTime(process.pid));
    this.tagPrefix = spec.tagPrefix ?? `${spec.baseEnv.MCP_MATRIX_CELL ?? 'cell'}:`;
  }

  /** How long a server may take to exit after its stop request: leaks.graceMs, or the unjudged bound. */
  get graceMs(): number {
    const { leaks } = this.spec.phases;
    return leaks ? leaks.graceMs : UNJUDGED_GRACE_MS;
  }

  adapter(): Promise<SdkAdapter> {
    this.adapterPromise ??= loadAdapter(
      { major: this.spec.major, version: this.spec.clientVersion },
      {
        ...(this.spec.client ?? DEFAULT_CLIENT),
        onServerRequest: (seen) => this.requestsOfPhase()?.push(seen),
      },
    ).then((adapter) => ({
      ...adapter,
      session: (timeoutMs: number) => {
        this.requestsOfPhase();
        return adapter.session(timeoutMs);
      },
    }));
    return this.adapterPromise;
  }

  private requestsOfPhase(): SeenRequest[] | undefined {
    if (!this.phase) return undefined;
    let list = this.serverRequests.get(this.phase);
    if (!list) this.serverRequests.set(this.phase, (list = []));
    return list;
  }

  startServer(role: ServerRole, command: ServerCommand, env: Record<string, string>): ServerProcess {
    const work = this.spec.workDir ?? join(this.spec.cellDir, '.mcp-matrix');
    const dir = join(work, 'probe');
    mkdirSync(dir, { recursive: true });
    // Only servers that answer are asked what they load (module hooks cost start-up time).
    const watchSdk = role !== 'bind' && this.spec.sdkPackages?.length;
    const tag = `${this.tagPrefix}${role}#${++this.counter}`;
    // Its own TMPDIR and XDG dirs inside the cell (server/temp.ts): the harness's TMPDIR is the host's.
    mkdirSync(join(work, 'server-tmp'), { recursive: true });
    const tempDir = mkdtempSync(join(work, 'server-tmp', `${role}-${this.counter}-`));
    const proc = new ServerProcess({
      bin: command.bin,
      args: command.args,
      // The cookie and tag last, so no config env can drop them.
      env: {
        ...withServerTemp(tempDir, env, process.env.TMPDIR),
        ...(watchSdk ? { [SDK_PACKAGES_ENV]: JSON.stringify(this.spec.sdkPackages) } : {}),
        [RUN_COOKIE_VAR]: this.cookie,
        [SERVER_TAG_VAR]: tag,
      },
      probe: this.spec.probe,
      probeFile: join(dir, `${role}-${this.counter}.jsonl`),
      packageDir: this.spec.packageDir,
      cellDir: this.spec.cellDir,
      protocolStdout: role === 'stdio',
      onSpawned: (pid) => this.send({ type: 'spawned', pid, phase: role }),
      onReaped: (pid) => this.send({ type: 'reaped', pid }),
      clip: (text, max, cut) => this.redactor.clip(text, max, cut),
    });
    this.servers.push({ role, proc, tag, tempDir });
    return proc;
  }
}

/**
 * The phase result when the client could not be loaded. The cell's own SDK is the server's install (failed);
 * a client variant's client is an install of the harness's own, not the server's doing (not-measured).
 */
export function clientLoadFailure(ctx: DriverContext, error: Error): Pick<PhaseResult, 'verdict' | 'step' | 'message'> {
  const own = ctx.spec.clientVersion === undefined;
  return {
    verdict: own ? 'failed' : 'not-measured',
    step: 'load the client',
    message: own ? `${errorText(error)} (the cell's own SDK)` : errorText(error),
  };
}

export class StepTimeout extends Error {
  constructor(ms: number, what: string) {
    super(`timed out after ${ms} ms waiting for ${what}`);
    this.name = 'StepTimeout';
  }
}

/** Bounds any promise; the SDK's own request timeout should fire first, this is the backstop. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  // A result read in the turn after a late timer (a stalled process) is that result, not a timeout.
  const outcome = await settledWithin<T, typeof TIMED_OUT>(promise, ms, () => TIMED_OUT);
  if (outcome === TIMED_OUT) throw new StepTimeout(ms, what);
  return outcome;
}

const TIMED_OUT: unique symbol = Symbol('timed out');

/** How a failed request names the server's exit, when it exited under it: ` (the server exited with code 1; see its stderr)`. */
export function exitNote(exit: ExitInfo | null): string {
  return exit ? ` (the server exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}; see its stderr)` : '';
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits for `event` at most `ms`; the timer is cleared when the event wins, so no stray timer outlives the wait. */
export function waitAtMost(event: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    event.then(done, done);
  });
}

/** What a phase decides of its result: all of it but its name and duration. */
export type PhaseFields<P extends PhaseName> = Omit<PhaseResultOf<P>, 'phase' | 'durationMs'>;

/** Fills in duration, stderr tail and stdout noise from the server, when there is one. */
export function result<P extends PhaseName>(phase: P, startedAt: number, fields: PhaseFields<P>, proc?: ServerProcess): PhaseResultOf<P> {
  // TypeScript does not see a generic P's fields and name make P's result (it does for each P).
  const out = { phase, durationMs: Date.now() - startedAt, ...fields } as PhaseResultOf<P>;
  if (proc) {
    const tail = proc.stderr.tail();
    if (tail && out.verdict === 'failed') out.stderrTail = tail;
    if (proc.noise.lines.length) out.stdoutNoise = [...proc.noise.lines];
  }
  return out;
}

/** `{host}`, `{port}`, `{token}` and the authorization server's `{issuer}`, `{jwksUri}`, `{audience}` in args and env values. */
export function substitute(values: Record<string, string>, text: string): string {
  return text.replace(/\{(host|port|token|issuer|jwksUri|audience)\}/g, (m, key: string) => values[key] ?? m);
}

export function commandFor(
  command: ServerCommand,
  baseEnv: Record<string, string>,
  values: Record<string, string>,
  drop: string[] = [],
): { command: ServerCommand; env: Record<string, string> } {
  const env: Record<string, string> = { ...baseEnv };
  for (const [k, v] of Object.entries(command.env)) env[k] = substitute(values, v);
  for (const key of drop) delete env[key];
  return { command: { ...command, args: command.args.map((a) => substitute(values, a)) }, env };
}
