// leaks phase: every server exits by itself (stdio: stdin EOF; http: SIGTERM) within graceMs and leaves
// nothing of its process group (nor escaped descendants) behind; the driver holds no new handle. A server that
// does not exit is asked (SIGUSR2) what keeps it alive, then killed (docs/phases.md, "leaks").

import type { LeakedHandle, LeaksDetails, PhaseResultOf } from '../../results/types.js';
import { result, sleep, type DiedMidRequest, type DriverContext, type ServerRecord, type Settled } from '../context.js';
import { driverLeaks, type DriverHandle } from '../probe/driver-handles.js';
import { findTagged, NO_PROC, sweepTagged, type EscapedProcess } from '../server/escaped.js';
import type { ProbeHandle } from '../probe/probe.js';
import { isNodeProcess } from '../server/proc.js';
import { isNodeScript } from '../server/process.js';
import { checkLine, checkResult, decidePhase, levelOf, notableChecks } from '../../contract/checks.js';
import type { CheckLevels } from '../../contract/protocol.js';
import { describeLeft, leftInTemp } from '../server/temp.js';

const DUMP_WAIT_MS = 1500;
const LEFTOVER_SETTLE_MS = 250;

function describe(h: ProbeHandle): string {
  return `${h.type}${h.createdBy ? ` (${h.createdBy})` : ''}${h.location ? ` at ${h.location}` : ''}`;
}

/** `TCPWRAP (Server.listen) at bin/server.js:48 ×3` rather than the same text three times. */
export function describeAll(handles: ProbeHandle[]): string {
  const counts = new Map<string, number>();
  for (const h of handles) counts.set(describe(h), (counts.get(describe(h)) ?? 0) + 1);
  return [...counts].map(([text, n]) => (n > 1 ? `${text} ×${n}` : text)).join(', ');
}

/** SIGUSR2 to every Node process of the group: each probe appends its live handles synchronously. */
async function askForHandles(record: ServerRecord): Promise<ProbeHandle[] | null> {
  const { proc } = record;
  const dumps = (): Record<string, unknown>[] => proc.probeRecords().filter((r) => r.type === 'handles');
  const before = dumps().length;
  const members = proc.members();
  const targets = members ? members.map((m) => m.pid).filter(isNodeProcess) : isNodeScript(proc.options.bin) ? [proc.pid!] : [];
  for (const pid of [...targets]) {
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      targets.splice(targets.indexOf(pid), 1);
    }
  }
  if (!targets.length) return null;
  const deadline = Date.now() + DUMP_WAIT_MS;
  while (Date.now() < deadline && proc.running && dumps().length - before < targets.length) await sleep(25);
  const fresh = dumps().slice(before);
  return fresh.length ? fresh.flatMap((d) => (d.handles as ProbeHandle[] | undefined) ?? []) : null;
}

/** `exited 2046 ms after stdin EOF, later than the 1000 ms it is given (leaks.graceMs)`. */
function lateExit(exitMs: number, graceMs: number, after: string): string {
  return `exited ${exitMs} ms after ${after}, later than the ${graceMs} ms it is given (leaks.graceMs)`;
}

/** The late read of an exit that may have come in time: the driver had no loop turn across the bound. */
function stalledExit(readMs: number, graceMs: number, after: string, gapMs: number): string {
  return `exit read ${readMs} ms after ${after}, past the ${graceMs} ms it is given (leaks.graceMs), but the harness was stalled across that bound (${gapMs} ms without a loop turn): when it exited is not known`;
}

/**
 * Its descendants that left its group (found by its tag) get the grace a group member gets: waited for up to
 * the deadline; whatever is alive then is killed and returned. Null without /proc.
 */
async function escapedAtDeadline(record: ServerRecord, cookie: string, deadline: number): Promise<EscapedProcess[] | null> {
  for (;;) {
    const live = findTagged(cookie, record.tag, true);
    if (!live?.length) return live && [];
    if (Date.now() >= deadline) return sweepTagged(cookie, record.tag, 3000, true);
    await sleep(50);
  }
}

