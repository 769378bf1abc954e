// bind phase: started on a non-loopback host with no token, the server must refuse before any socket opens.
// Watched while it runs (probe records + /proc): a non-loopback listen, even a failed one, fails and is named;
// what each way of ending means is bind-judgement.ts's (docs/phases.md, "bind").

import { realpathSync } from 'node:fs';
import type { BindDetails, PhaseResultOf, PortRace, Verdict } from '../../results/types.js';
import { defined } from '../../contract/fields.js';
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
} from '../http/listen-watch.js';
import type { DriverSpec } from '../../contract/protocol.js';
import { isNodeScript, type ServerProcess } from '../server/process.js';
import { portInUse, spawnFailure, startFailure } from '../server/start-failure.js';
import { context, judgeExit, observed, relative, triedToListen, type BindOutcome } from './bind-judgement.js';

type BindSpec = Exclude<DriverSpec['phases']['bind'], false>;

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

/** The cell directory as given and as the runtime names it (a symlinked temp dir resolves). */
function cellDirs(ctx: DriverContext): string[] {
  try {
    return [...new Set([ctx.spec.cellDir, realpathSync(ctx.spec.cellDir)])];
  } catch {
    return [ctx.spec.cellDir];
  }
}

export async function bindPhase(ctx: DriverContext, spec: BindSpec): Promise<PhaseResultOf<'bind'>> {
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

async function attempt(
  ctx: DriverContext,
  spec: BindSpec,
  startedAt: number,
  races: PortRace[],
): Promise<PhaseResultOf<'bind'> | PortRace> {
  // The harness itself never listens outside loopback; a port free there is free for the wildcard too.
  const port = takeTestPort(process.env, TEST_BIND_PORTS_ENV) ?? (await freePort('127.0.0.1'));
  // No token: `{token}` becomes empty and the token variables are dropped.
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, NO_CREDENTIALS(port), spec.dropEnv);
  const hostGiven = [...spec.command.args, ...Object.values(spec.command.env)].some((v) => v.includes('{host}') || v.includes(HOST));
  const asked = hostGiven ? `asked to bind ${HOST} with no token` : 'started with no token (its bind invocation names no host)';
  const proc = ctx.startServer('bind', command, env);
  const details: BindDetails = {
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
  const finish = (outcome: BindOutcome, verdict: Verdict, step?: string, message?: string): PhaseResultOf<'bind'> => {
    details.outcome = outcome;
    if (seen.size) details.listens = listens();
    return result('bind', startedAt, { verdict, ...defined({ step, message }), details }, proc);
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

  async function attemptedWhileRunning(p: ServerProcess, a: FailedListen): Promise<PhaseResultOf<'bind'>> {
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

  async function exposedWhileRunning(p: ServerProcess, l: ClassifiedListen): Promise<PhaseResultOf<'bind'>> {
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
