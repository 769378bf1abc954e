// stdio phase: start the bin, handshake over our own pipe transport, list the surface, run the steps, ping, end
// stdin. Stdout stays the protocol channel until the server exits, so the phase judges all it wrote until then.

import type { PhaseResultOf, StdioDetails, SubCheckResult } from '../../results/types.js';
import type { McpSession } from '../client/adapter.js';
import {
  clientLoadFailure,
  commandFor,
  RequestWindow,
  result,
  StepTimeout,
  waitAtMost,
  withTimeout,
  type DriverContext,
} from '../context.js';
import { checkSurface, stepLabel, type SurfaceKind } from '../client/expectations.js';
import type { DriverSpec, Step } from '../../contract/protocol.js';
import { describeRequest, runStep, type StepOutcome } from '../client/steps.js';
import { lifecycleChecks } from '../lifecycle/checks.js';
import { stdioWire } from '../lifecycle/wire.js';
import { PipeTransport } from '../server/stdio-transport.js';
import { onlyUnexpectedIsError, recordCompared, uniqueItem, type FailedStep } from '../../contract/compared.js';
import { withStdioChecks } from './stdio-checks.js';
import { failureText, ServerExited } from './stdio-failure.js';
import { itemShapes, parityItems, type ItemShape } from '../client/surface.js';

type StdioSpec = Exclude<DriverSpec['phases']['stdio'], false>;
const KINDS: SurfaceKind[] = ['tools', 'resources', 'resourceTemplates', 'prompts'];
/** After its exit, how long its stdout may take to deliver its last lines. */
const LAST_OUTPUT_MS = 250;

/** The phase with its sub-checks: the session below, then the lifecycle edges on it (stdio-checks.ts). */
export async function stdioPhase(ctx: DriverContext, spec: StdioSpec): Promise<PhaseResultOf<'stdio'>> {
  let lifecycle: { checks: SubCheckResult[]; stderrTail: string } | undefined;
  const session = await sessionPhase(ctx, spec, (checks, stderrTail) => (lifecycle = { checks, stderrTail }));
  const r = withStdioChecks(session, lifecycle?.checks, spec.checks);
  return r.verdict === 'failed' && !r.stderrTail && lifecycle?.stderrTail ? { ...r, stderrTail: lifecycle.stderrTail } : r;
}

