// bind phase: started on a non-loopback host with no token, the server must refuse (exit non-zero by
// itself) before any socket opens. Watched while it runs (probe records + /proc), not only afterwards.
// Every listen is classified: a non-loopback one (wildcard or routable) fails and is the one named;
// loopback ones are context. A non-loopback listen that failed (EADDRINUSE on a fixed port) was an
// attempt to expose itself and fails too. A server that only ever listens on loopback exposed nothing:
// "loopback only", a pass of its own name (docs/phases.md gives the rule). A crash while loading is
// "could not start", never a refusal. EADDRINUSE on the harness's port is a race only if the server did
// not hold that port itself.

import { realpathSync } from 'node:fs';
import type { PhaseResult, Verdict } from '../../results/types.js';
import { commandFor, result, sleep, waitAtMost, type DriverContext } from '../context.js';
import {
  askWithoutToken,
  classifiedListens,
  describeListen,
  failedListens,
  freePort,
  listenAddress,
  ownListenOn,
  takeTestPort,
  TEST_BIND_PORTS_ENV,
  type ClassifiedListen,
  type FailedListen,
  type Unauthenticated,
} from '../listen-watch.js';
import type { DriverSpec } from '../protocol.js';
import { isNodeScript, type ServerProcess } from '../server-process.js';
import { portInUse, spawnFailure, startFailure, type StartFailure } from '../start-failure.js';

type BindSpec = Exclude<DriverSpec['phases']['bind'], false>;

/** How the phase ended, recorded as `details.outcome` (additive; the table reads `loopback-only`). */
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

const POLL_MS = 20;
/** How long a server whose non-loopback listen failed gets to exit of it (the usual crash) before it is killed. */
const ATTEMPT_EXIT_MS = 500;
const HOST = '0.0.0.0';
/** Asked to bind without a token: no token, and none of an authorization server's coordinates either. */
const NO_CREDENTIALS = (port: number): Record<string, string> => ({
  host: HOST,
  port: String(port),
  token: '',
  issuer: '',
  jwksUri: '',
  audience: '',
});

async function exitsWithin(proc: ServerProcess, ms: number): Promise<boolean> {
  await waitAtMost(proc.exited, ms);
  return !proc.running;
}

/** Cell paths in an error are noise: `node_modules/pkg/dist/x.js` reads better than `/tmp/…/cell-x/node_modules/…`. */
export function relative(text: string, dirs: string[]): string {
  let out = text;
  for (const dir of dirs) {
    const d = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // A path inside it loses the prefix; the directory itself (`imported from /tmp/…/cell/`) reads `.`.
    out = out.replace(new RegExp(`(file://)?${d}/(?=[^\\s'"])`, 'g'), '').replace(new RegExp(`(file://)?${d}/?`, 'g'), '.');
  }
  return out;
}

/** The cell directory as given and as the runtime names it (a symlinked temp dir resolves). */
function cellDirs(ctx: DriverContext): string[] {
  try {
    return [...new Set([ctx.spec.cellDir, realpathSync(ctx.spec.cellDir)])];
  } catch {
    return [ctx.spec.cellDir];
  }
}

/**
 * What a request without a token got, and what that means. A refusal is a token of its own only when
 * it is one: a 403 that a loopback `Host` name turns into an answer is a Host allowlist (anyone who
 * sends that name gets in), and a 403 without a Bearer challenge may be an Origin or Host allowlist.
 */
export function observed(u: Unauthenticated, withLoopbackHost?: Unauthenticated & { host?: string }): string {
  if ('error' in u) return `; a request without a token got no HTTP answer (${u.error})`;
  if (
    u.status === 403 &&
    withLoopbackHost &&
    !('error' in withLoopbackHost) &&
    withLoopbackHost.status !== 401 &&
    withLoopbackHost.status !== 403
  ) {
    return `; a request without a token got HTTP 403, but HTTP ${withLoopbackHost.status} with \`Host: ${withLoopbackHost.host ?? 'localhost'}\`: a Host allowlist, not a token of its own (anyone who reaches it and sends a loopback Host name can use it)`;
  }
  if (u.status === 401 || (u.status === 403 && /^bearer\b/i.test(u.challenge ?? ''))) {
    return `; a request without a token got HTTP ${u.status}, so it guards the socket with a token of its own`;
  }
  if (u.status === 403) {
    return '; a request without a token got HTTP 403 without a Bearer challenge: a Host or Origin allowlist, or a token of its own (not told apart)';
  }
  return `; a request without a token got HTTP ${u.status}: anyone who can reach it can use it`;
}

