// Entry of the driver inside a cell: `node <cell>/.mcp-matrix/driver/index.js <spec.json> [out.jsonl]`.
// Runs stdio → http → bind → conformance → leaks, each after the servers before it exited, and reports over IPC
// (else JSON lines); never writes to stdout, where the v2 client prints.

import './probe/probe.js';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PhaseName, PhaseResult } from '../results/types.js';
import { DriverContext, errorText, type Settled } from './context.js';
import { activeResources } from './probe/driver-handles.js';
import { bindPhase } from './phases/bind.js';
import { conformancePhase } from './phases/conformance.js';
import { httpPhase } from './phases/http.js';
import { leaksPhase, settleOnce } from './phases/leaks.js';
import { cellPlaceholders, makeScratchDir } from './client/placeholders.js';
import { stdioPhase } from './phases/stdio.js';
import type { DriverMessage, DriverSpec } from '../contract/protocol.js';
import { killTaggedNow, sweepTagged } from './server/escaped.js';
import { signalGroup } from './server/proc.js';
import { Redactor } from './server/redact.js';
import { withSdkRuntime } from './sdk-runtime.js';
import { withDetails } from '../contract/fields.js';
import { levelErrors, type ProtocolError } from './spec-levels.js';

let baseline: string[] = [];
const redactor = new Redactor();
const outFile = process.argv[3];
let context: DriverContext | undefined;
/** The phases the spec's check levels refuse (a protocol error): each is reported not measured, not run. */
let refused: Partial<Record<PhaseName, ProtocolError>> = {};
let finishing = false;

const pending = new Set<Promise<void>>();
/** An orchestrator that stops reading must not hang the driver: a send gives up after this. */
const SEND_TIMEOUT_MS = 5000;

function send(message: DriverMessage): Promise<void> {
  const safe = redactor.deep(message);
  if (process.send && process.connected) {
    const sent = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SEND_TIMEOUT_MS);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      try {
        process.send!(safe, undefined, {}, done);
      } catch {
        done();
      }
    });
    pending.add(sent);
    void sent.then(() => pending.delete(sent));
    return sent;
  }
  const line = JSON.stringify(safe) + '\n';
  if (outFile) appendFileSync(outFile, line);
  else process.stderr.write(line);
  return Promise.resolve();
}

function killAll(): void {
  for (const { proc } of context?.servers ?? []) if (proc.pid !== undefined) signalGroup(proc.pid, 'SIGKILL');
  // Descendants that left their server's group still carry its tag.
  if (context) killTaggedNow(context.cookie, context.tagPrefix);
}

async function exit(code: number): Promise<never> {
  finishing = true;
  killAll();
  if (process.connected) process.disconnect();
  process.exit(code);
}

async function fatal(error: unknown): Promise<never> {
  if (finishing) process.exit(1);
  const err = error instanceof Error ? error : new Error(String(error));
  const message: DriverMessage = { type: 'fatal', message: redactor.text(errorText(err)) };
  if (err.stack) message.stack = redactor.text(err.stack);
  process.stderr.write(`mcp-matrix driver: ${message.message}\n`);
  killAll();
  await send(message);
  return exit(1);
}

async function phase(name: PhaseName, run: (() => Promise<PhaseResult>) | null, skipReason?: string): Promise<void> {
  await send({ type: 'phase-start', phase: name });
  if (context) context.phase = name;
  // Decided by the harness before the driver started: reported as given.
  const standIn = context?.spec.standIns?.[name];
  if (standIn) return send({ type: 'phase-result', result: standIn });
  const error = refused[name];
  if (error) return send({ type: 'phase-result', result: { phase: name, verdict: 'not-measured', durationMs: 0, message: error.message } });
  let res: PhaseResult;
  if (!run) res = { phase: name, verdict: 'skipped', durationMs: 0, ...(skipReason ? { message: skipReason } : {}) };
  else {
    const startedAt = Date.now();
    try {
      res = await run();
    } catch (error) {
      // A bug in a phase must not hide the others: the harness could not measure this one.
      res = { phase: name, verdict: 'not-measured', durationMs: Date.now() - startedAt, message: `driver error: ${errorText(error)}` };
      process.stderr.write(redactor.text(`mcp-matrix driver: ${name}: ${error instanceof Error ? error.stack : String(error)}\n`));
    }
  }
  const seen = context?.serverRequests.get(name);
  if (seen) res = withDetails(res, { serverRequests: seen.map((r) => ({ ...r })) });
  if (context) res = withSdkRuntime(context, res);
  await send({ type: 'phase-result', result: res });
}