/**
 * Waits for one server to be gone (bounded by graceMs from its stop request), killing what remains. With
 * the run's `cookie`, its escaped descendants are waited for up to the same deadline.
 */
export async function settle(record: ServerRecord, graceMs: number, cookie?: string): Promise<Settled> {
  const { proc, role } = record;
  const out: Settled = { role, pid: proc.pid, exitMs: null, handles: [], leftovers: [] };
  if (proc.pid === undefined) return out;
  if (proc.stopRequestedAt === undefined) {
    if (role === 'stdio') proc.endStdin();
    else proc.terminate();
  }
  // Its EOF goes out on a loop turn after the request (after the poll this waits for): when the driver stalled
  // before sending it, its grace runs from the sending.
  if (proc.child.stdin?.writableFinished === false) await new Promise((r) => setImmediate(r));
  const stopAt = Math.max(proc.stopRequestedAt ?? Date.now(), proc.stopSentLateAt ?? 0);
  const deadline = stopAt + graceMs;
  const exit = await proc.waitExit(deadline - Date.now());
  const after = role === 'bind' ? 'its refusal' : (proc.stopKind ?? 'the stop request');
  const problems: string[] = [];
  if (exit) {
    out.exitMs = Math.max(0, exit.at - stopAt);
    out.code = exit.code;
    out.signal = exit.signal;
    // It exited before anyone looked (the phases after its own ran long): the time still counts. Read late after
    // the driver stalled across the bound, it may have exited in time: no evidence either way.
    const earliest = proc.exitEarliestAt;
    if (out.exitMs > graceMs && earliest !== undefined && earliest <= deadline)
      out.unmeasured = stalledExit(out.exitMs, graceMs, after, exit.at - earliest);
    else if (out.exitMs > graceMs) problems.push(`${role} server ${lateExit(out.exitMs, graceMs, after)}`);
    // Children get a short moment to follow their parent out; then whatever is left is a leak.
    const settleUntil = Math.max(deadline, exit.at + LEFTOVER_SETTLE_MS);
    while (!proc.markReapedIfGone() && Date.now() < settleUntil) await sleep(25);
    out.leftovers = proc.members() ?? [];
    if (out.leftovers.length) {
      const list = out.leftovers.map((p) => `pid ${p.pid} ${p.cmdline}`).join(', ');
      problems.push(
        `${role} server exited, but left ${out.leftovers.length} process(es) of its group running ${graceMs} ms after ${after}: ${list}`,
      );
    } else if (proc.members() === null && !proc.markReapedIfGone()) {
      // No /proc: the group cannot be listed, but it can still be probed; a live group is a leftover all the same.
      out.unlistedGroup = true;
      problems.push(
        `${role} server exited, but its process group (pgid ${proc.pid}) was still alive ${graceMs} ms after ${after}; no /proc: the processes left in it cannot be listed (killed the group)`,
      );
    }
  } else {
    const handles = await askForHandles(record);
    out.handles = handles ?? [];
    const named =
      handles === null
        ? 'the probe did not answer with a handle dump'
        : handles.length
          ? describeAll(handles)
          : "no ref'd handle found by the probe";
    const late = proc.exitInfo;
    if (late) {
      // It exited while the probe was asked: still later than its grace.
      Object.assign(out, { exitMs: late.at - stopAt, code: late.code, signal: late.signal });
      problems.push(`${role} server ${lateExit(late.at - stopAt, graceMs, after)}; asked at the bound: ${named}`);
    } else problems.push(`${role} server still running ${graceMs} ms after ${after}: ${named}`);
  }
  if (!proc.markReapedIfGone()) await proc.kill();
  if (problems.length) out.problem = problems.join('; ');
  const escaped = cookie === undefined ? null : await escapedAtDeadline(record, cookie, deadline);
  if (escaped?.length) out.escaped = escaped;
  return out;
}