function context(loopback: ClassifiedListen[]): string {
  return loopback.length ? `. Also on loopback (context, not a finding): ${loopback.map(listenAddress).join(', ')}` : '';
}

/** EADDRINUSE on the port the harness picked: another process took it in between; says nothing of the server. */
interface PortRace {
  port: number;
  cause: string;
}

/** What is known once the server exited without a non-loopback listen seen while it ran. */
export interface ExitFacts {
  code: number | null;
  signal: string | null;
  /** A non-loopback listen the record shows after all (one just before exiting). */
  exposed: ClassifiedListen | undefined;
  /** A non-loopback listen that failed (the probe's record of its error): an attempt to expose itself. */
  attempted: FailedListen | undefined;
  /** The port the harness gave it. */
  port: number;
  loopback: ClassifiedListen[];
  /** EADDRINUSE on the harness's port (`portInUse`). */
  race: string | undefined;
  /** The start failure its records or stderr show (`startFailure`). */
  crash: StartFailure | undefined;
  /** What it was asked, for messages. */
  asked: string;
  /** The cell directory's names, dropped from paths in messages. */
  dirs: string[];
}

export interface ExitJudgement {
  outcome: BindOutcome;
  verdict: Verdict;
  step?: string;
  message?: string;
  /** Added to the result's details. */
  details?: Record<string, unknown>;
}

/** `tried to listen on 0.0.0.0:3000 (IPv4 wildcard: every interface) without a token (EADDRINUSE)`, and the port it was given if another. */
export function triedToListen(a: FailedListen, given: number): string {
  const what = describeListen({ ...a, source: 'probe' });
  const port = a.port === given ? '' : ` (it was given port ${given}, not ${a.port})`;
  return `tried to listen on ${what} without a token (${a.code})${port}`;
}

/** The outcome an exit earns: a listen, a race, a crash, exit 0 and a signal are not refusals; any other non-zero exit is. */
export function judgeExit(f: ExitFacts): ExitJudgement | { race: string } {
  if (f.exposed) {
    return {
      outcome: 'listened',
      verdict: 'failed',
      step: 'watch',
      message: `listened on ${describeListen(f.exposed)} before exiting (exit code ${f.code ?? f.signal}): ${f.asked}, it must refuse before any non-loopback socket opens${context(f.loopback)}`,
      details: { listened: { ...f.exposed } },
    };
  }
  if (f.attempted) {
    return {
      outcome: 'tried-to-listen',
      verdict: 'failed',
      step: 'watch',
      message: `${triedToListen(f.attempted, f.port)}, then exited (exit code ${f.code ?? f.signal}): ${f.asked}, it must refuse before it tries any non-loopback listen${context(f.loopback)}`,
      details: { attempted: { ...f.attempted } },
    };
  }
  if (f.race) return { race: relative(f.race, f.dirs) };
  if (f.crash) {
    const cause = relative(f.crash.cause, f.dirs);
    const how = f.code !== null ? `exit code ${f.code}` : `signal ${f.signal}`;
    const details = { startFailure: f.crash };
    return f.crash.kind === 'could-not-start'
      ? {
          outcome: 'could-not-start',
          verdict: 'failed',
          step: 'start',
          message: `could not start: ${cause} (${how}); a crash before its own code ran is not a refusal`,
          details,
        }
      : {
          outcome: 'crashed',
          verdict: 'failed',
          step: 'start',
          message: `crashed: ${cause} (${how}); an uncaught ${cause.split(/[\s:[]/)[0]} is not a refusal`,
          details,
        };
  }
  if (f.code === 0) return { outcome: 'exited-0', verdict: 'failed', step: 'exit code', message: 'exited 0: a refusal must exit non-zero' };
  if (f.code === null) {
    return {
      outcome: 'killed-by-signal',
      verdict: 'failed',
      step: 'exit code',
      message: `was killed by ${f.signal ?? 'a signal'}: a refusal must exit non-zero by itself`,
    };
  }
  return { outcome: 'refused', verdict: 'passed' };
}