async function sessionPhase(
  ctx: DriverContext,
  spec: StdioSpec,
  onLifecycle: (checks: SubCheckResult[], stderrTail: string) => void,
): Promise<PhaseResultOf<'stdio'>> {
  const startedAt = Date.now();
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, {});
  let step: string;
  const details: StdioDetails = {};
  let session: McpSession | undefined;
  /** The configured step in flight: a timeout or a crash during it names the request as sent. */
  let current: Step | undefined;
  /** Steps whose answer failed their check, in order (a timeout or crash throws instead). */
  const failures: (FailedStep & { message: string })[] = [];
  /** The request in flight: a server that dies under it leaves the client holding what it made for it. */
  const inFlight = new RequestWindow('spawn');
  // The server boots while the client loads: both take a few hundred ms.
  const loading = ctx.adapter().catch((e: unknown) => e as Error);
  step = 'spawn';
  const proc = ctx.startServer('stdio', command, env);
  const adapter = await loading;
  if (adapter instanceof Error) {
    proc.endStdin();
    return result('stdio', startedAt, clientLoadFailure(ctx, adapter), proc);
  }
  details.pid = proc.pid;
  /** The phase failed at its first failed step, with that step's message. */
  const stepFailure = (): PhaseResultOf<'stdio'> =>
    result('stdio', startedAt, { verdict: 'failed', step: failures[0]!.step, message: failures[0]!.message, details }, proc);
  // A step that failed before this one is the first cause; what ended the session comes after it.
  const endedBy = (step: string, message: string): PhaseResultOf<'stdio'> => {
    const first = failures[0];
    const failed = first ? { step: first.step, message: `${first.message}; then ${message}` } : { step, message };
    return result('stdio', startedAt, { verdict: 'failed', ...failed, details }, proc);
  };
  let firstNoise: string | undefined;
  /** When the first noise line came, in ms after start. */
  let noiseMs = 0;
  /** When ping answered, in ms after start: the last answer the phase asked for. */
  let answeredMs = 0;
  const transport = new PipeTransport(proc.child.stdin!, proc.child.stdout!, {
    onNoise(line) {
      if (firstNoise === undefined) noiseMs = Date.now() - proc.startedAt;
      firstNoise ??= line;
      proc.noise.push(line);
    },
  });
  // A server that dies mid-handshake must fail the step now, not after the timeout.
  const died = proc.closed.then((exit) => {
    throw new ServerExited(exit);
  });
  died.catch(() => {});
  const spawnFailed = proc.spawnError.then((e) => {
    throw e;
  });
  spawnFailed.catch(() => {});
  const bounded = <T>(p: Promise<T>, what: string): Promise<T> => withTimeout(Promise.race([p, died, spawnFailed]), spec.timeoutMs, what);

  try {
    session = adapter.session(spec.timeoutMs + 1000);
    step = 'initialize';
    inFlight.begin(step);
    await bounded(session.connect(transport), 'initialize');
    ctx.answered.add(proc);
    const init = transport.initializeResult;
    const info = init?.serverInfo ?? session.serverInfo();
    const protocolVersion = init?.protocolVersion ?? session.protocolVersion();
    Object.assign(details, { serverInfo: info, protocolVersion, capabilities: init?.capabilities ?? session.capabilities() });
    if (info?.name) ctx.summary.serverName = info.name;
    if (info?.version) ctx.summary.serverVersion = info.version;
    if (protocolVersion) ctx.summary.protocolVersion = protocolVersion;

    const problems: string[] = [];
    const surface: Record<string, string[] | null> = {};
    const shapes: Record<string, ItemShape[]> = {};
    const parity: Record<string, unknown> = {};
    for (const kind of KINDS) {
      step = `list ${kind}`;
      inFlight.begin(step);
      const items = await bounded(session.list(kind), step);
      surface[kind] = items?.map((i) => String(i.name ?? i.uri ?? i.uriTemplate)) ?? null;
      if (items) shapes[kind] = itemShapes(kind, items);
      if (items) parityItems(kind, items, parity);
      ctx.summary[kind] = items?.length ?? 0;
      const problem = checkSurface(kind, spec.expect[kind], items);
      if (problem) problems.push(problem);
    }
    details.surface = surface;
    details.shapes = shapes;
    // What run-level surface parity and the surface snapshot compare (src/reports/surface.ts).
    details.parity = parity;
    if (problems.length) {
      step = 'compare with expect';
      return result('stdio', startedAt, { verdict: 'failed', step, message: problems.join('; '), details }, proc);
    }
    const stepResults: Omit<StepOutcome, 'problem' | 'answer'>[] = [];
    details.steps = stepResults;
    for (const s of spec.steps) {
      step = stepLabel(s);
      inFlight.begin(step);
      current = s;
      const { problem, answer, ...outcome } = await runStep(session, s, bounded);
      current = undefined;
      step = outcome.step;
      stepResults.push(outcome);
      // What answer parity compares across cells (src/results/parity.ts), a failed step's answer too: a field
      // one major drops can turn a correct answer into the failing one. The steps after it still run.
      const item = uniqueItem(details, step);
      if (answer) recordCompared(details, item, answer);
      if (problem)
        failures.push({ item, step, message: `${step}: ${problem}`, ...(outcome.unexpectedIsError ? { unexpectedIsError: true } : {}) });
    }
    if (failures.length) {
      details.failedSteps = failures.map(({ message: _m, ...f }) => f);
      // Only `isError` without `expect`: the edges still run on this session, as on a passing one.
      if (!onlyUnexpectedIsError(failures)) return stepFailure();
    }
    step = 'ping';
    inFlight.begin(step);
    await bounded(session.ping(), 'ping');
    answeredMs = Date.now() - proc.startedAt;
    if (firstNoise === undefined) {
      // The lifecycle edges on this same session; their last request is a ping too.
      onLifecycle(await lifecycleChecks(stdioWire(transport, proc), spec, details), proc.stderr.tail());
      answeredMs = Date.now() - proc.startedAt;
    }
    if (firstNoise !== undefined) {
      step = 'stdout';
      const message = `wrote non-JSON-RPC output to stdout (the protocol channel): ${JSON.stringify(ctx.redactor.text(firstNoise).slice(0, 200))}`;
      return endedBy(step, message);
    }
    if (failures.length) return stepFailure();
  } catch (error) {
    const noise =
      firstNoise !== undefined
        ? ` (stdout also carried non-JSON-RPC output: ${JSON.stringify(ctx.redactor.text(firstNoise).slice(0, 200))})`
        : '';
    // The client's "Connection closed" and the exit watcher race: failureText words both the same.
    const exit = error instanceof StepTimeout ? null : error instanceof ServerExited ? error.exit : await proc.waitExit(500);
    if (exit ?? proc.exitInfo) inFlight.diedUnder(ctx, 'stdio', proc);
    // A spawn that failed has no pid at once; its error event follows.
    const spawnError = proc.pid === undefined ? await proc.spawnError : undefined;
    const text = failureText(error, { exit, cutOff: transport.cutOff, bin: command.bin, ...(spawnError ? { spawnError } : {}) });
    const sent = current && session ? ` · sent ${describeRequest(current, session.noArguments)}` : '';
    const message = `${error instanceof StepTimeout ? '' : `${step}: `}${text}${sent}${noise}`;
    return endedBy(step, message);
  } finally {
    // EOF alone: the client's close only ends stdin; the server has to exit by itself.
    proc.endStdin();
    if (session) await withTimeout(session.close(), 2000, 'client close').catch(() => {});
  }
  // Every check passed. What it writes after its last answer, up to its exit, is on the protocol channel too.
  await proc.waitExit((proc.stopRequestedAt ?? Date.now()) + ctx.graceMs - Date.now());
  // Its last lines are read once its stdout ends (a child holding it open must not hold the phase).
  await waitAtMost(proc.closed, LAST_OUTPUT_MS);
  if (firstNoise !== undefined) {
    const message = `wrote non-JSON-RPC output to stdout (the protocol channel) ${noiseMs} ms after start, after its last answer (ping, at ${answeredMs} ms): ${JSON.stringify(ctx.redactor.text(firstNoise).slice(0, 200))}`;
    return result('stdio', startedAt, { verdict: 'failed', step: 'stdout', message, details }, proc);
  }
  return result('stdio', startedAt, { verdict: 'passed', details }, proc);
}
