// Who listens where: a free port for the http phase, "the port answers and it is ours", and the
// bind phase's watch for any listen (from the probe's synchronous reports and from /proc), and for
// any listen that failed (the probe's record of the error).

import http from 'node:http';
import net from 'node:net';
import { watch, type FSWatcher } from 'node:fs';
import { waitAtMost } from '../context.js';
import { groupListeners, procAvailable } from '../server/proc.js';
import type { ServerProcess } from '../server/process.js';
import { verdictTimer } from '../timer-verdict.js';
import { driverLoop } from '../loop-turns.js';

export interface SeenListen {
  address: string;
  port: number;
  source: 'probe' | 'proc';
}

/** Who can reach a listen: only this host (`loopback`), every interface (`wildcard`), or the networks of one address (`routable`). */
export type ListenScope = 'loopback' | 'wildcard' | 'routable';

export interface ClassifiedListen extends SeenListen {
  scope: ListenScope;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms are loopback; 0.0.0.0 and :: are wildcards; anything else is routable. */
export function listenScope(address: string): ListenScope {
  let a = address.trim().toLowerCase();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  a = a.replace(/%.*$/, '');
  if (a.startsWith('::ffff:') && a.includes('.')) a = a.slice('::ffff:'.length);
  if (a === '0.0.0.0' || a === '::' || /^(0+:){7}0+$/.test(a)) return 'wildcard';
  if (/^127\.\d+\.\d+\.\d+$/.test(a) || a === '::1' || /^(0+:){7}0*1$/.test(a)) return 'loopback';
  return 'routable';
}

/** `0.0.0.0:80`, `[::]:80`. */
export function listenAddress(l: Pick<SeenListen, 'address' | 'port'>): string {
  return `${l.address.includes(':') ? `[${l.address}]` : l.address}:${l.port}`;
}

/** What a listen exposes, for messages: `[::]:80 (IPv6 wildcard: every interface)`. */
export function describeListen(l: ClassifiedListen): string {
  const what =
    l.scope === 'wildcard'
      ? `${l.address.includes(':') ? 'IPv6' : 'IPv4'} wildcard: every interface`
      : l.scope === 'routable'
        ? 'a non-loopback address'
        : 'loopback';
  return `${listenAddress(l)} (${what})`;
}

/** Every distinct listen (address + port) seen so far, classified; the probe's record wins over /proc's. */
export function classifiedListens(proc: ServerProcess): ClassifiedListen[] {
  const out = new Map<string, ClassifiedListen>();
  for (const l of listensOf(proc)) {
    const key = `${l.address}|${l.port}`;
    if (!out.has(key)) out.set(key, { ...l, scope: listenScope(l.address) });
  }
  return [...out.values()];
}

/**
 * Test-only hook: comma-separated ports handed out (in order) instead of free ones, so a test can make
 * the server's port be held by another process. Unset in every real run.
 */
export const TEST_PORTS_ENV = 'MCP_MATRIX_TEST_HTTP_PORTS';

/** The bind phase's hook, the same way: a test holds a port so that the server's listen there fails. */
export const TEST_BIND_PORTS_ENV = 'MCP_MATRIX_TEST_BIND_PORTS';

/** Takes the next forced port from the hook: the variable is the queue, read at each pick (a test in the driver's process can set it). */
export function takeTestPort(env: NodeJS.ProcessEnv = process.env, name = TEST_PORTS_ENV): number | undefined {
  const ports = (env[name] ?? '')
    .split(',')
    .map(Number)
    .filter((p) => Number.isInteger(p) && p > 0);
  const [first, ...rest] = ports;
  if (rest.length) env[name] = rest.join(',');
  else delete env[name];
  return first;
}

export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean): void => {
      timer.clear();
      socket.destroy();
      resolve(ok);
    };
    const timer = verdictTimer(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Every TCP listen the server (or anything in its group) made, as far as we can see right now. */
export function listensOf(proc: ServerProcess): SeenListen[] {
  const seen: SeenListen[] = [];
  for (const r of proc.probeRecords()) {
    if (r.type === 'listen' && typeof r.port === 'number') seen.push({ address: String(r.address), port: r.port, source: 'probe' });
  }
  if (proc.pid !== undefined) {
    for (const l of groupListeners(proc.pid) ?? []) seen.push({ address: l.address, port: l.port, source: 'proc' });
  }
  return seen;
}

/** A listen the probe saw fail (EADDRINUSE, EACCES …): what the server tried to open, and why it could not. */
export interface FailedListen {
  address: string;
  port: number;
  code: string;
  scope: ListenScope;
}

/** Every distinct listen that failed, as the probe recorded it (a wildcard attempt is an attempt to expose). */
export function failedListens(proc: Pick<ServerProcess, 'probeRecords'>): FailedListen[] {
  const out = new Map<string, FailedListen>();
  for (const r of proc.probeRecords()) {
    if (r.type !== 'listen-failed' || typeof r.address !== 'string' || typeof r.port !== 'number') continue;
    const key = `${r.address}|${r.port}`;
    const code = typeof r.code === 'string' ? r.code : 'error';
    if (!out.has(key)) out.set(key, { address: r.address, port: r.port, code, scope: listenScope(r.address) });
  }
  return [...out.values()];
}

/** Whether the probe saw the server's own process(es) listen on `port`: a later EADDRINUSE there is its own doing. */
export function ownListenOn(proc: Pick<ServerProcess, 'probeRecords'>, port: number): boolean {
  return proc.probeRecords().some((r) => r.type === 'listen' && r.port === port);
}

export type Identity = 'verified' | 'probe' | 'unverified';

/** `stalledMs`: the driver's loop had no turn for that long, across the wait's deadline (loop-turns.ts). */
export type ReadyOutcome = { ok: true; identity: Identity; ms: number } | { ok: false; reason: string; step: string; stalledMs?: number };

/** When the probe saw the server listen on `host`:`port`, by the server's own clock (its earliest such record). */
export function listenedAt(proc: Pick<ServerProcess, 'probeRecords'>, host: string, port: number): number | undefined {
  const times = proc
    .probeRecords()
    .flatMap((r) => (r.type === 'listen' && r.address === host && r.port === port && typeof r.at === 'number' ? [r.at] : []));
  return times.length ? Math.min(...times) : undefined;
}

/**
 * Polls until the port answers and belongs to the process group we started; stops at once on exit. A listen
 * whose own time (the probe's record) is within the bound is in time, however late the harness read it.
 */
export async function waitUntilListening(proc: ServerProcess, host: string, port: number, timeoutMs: number): Promise<ReadyOutcome> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let delay = 10;
  // The probe records a listen in its file at once: a change there wakes the poll (servers without the probe are polled).
  let wake = (): void => {};
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(proc.options.probeFile, () => wake());
  } catch {
    watcher = undefined;
  }
  try {
    return await poll();
  } finally {
    watcher?.close();
  }

  async function poll(): Promise<ReadyOutcome> {
    while (Date.now() < deadline) {
      if (!proc.running) {
        const exit = proc.exitInfo;
        return {
          ok: false,
          step: 'wait for listen',
          reason: `server exited (code ${exit?.code ?? 'none'}${exit?.signal ? `, signal ${exit.signal}` : ''}) before listening on ${host}:${port}`,
        };
      }
      if (await canConnect(host, port, Math.min(500, Math.max(1, deadline - Date.now())))) return answered();
      await waitAtMost(Promise.race([proc.exited, new Promise<void>((resolve) => (wake = resolve))]), delay);
      delay = Math.min(delay * 2, 50);
    }
    // Its own record says it listened within the bound: in time, whenever we read it (one look confirms it answers).
    const at = listenedAt(proc, host, port);
    if (at !== undefined && at <= deadline && proc.running && (await canConnect(host, port, 500))) return answered(at - started);
    // The driver's loop had no turn across the deadline (descheduled): a listen it did not see may have come in time.
    const stalledMs = driverLoop().stalledAcross(deadline);
    return {
      ok: false,
      step: 'wait for listen',
      reason: `timed out after ${timeoutMs} ms waiting for the server to listen on ${host}:${port}`,
      ...(stalledMs !== undefined ? { stalledMs } : {}),
    };
  }

  /** The port answers: is it ours? `ms`, when given, is the listen's own time since the wait began. */
  async function answered(ms?: number): Promise<ReadyOutcome> {
    let identity = ownerOf(proc, port);
    // Without /proc, the probe's record is the evidence, and it trails the listen: the kernel accepts a connection
    // before the probe's synchronous append runs, and a loaded machine connected in between ("unverified" in a CI
    // run). A server the probe runs in gets a moment for its record, woken by the file's change.
    const trail = Math.min(deadline, Date.now() + PROBE_TRAIL_MS);
    while (identity === 'unverified' && probeRuns(proc) && Date.now() < trail) {
      await waitAtMost(new Promise<void>((resolve) => (wake = resolve)), 25);
      identity = ownerOf(proc, port);
    }
    if (identity === 'foreign') {
      return {
        ok: false,
        step: 'port identity',
        reason: `${host}:${port} answers, but no process of the started server's group holds it`,
      };
    }
    return { ok: true, identity, ms: Math.max(0, ms ?? Date.now() - started) };
  }
}

