// Preloaded with `--import` into every server the driver starts: records where async resources were created
// (why a server does not exit) and every TCP listen, synchronously (bind sees even a brief one).
// Never prints, never keeps the loop alive, never throws; listens in probe-listen.ts, crashes in probe-crashes.ts.

import { createHook } from 'node:async_hooks';
import childProcess from 'node:child_process';
import { appendFileSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { carryProbe, PROBE_VARS } from './probe-carry.js';
import { watchCrashes } from './probe-crashes.js';
import { patchListen } from './probe-listen.js';
import { watchScripts } from './script-watch.js';
import { SDK_PACKAGES_ENV, sdkNamesFromEnv, sdkNoter } from './sdk-load.js';
import { describeStack, type Attribution, type StackContext } from './stack.js';

export interface ProbeHandle {
  type: string;
  location?: string;
  createdBy?: string;
}

interface Tracked {
  id: number;
  type: string;
  resource: WeakRef<object>;
  trace: { stack?: string };
  /** The resource in whose callback this one was created: a stack that starts in a callback
   * (a listen after an async lookup, an accepted socket) is attributed through it. */
  parent?: Tracked;
  depth: number;
}

/** Bounds the chain each entry keeps alive (a self-rescheduling timer would otherwise grow it forever). */
const MAX_DEPTH = 4;

const PROBE_FILE = process.env.MCP_MATRIX_PROBE_FILE;
// The probe and its parts that wrap the server's calls: their frames never count as a handle's creator.
const SELF = ['probe', 'probe-listen', 'probe-crashes'].map((f) =>
  fileURLToPath(import.meta.url).replace(/probe(\.[cm]?[jt]s)$/, `${f}$1`),
);
/**
 * Every non-promise resource since start, until it is provably over. There is no `destroy` hook: with one, Node
 * tracks the destruction of every promise too (a weak handle per promise, thousands per run). Whether a resource
 * is over is read from the resource itself (alive()), which is what `destroy` would have told.
 */
const tracked = new Map<number, Tracked>();
/** The map is swept of finished resources when it grows past this (then twice its live size). */
let sweepAt = 4096;

type ResourceLike = { getAsyncId?: () => number; _destroyed?: unknown; hasRef?: () => boolean };

/**
 * The entry's resource while it lives, as `destroy` would have said: a native resource (a handle, a request) until
 * its C++ side is gone or re-used under another id (getAsyncId() is then -1 or that id), a Timeout or Immediate
 * until it ran or was cleared (`_destroyed`), any other until it is collected.
 */
function alive(entry: Tracked): ResourceLike | undefined {
  const resource = entry.resource.deref() as ResourceLike | undefined;
  if (!resource) return undefined;
  try {
    if (typeof resource.getAsyncId === 'function') return resource.getAsyncId() === entry.id ? resource : undefined;
    if (resource._destroyed === true) return undefined;
  } catch {
    return undefined;
  }
  return resource;
}

/** How many resources the probe holds (the sweep keeps it bounded; a test reads it). */
export function trackedCount(): number {
  return tracked.size;
}

function sweep(): void {
  for (const [id, entry] of tracked) if (!alive(entry)) tracked.delete(id);
  sweepAt = Math.max(4096, tracked.size * 2);
}
/** The newest async id seen: ids only grow, so what is created after a mark has a larger one. */
let newestId = 0;

function write(record: Record<string, unknown>): void {
  if (!PROBE_FILE) return;
  try {
    appendFileSync(PROBE_FILE, JSON.stringify({ ...record, pid: process.pid }) + '\n');
  } catch {
    // The probe must never disturb the server.
  }
}

function init(asyncId: number, type: string, trigger: number, resource: object): void {
  newestId = asyncId;
  if (type === 'PROMISE') return;
  const trace: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 24;
  // captureStackTrace only records frames; the string is built lazily when a dump reads it.
  Error.captureStackTrace(trace);
  Error.stackTraceLimit = limit;
  const entry: Tracked = { id: asyncId, type, resource: new WeakRef(resource), trace, depth: 0 };
  const parent = tracked.get(trigger);
  if (parent && parent.depth < MAX_DEPTH && alive(parent)) {
    entry.parent = parent;
    entry.depth = parent.depth + 1;
  }
  tracked.set(asyncId, entry);
  if (tracked.size > sweepAt) sweep();
}

function attribute(entry: Tracked, ctx: StackContext): Attribution {
  let best: Attribution = { inPackage: false };
  for (let e: Tracked | undefined = entry; e; e = e.parent) {
    const where = describeStack(e.trace.stack ?? '', ctx);
    if (where.inPackage) return where;
    if (!best.location && where.location) best = where;
  }
  return best;
}

/** `TCPSocketWrap` (getActiveResourcesInfo) and `TCPWRAP` (async_hooks) name the same thing. */
export function normaliseType(name: string): string {
  return name.toUpperCase().replace('SOCKET', '');
}

const STDIO = ['stdin', 'stdout', 'stderr'];
const WRAP: Record<string, string> = { Pipe: 'PipeWrap', TTY: 'TTYWrap', TCP: 'TCPSocketWrap' };

type HandleLike = { fd?: number; _handle?: { fd?: number; constructor?: { name?: string } }; constructor?: { name?: string } };

/**
 * This process's own stdio streams on `fds` and its IPC channel, as resource names. Node counts an
 * idle stdout/stderr pipe as active, and creates process.stderr lazily (net.Socket#destroy touches
 * it), yet neither keeps the process alive nor is anybody's leak.
 */
export function ownStdio(fds: number[]): string[] {
  const handles = (process as unknown as { _getActiveHandles?: () => HandleLike[] })._getActiveHandles?.() ?? [];
  const out: string[] = [];
  for (const h of handles) {
    const isChannel = (h as unknown) === process.channel;
    const inner = isChannel ? h : h._handle;
    const fd = inner?.fd ?? h.fd;
    if (!isChannel && !(typeof fd === 'number' && fds.includes(fd))) continue;
    const name = WRAP[inner?.constructor?.name ?? ''];
    if (name) out.push(name);
  }
  return out;
}

/**
 * A mark in this process's timeline: every resource created after it has a larger async id (0 when the
 * probe's hook is not installed, so no window opened with it holds anything).
 */
export function asyncIdMark(): number {
  return newestId;
}

/** A live handle with its async id: when it was created, against an `asyncIdMark`. */
export type IdentifiedHandle = ProbeHandle & { asyncId: number };

/** Resources that still keep this process alive, with where they were created. */
export function liveHandles(ignoreFds: number[] = [1, 2]): ProbeHandle[] {
  return identifiedHandles(ignoreFds).map(({ asyncId: _id, ...handle }) => handle);
}

/** `liveHandles`, each with its async id (the driver's own check; never written to a probe file). */
export function identifiedHandles(ignoreFds: number[] = [1, 2]): IdentifiedHandle[] {
  const active = new Map<string, number>();
  const info = typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo() : null;
  for (const name of info ?? []) active.set(normaliseType(name), (active.get(normaliseType(name)) ?? 0) + 1);
  for (const name of info ? ownStdio(ignoreFds) : []) {
    const key = normaliseType(name);
    const n = active.get(key) ?? 0;
    if (n <= 1) active.delete(key);
    else active.set(key, n - 1);
  }
  const packageDir = process.env.MCP_MATRIX_PACKAGE_DIR;
  const cellDir = process.env.MCP_MATRIX_CELL_DIR;
  const candidates: (IdentifiedHandle & { score: number })[] = [];
  // A Timeout refreshed after it ran or was cleared is the same object under a new id: its latest entry stands.
  const latest = new Map<object, Tracked>();
  for (const entry of tracked.values()) {
    const resource = alive(entry);
    if (!resource) continue;
    const seen = latest.get(resource);
    if (!seen || seen.id < entry.id) latest.set(resource, entry);
  }
  for (const [asyncId, entry] of tracked) {
    const resource = entry.resource.deref() as ResourceLike | undefined;
    if (!resource || latest.get(resource) !== entry) continue;
    let refd = true;
    try {
      refd = resource.hasRef?.() ?? true;
    } catch {
      refd = true;
    }
    if (!refd) continue;
    if (info && !active.has(normaliseType(entry.type))) continue;
    const fd = (resource as { fd?: unknown }).fd;
    if (typeof fd === 'number' && ignoreFds.includes(fd)) continue;
    const where = attribute(entry, { packageDir, cellDir, self: SELF });
    // The process's own stdin (a pipe it still reads) has no creating frame worth naming.
    if (!where.location && typeof fd === 'number' && fd >= 0 && fd <= 2) where.location = `process.${STDIO[fd]}`;
    candidates.push({ type: entry.type, ...where, asyncId, score: where.inPackage ? 2 : where.location ? 1 : 0 });
  }
  // Prefer the handles attributable to code; keep no more per type than the runtime says are active.
  candidates.sort((a, b) => b.score - a.score);
  const taken = new Map<string, number>();
  const out: IdentifiedHandle[] = [];
  for (const c of candidates) {
    const key = normaliseType(c.type);
    const n = taken.get(key) ?? 0;
    if (info && n >= (active.get(key) ?? 0)) continue;
    taken.set(key, n + 1);
    const handle: IdentifiedHandle = { type: c.type, asyncId: c.asyncId };
    if (c.location) handle.location = c.location;
    if (c.createdBy) handle.createdBy = c.createdBy;
    out.push(handle);
  }
  return out;
}

type Resolve = (specifier: string, context: unknown, next: (s: string, c: unknown) => { url: string }) => { url: string };
type ModuleApi = typeof module & {
  Module: { prototype: { load(this: unknown, filename: string): unknown } };
  registerHooks?: (hooks: { resolve: Resolve }) => unknown;
};

/**
 * Record which SDK package copies this process loads (the environment verdict rests on it): every
 * CommonJS load, and every ES module through in-thread module hooks where Node has them, else V8's
 * script list (script-watch.ts), else `module.register`.
 */
function watchSdkLoads(file: string): void {
  const names = sdkNamesFromEnv(process.env[SDK_PACKAGES_ENV]);
  if (names.length === 0) return;
  const note = sdkNoter(names, (record) => write({ ...record }));
  const api = module as ModuleApi;
  if (typeof api.registerHooks === 'function') {
    api.registerHooks({
      resolve(specifier, context, next) {
        const resolved = next(specifier, context);
        note(resolved.url);
        return resolved;
      },
    });
  } else {
    const proto = api.Module.prototype;
    const load = proto.load;
    proto.load = function (this: unknown, filename: string) {
      note(filename);
      return load.call(this, filename);
    };
    // ES modules: V8's own script list, in-thread; the off-thread hooks only where there is no inspector.
    if (!watchScripts(note)) module.register(new URL('./probe-hooks.js', import.meta.url), { data: { names, file } });
  }
}

/**
 * Every child this process spawns (spawn, exec, execFile, fork: all go through ChildProcess#spawn) carries
 * the probe, even when the server gives it NODE_OPTIONS of its own: the process that answers may be that child.
 * (spawnSync and its kin do not pass here: such a child, if it answers, is named as unobserved.)
 */
function carryIntoChildren(): void {
  const proto = childProcess.ChildProcess.prototype as unknown as { spawn(options: unknown): unknown; __mcpMatrixCarry?: boolean };
  if (proto.__mcpMatrixCarry || typeof proto.spawn !== 'function') return;
  proto.__mcpMatrixCarry = true;
  const vars = Object.fromEntries(PROBE_VARS.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])));
  const original = proto.spawn;
  proto.spawn = function (this: unknown, options: unknown) {
    try {
      const o = options as { envPairs?: unknown };
      if (Array.isArray(o?.envPairs)) o.envPairs = carryProbe(o.envPairs as string[], import.meta.url, vars);
    } catch {
      // The probe must never disturb the server.
    }
    return original.call(this, options);
  };
}

function install(): void {
  const g = globalThis as { __mcpMatrixProbeInstalled?: boolean };
  if (g.__mcpMatrixProbeInstalled) return;
  g.__mcpMatrixProbeInstalled = true;
  if (PROBE_FILE) {
    // The driver tells "no probe" (a bin that is not Node) from "loaded nothing" by this record.
    // Its parent too: a launcher's child is told from the launcher (see answering.ts).
    write({ type: 'probe', node: process.version, ppid: process.ppid });
    // Signal handlers are unref'd: this does not keep the process alive.
    process.on('SIGUSR2', () => write({ type: 'handles', handles: liveHandles() }));
    patchListen(write);
    carryIntoChildren();
    try {
      watchSdkLoads(PROBE_FILE);
    } catch {
      // Without it the environment check says it could not observe; the server runs on.
    }
    watchCrashes(write);
  }
  createHook({ init }).enable();
}

try {
  install();
} catch {
  // A broken probe must not break the server under test.
}