/** A server's shutdown is waited for once, when its phase ends; the leaks phase reads the same outcome. */
export function settleOnce(record: ServerRecord, graceMs: number, cookie?: string): Promise<Settled> {
  return (record.settled ??= settle(record, graceMs, cookie));
}

export function toLeakedHandles(settled: Settled[]): LeakedHandle[] {
  const out: LeakedHandle[] = [];
  for (const s of settled) {
    for (const h of s.handles) {
      const leak: LeakedHandle = { owner: `server:${s.role}`, type: h.type };
      if (h.location) leak.location = h.location;
      if (h.createdBy) leak.createdBy = h.createdBy;
      out.push(leak);
    }
    for (const p of s.leftovers) out.push({ owner: `server:${s.role}`, type: 'process', location: `pid ${p.pid}: ${p.cmdline}` });
    if (s.unlistedGroup)
      out.push({ owner: `server:${s.role}`, type: 'process', location: `process group ${s.pid} (members unknown without /proc)` });
  }
  return out;
}

/** One problem per server whose descendants escaped: pid and command line of each, and who started them. */
export function describeEscaped(escaped: EscapedProcess[], servers: ServerRecord[]): string[] {
  const byTag = new Map<string, EscapedProcess[]>();
  for (const e of escaped) byTag.set(e.tag, [...(byTag.get(e.tag) ?? []), e]);
  return [...byTag].map(([tag, list]) => {
    const server = servers.find((s) => s.tag === tag);
    const who = server ? `${server.role} server (pid ${server.proc.pid ?? '?'}, ${server.role} phase)` : `server ${tag}`;
    const procs = list.map((e) => `pid ${e.pid} ${e.cmdline}`).join(', ');
    return `${list.length} process(es) started by the ${who} escaped its process group and outlived it: ${procs} (found by the run's cookie in their environment; killed)`;
  });
}

/** A driver handle in the details: marked when it was made for a request its server died under. */
export type JudgedDriverHandle = ProbeHandle & { leftAfterServerDied?: { role: string; pid: number | undefined; request: string } };

/**
 * Splits the driver's own handles: those created while a request was in flight to a server that died under
 * it (the client never got an answer to clear them with) are marked; the rest are the client's own leak.
 */
export function judgeDriverHandles(
  handles: DriverHandle[],
  deaths: DiedMidRequest[],
): { all: JudgedDriverHandle[]; leaked: ProbeHandle[] } {
  const all: JudgedDriverHandle[] = [];
  const leaked: ProbeHandle[] = [];
  for (const { asyncId, ...handle } of handles) {
    const death = asyncId === undefined ? undefined : deaths.find((d) => asyncId > d.from && asyncId <= d.to);
    if (death) all.push({ ...handle, leftAfterServerDied: { role: death.role, pid: death.pid, request: death.request } });
    else {
      all.push(handle);
      leaked.push(handle);
    }
  }
  return { all, leaked };
}

function uniqueByPid(list: EscapedProcess[]): EscapedProcess[] {
  return [...new Map(list.map((e) => [e.pid, e])).values()];
}

/** What each server left in its own temporary directory (src/driver/server/temp.ts), once it is gone. */
function tempLeftovers(servers: readonly ServerRecord[]): { role: string; pid: number | undefined; dir: string; left: string[] }[] {
  return servers.flatMap((s) => {
    const left = s.tempDir ? leftInTemp(s.tempDir) : [];
    return left.length && s.tempDir ? [{ role: s.role, pid: s.proc.pid, dir: s.tempDir, left }] : [];
  });
}