/** How long a listen's probe record may trail the port's first answer (without /proc). */
const PROBE_TRAIL_MS = 1000;

/** The probe runs in the server (its first record): a Node server whose listens it reports. */
function probeRuns(proc: ServerProcess): boolean {
  return proc.probeRecords().some((r) => r.type === 'probe');
}

function ownerOf(proc: ServerProcess, port: number): Identity | 'foreign' {
  if (proc.pid !== undefined && procAvailable()) {
    const listeners = groupListeners(proc.pid);
    if (listeners) return listeners.some((l) => l.port === port) ? 'verified' : 'foreign';
  }
  return listensOf(proc).some((l) => l.port === port) ? 'probe' : 'unverified';
}

export type Unauthenticated = { status: number; challenge: string | null } | { error: string };

/** Where to connect to reach a listen from this host: a wildcard is reached on its loopback. */
function reachVia(l: ClassifiedListen): string {
  if (l.scope !== 'wildcard') return l.address;
  return l.address.includes(':') ? '::1' : '127.0.0.1';
}

/**
 * What an exposed listen does with a request that carries no token: the observation a bind message
 * states (a 401 means the server guards it with a token of its own; a 200 means anyone may use it).
 * `host` overrides the Host header (a loopback name, to tell a Host allowlist from a token).
 */
export function askWithoutToken(l: ClassifiedListen, path: string, timeoutMs = 1500, host?: string): Promise<Unauthenticated> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-matrix-bind', version: '0' } },
  });
  return new Promise((resolve) => {
    let settled = false;
    const done = (value: Unauthenticated): void => {
      if (settled) return;
      settled = true;
      timer.clear();
      req.destroy();
      resolve(value);
    };
    const req = http.request(
      {
        host: reachVia(l),
        port: l.port,
        path,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
          // A loopback Host name: tells a Host allowlist from a token (see bind's `observed`).
          ...(host ? { host } : {}),
        },
      },
      (res) => {
        res.resume();
        // Node joins repeated WWW-Authenticate headers with ', ' itself.
        done({ status: res.statusCode ?? 0, challenge: res.headers['www-authenticate'] ?? null });
      },
    );
    const timer = verdictTimer(() => done({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    req.once('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }));
    req.end(body);
  });
}