export async function bindPhase(ctx: DriverContext, spec: BindSpec): Promise<PhaseResult> {
  const startedAt = Date.now();
  const races: PortRace[] = [];
  // A port race is retried once on a new port; twice in a row, the refusal could not be measured.
  for (let attempts = 0; attempts < 2; attempts++) {
    const outcome = await attempt(ctx, spec, startedAt, races);
    if (!('cause' in outcome)) return outcome;
    races.push(outcome);
  }
  return {
    phase: 'bind',
    verdict: 'not-measured',
    durationMs: Date.now() - startedAt,
    step: 'port',
    message: `not measured: the port the harness picked was taken by another process on both attempts (${races.map((r) => `${r.port}: ${r.cause}`).join('; ')})`,
    details: { outcome: 'port-race', portRaces: races },
  };
}

async function attempt(ctx: DriverContext, spec: BindSpec, startedAt: number, races: PortRace[]): Promise<PhaseResult | PortRace> {
  // The harness itself never listens outside loopback; a port free there is free for the wildcard too.
  const port = takeTestPort(process.env, TEST_BIND_PORTS_ENV) ?? (await freePort('127.0.0.1'));
  // No token: `{token}` becomes empty and the token variables are dropped.
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, NO_CREDENTIALS(port), spec.dropEnv);
  const hostGiven = [...spec.command.args, ...Object.values(spec.command.env)].some((v) => v.includes('{host}') || v.includes(HOST));
  const asked = hostGiven ? `asked to bind ${HOST} with no token` : 'started with no token (its bind invocation names no host)';
  const proc = ctx.startServer('bind', command, env);
  const details: Record<string, unknown> = {
    port,
    pid: proc.pid,
    host: HOST,
    hostGiven,
    ...(races.length ? { portRaces: [...races] } : {}),
  };
  const seen = new Map<string, ClassifiedListen>();
  const look = (): void => {
    for (const l of classifiedListens(proc)) if (!seen.has(`${l.address}|${l.port}`)) seen.set(`${l.address}|${l.port}`, l);
  };
  const listens = (): ClassifiedListen[] => [...seen.values()];
  const exposed = (): ClassifiedListen | undefined => listens().find((l) => l.scope !== 'loopback');
  const loopback = (): ClassifiedListen[] => listens().filter((l) => l.scope === 'loopback');
  const attempted = (): FailedListen | undefined => failedListens(proc).find((l) => l.scope !== 'loopback');
  const finish = (outcome: BindOutcome, verdict: Verdict, step?: string, message?: string): PhaseResult => {
    details.outcome = outcome;
    if (seen.size) details.listens = listens();
    return result('bind', startedAt, { verdict, ...(step ? { step } : {}), ...(message ? { message } : {}), details }, proc);
  };

  // Each attempt gets the whole bound (a retried one starts afresh).
  const deadline = Date.now() + spec.timeoutMs;
  while (proc.running && Date.now() < deadline) {
    look();
    const open = exposed();
    if (open) return exposedWhileRunning(proc, open);
    const tried = attempted();
    // A failed listen is mostly followed by the crash it causes: judged with its exit if that comes at once.
    if (tried && !(await exitsWithin(proc, ATTEMPT_EXIT_MS))) return attemptedWhileRunning(proc, tried);
    await waitAtMost(proc.exited, POLL_MS);
  }
  // A failed spawn has no pid and is not running: wait for its error event rather than read it as an exit.
  const spawnError: NodeJS.ErrnoException | undefined =
    proc.pid === undefined ? await Promise.race([proc.spawnError, sleep(1000).then(() => undefined)]) : undefined;
  if (spawnError) {
    const shown = relative(command.bin, cellDirs(ctx));
    const failure = spawnFailure(spawnError, command.bin, shown);
    return finish('cannot-spawn', failure.verdict, 'spawn', `could not start ${shown}: ${failure.cause}`);
  }
  if (proc.running) {
    look();
    const open = exposed();
    if (open) return exposedWhileRunning(proc, open);
    const tried = attempted();
    if (tried && !(await exitsWithin(proc, ATTEMPT_EXIT_MS))) return attemptedWhileRunning(proc, tried);
  }
  if (proc.running) {
    await proc.kill();
    if (seen.size) {
      // Exposed nothing, refused nothing: its own outcome, never described as a non-loopback listen.
      const where = loopback().map(listenAddress).join(', ');
      return finish(
        'loopback-only',
        'passed',
        undefined,
        `loopback only: ${asked}, it did not refuse, but for the whole ${spec.timeoutMs} ms it only ever listened on loopback (${where}), so it exposed nothing; killed it at the bound`,
      );
    }
    return finish(
      'never-listened',
      'failed',
      'wait for exit',
      `still running after ${spec.timeoutMs} ms without ever listening: ${asked}, it must exit non-zero by itself (killed it); a server without an HTTP transport should set \`bind: false\``,
    );
  }
  // Let its last stderr arrive; a grandchild holding the pipes must not hold us too.
  await waitAtMost(proc.closed, 500);
  const exit = proc.exitInfo!;
  const stderrLine = proc.stderr.tail(1);
  Object.assign(details, { exitCode: exit.code, signal: exit.signal, exitMs: exit.at - proc.startedAt, stderrLine });
  // The probe appends synchronously, so a listen just before exit is in the file by now.
  look();
  const judged = judgeExit({
    code: exit.code,
    signal: exit.signal,
    exposed: exposed(),
    attempted: attempted(),
    port,
    loopback: loopback(),
    // Its own earlier listen on the port (a second listen there) is its doing, not another process's.
    race: ownListenOn(proc, port) ? undefined : portInUse(proc.probeRecords(), proc.stderr.tail(), port),
    crash: startFailure(proc.probeRecords(), proc.stderr.tail(), exit.code, isNodeScript(command.bin)),
    asked,
    dirs: cellDirs(ctx),
  });
  if ('race' in judged) return { port, cause: judged.race };
  Object.assign(details, judged.details);
  return finish(judged.outcome, judged.verdict, judged.step, judged.message);

  async function attemptedWhileRunning(p: ServerProcess, a: FailedListen): Promise<PhaseResult> {
    look();
    await p.kill();
    details.attempted = { ...a };
    return finish(
      'tried-to-listen',
      'failed',
      'watch',
      `${triedToListen(a, port)}: ${asked}, it must refuse before it tries any non-loopback listen (killed it)${context(loopback())}`,
    );
  }

  async function exposedWhileRunning(p: ServerProcess, l: ClassifiedListen): Promise<PhaseResult> {
    // Observe before killing: whether it answers without a token is what the message may claim.
    const answer = await askWithoutToken(l, spec.path ?? '/mcp');
    // A 403 may be a Host allowlist: ask again with a loopback Host name before calling it a token.
    const loopbackHost = `localhost:${l.port}`;
    const again =
      !('error' in answer) && answer.status === 403
        ? { ...(await askWithoutToken(l, spec.path ?? '/mcp', 1500, loopbackHost)), host: loopbackHost }
        : undefined;
    if (again) details.unauthenticatedWithLoopbackHost = again;
    look();
    await p.kill();
    // A copy: the same object twice would read as a cycle to the redactor.
    details.listened = { ...l };
    details.unauthenticated = answer;
    return finish(
      'listened',
      'failed',
      'watch',
      `is listening on ${describeListen(l)}: ${asked}${observed(answer, again)}; a non-loopback bind must be refused (killed it)${context(loopback())}`,
    );
  }
}