/**
 * The probe, preloaded into every server from `dir`, is an ES module: it needs a `"type": "module"` scope, which
 * the shipped driver's package.json gives (driver-ship.ts). A driver copied by hand without it gets one written
 * here, so servers neither print MODULE_TYPELESS_PACKAGE_JSON nor, in a `"type": "commonjs"` cell, fail to preload it.
 */
function ensureModuleScope(dir: string): void {
  const file = join(dir, 'package.json');
  try {
    if (!existsSync(file)) writeFileSync(file, '{ "type": "module" }\n');
  } catch {
    // read-only: the servers will say so on stderr
  }
}

async function main(): Promise<void> {
  const specPath = process.argv[2];
  if (!specPath) throw new Error('usage: node index.js <spec.json> [out.jsonl]');
  const spec = cellPlaceholders(JSON.parse(readFileSync(specPath, 'utf8')) as DriverSpec);
  refused = levelErrors(spec.phases);
  for (const value of spec.mask ?? []) redactor.add(value);
  makeScratchDir(spec.cellDir, spec.workDir);
  process.env.MCP_MATRIX_CELL_DIR = spec.cellDir;
  ensureModuleScope(dirname(spec.probe));
  const ctx = new DriverContext(spec, redactor, (m) => void send(m));
  // In-flight IPC writes are the channel's, not a leak of the client.
  ctx.flush = async () => {
    while (pending.size) await Promise.all(pending);
  };
  context = ctx;
  const { stdio, http, bind, conformance, leaks } = spec.phases;
  const why = spec.skipped ?? {};
  // Each server's shutdown, waited for once its phase is over (what the leaks phase then judges).
  const stopped = (): Promise<Settled[]> => Promise.all(ctx.servers.map((s) => settleOnce(s, ctx.graceMs, ctx.cookie)));
  await phase('stdio', stdio ? () => stdioPhase(ctx, stdio) : null, why.stdio);
  await stopped();
  await phase('http', http ? () => httpPhase(ctx, http) : null, why.http);
  await stopped();
  await phase('bind', bind ? () => bindPhase(ctx, bind) : null, why.bind);
  await stopped();
  await phase('conformance', conformance ? () => conformancePhase(ctx, conformance) : null, why.conformance);
  await stopped();
  await phase('leaks', leaks ? () => leaksPhase(ctx, leaks.graceMs, baseline, leaks.checks) : null, why.leaks);
  if (!leaks || refused.leaks) {
    const settled = await stopped();
    // Not judged (leaks is off or refused), but never left running.
    const escaped = [...settled.flatMap((s) => s.escaped ?? []), ...((await sweepTagged(ctx.cookie, ctx.tagPrefix)) ?? [])];
    for (const e of escaped)
      process.stderr.write(redactor.text(`mcp-matrix driver: killed pid ${e.pid} (${e.cmdline}), started by ${e.tag}\n`));
  }
  ctx.summary.driverPeakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  await send({ type: 'done', summary: ctx.summary });
}

process.on('uncaughtException', (e) => void fatal(e));
process.on('unhandledRejection', (e) => void fatal(e));
// The orchestrator went away or asked us to stop: take every server group down with us.
process.on('disconnect', () => {
  if (!finishing) void exit(1);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void exit(signal === 'SIGINT' ? 130 : 143));

// After the listeners above: a 'disconnect' listener refs the IPC channel, which is not a leak.
baseline = activeResources();
main().then(
  () => exit(0),
  (e: unknown) => fatal(e),
);