export async function leaksPhase(
  ctx: DriverContext,
  graceMs: number,
  baseline: string[],
  levels: CheckLevels,
): Promise<PhaseResultOf<'leaks'>> {
  const startedAt = Date.now();
  // Settle concurrently: each server's bound runs from its own stop request (most were settled as their phase ended).
  const settled = await Promise.all(ctx.servers.map((s) => settleOnce(s, graceMs, ctx.cookie)));
  // Every server and its group is gone now: whatever still carries a server's tag escaped.
  const swept = await sweepTagged(ctx.cookie, ctx.tagPrefix);
  const escaped = swept && uniqueByPid([...settled.flatMap((s) => s.escaped ?? []), ...swept]);
  await ctx.flush();
  const { all: driverHandles, leaked: driver } = judgeDriverHandles(await driverLeaks(baseline), ctx.diedMidRequest);
  const roleOf = (tag: string): string => ctx.servers.find((s) => s.tag === tag)?.role ?? tag;
  const leaked = [
    ...toLeakedHandles(settled),
    ...(escaped ?? []).map((e) => ({
      owner: `server:${roleOf(e.tag)}`,
      type: 'process',
      location: `pid ${e.pid}: ${e.cmdline} (escaped its process group)`,
    })),
    ...driver.map((h) => ({ owner: 'driver', ...h })),
  ];
  ctx.summary.leakedHandles = leaked;
  const problems = settled.flatMap((s) => (s.problem ? [s.problem] : []));
  const unmeasured = settled.flatMap((s) => (s.unmeasured ? [`${s.role} server's ${s.unmeasured}`] : []));
  const escapedProblems = describeEscaped(escaped ?? [], ctx.servers);
  problems.push(...escapedProblems);
  if (driver.length) problems.push(`the driver's own client left ${driver.length} active handle(s): ${describeAll(driver)}`);
  const temp = tempLeftovers(ctx.servers);
  const details: LeaksDetails = {
    servers: settled.map(({ escaped: _, ...s }) => s),
    escaped: escaped ?? [],
    ...(escaped ? {} : { escapedCheck: NO_PROC }),
    driverHandles,
    graceMs,
    tempFiles: temp,
  };
  const first = settled.find((s) => s.problem) ?? (problems.length ? undefined : settled.find((s) => s.unmeasured));
  const firstEscaped = escaped?.[0] && ctx.servers.find((s) => s.tag === escaped[0]!.tag);
  const proc = ctx.servers.find((r) => r.proc.pid === first?.pid)?.proc ?? firstEscaped?.proc;
  const step = first ? `${first.role} shutdown` : escapedProblems.length ? 'escaped processes' : 'driver handles';
  const shutdown = checkResult(
    'shutdown',
    levelOf('shutdown', levels),
    problems.length
      ? { outcome: 'failed', message: problems.join('; '), step }
      : unmeasured.length
        ? { outcome: 'not-measured', message: unmeasured.join('; '), step }
        : { outcome: 'passed', message: 'every server exited by itself within its grace and left no process; the driver left no handle' },
  );
  const leftText = temp.map(
    (t) =>
      `${t.role} server (pid ${t.pid ?? '?'}) left ${t.left.length} entr${t.left.length === 1 ? 'y' : 'ies'} in its own temporary directory: ${describeLeft(t.left)}`,
  );
  const files = checkResult(
    'temp-files',
    levelOf('temp-files', levels),
    temp.length
      ? {
          outcome: 'failed',
          message: `${leftText.join('; ')} (inside the cell: removed with it)`,
          short: `${temp.reduce((n, t) => n + t.left.length, 0)} left`,
          step: 'temporary files',
        }
      : { outcome: 'passed', message: 'no server left anything in its temporary directory' },
  );
  const checks = [shutdown, files];
  const verdict = decidePhase(checks);
  if (verdict === 'passed') return result('leaks', startedAt, { verdict, details, checks });
  const message = notableChecks(checks)
    .filter((c) => c.level === 'require')
    .map((c) => (c.id === 'shutdown' ? c.message : checkLine(c)))
    .join('; ');
  // The shutdown check decided it (failed; or not measured, nothing else failing), else the temporary files did.
  const byShutdown = shutdown.level === 'require' && (shutdown.outcome === 'failed' || verdict === 'not-measured');
  const failedStep = byShutdown ? step : 'temporary files';
  return result(
    'leaks',
    startedAt,
    { verdict, step: failedStep, message, details, checks },
    shutdown.outcome === 'failed' ? proc : undefined,
  );
}
