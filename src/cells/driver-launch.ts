// Run a shipped driver (driver-ship.ts) and follow its messages; the harness owns the driver and every server it starts.
import { fork } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DriverMessage, DriverSpec } from '../contract/protocol.js';
import type { PhaseName, PhaseResult } from '../results/types.js';
import { currentCookie, killCarriers } from '../process/cookie.js';
import { killGroup, track, untrack } from '../process/tracker.js';
import type { DriverLayout } from './driver-ship.js';
import { RERUN_FILE, rerunCommand } from './rerun.js';

export { installDriver, type DriverLayout } from './driver-ship.js';

export interface DriverHooks {
  onPhaseStart?(phase: PhaseName): void;
  onPhaseResult?(result: PhaseResult): void;
  /** npm install of the cell started / ended (for progress: install is its own step). */
  onInstallStart?(): void;
  onInstallEnd?(outcome: { ok: boolean; durationMs: number; attempts: number; sharedBy?: number }): void;
}

export type DriverOutcome =
  | { kind: 'done'; results: PhaseResult[]; summary: Extract<DriverMessage, { type: 'done' }>['summary'] }
  | { kind: 'crashed'; results: PhaseResult[]; current?: PhaseName; message: string };

/** How long an exited driver's IPC channel may take to deliver what it sent before exiting. */
const CHANNEL_DRAIN_MS = 2000;

/**
 * `execPath`: the Node the driver runs on (a variant's runtime; its servers that are Node scripts follow it).
 * `compileCacheDir`: the driver's own V8 code cache (Node >= 22.1; older Nodes ignore it). Only the driver gets
 * it: its servers' environment is the spec's baseEnv, so they run as a user runs them.
 */
export interface DriverOptions {
  timeoutMs: number;
  env: Record<string, string>;
  signal?: AbortSignal;
  execPath?: string;
  compileCacheDir?: string;
}

export async function runDriver(
  layout: DriverLayout,
  spec: DriverSpec,
  options: DriverOptions,
  hooks: DriverHooks = {},
): Promise<DriverOutcome> {
  const specFile = await writeSpec(layout, spec, options.execPath);
  const logFd = openSync(layout.log, 'a');
  const child = fork(layout.entry, [specFile], {
    cwd: spec.cellDir,
    detached: true,
    env: { ...options.env, ...(options.compileCacheDir ? { NODE_COMPILE_CACHE: options.compileCacheDir } : {}), ...driverTestHooks() },
    execArgv: [],
    ...(options.execPath ? { execPath: options.execPath } : {}),
    stdio: ['ignore', logFd, logFd, 'ipc'],
    serialization: 'json',
  });
  closeSync(logFd);
  const results: PhaseResult[] = [];
  const servers = new Set<number>();
  let current: PhaseName | undefined;
  let summary: Extract<DriverMessage, { type: 'done' }>['summary'] | undefined;
  let fatal: string | undefined;
  if (child.pid) track(child.pid);

  child.on('message', (raw) => {
    const msg = raw as DriverMessage;
    switch (msg.type) {
      case 'phase-start':
        current = msg.phase;
        hooks.onPhaseStart?.(msg.phase);
        break;
      case 'phase-result':
        results.push(msg.result);
        hooks.onPhaseResult?.(msg.result);
        break;
      case 'spawned':
        servers.add(msg.pid);
        track(msg.pid);
        break;
      case 'reaped':
        servers.delete(msg.pid);
        untrack(msg.pid);
        break;
      case 'done':
        summary = msg.summary;
        break;
      case 'fatal':
        fatal = msg.message;
        break;
    }
  });

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean }>((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) killGroup(child.pid);
    }, options.timeoutMs);
    const abort = () => child.pid && killGroup(child.pid);
    options.signal?.addEventListener('abort', abort, { once: true });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      // 'exit' can come before the last IPC messages (its 'done') are read: wait for the channel to close.
      const settle = () => resolve({ code, signal, timedOut });
      if (!child.connected) return void setImmediate(settle);
      const bound = setTimeout(settle, CHANNEL_DRAIN_MS);
      child.once('disconnect', () => {
        clearTimeout(bound);
        setImmediate(settle);
      });
    });
  });
  // Whatever happened, nothing the driver started may outlive it.
  for (const pid of servers) {
    killGroup(pid);
    untrack(pid);
  }
  if (child.pid) {
    killGroup(child.pid);
    untrack(child.pid);
  }
  // A killed driver could not sweep what escaped its servers' groups: the cell's tag finds it.
  const cookie = currentCookie();
  if (cookie) killCarriers(cookie, spec.tagPrefix ?? `${spec.baseEnv.MCP_MATRIX_CELL ?? 'cell'}:`);
  if (summary && !exit.timedOut) return { kind: 'done', results, summary };
  const why = exit.timedOut
    ? `the driver did not finish within ${options.timeoutMs} ms${current ? ` (in the ${current} phase)` : ''}`
    : fatal
      ? `the driver crashed: ${fatal}`
      : `the driver exited (${exit.signal ?? `code ${exit.code}`}) before reporting${current ? ` (in the ${current} phase)` : ''}: ${await logTail(layout.log)}`;
  return { kind: 'crashed', results, ...(current ? { current } : {}), message: why };
}

/** The spec where the driver reads it, and beside it how a kept cell's user runs this driver again by hand (--keep). */
export async function writeSpec(layout: DriverLayout, spec: DriverSpec, execPath?: string): Promise<string> {
  const specFile = path.join(layout.dir, 'spec.json');
  await writeFile(specFile, JSON.stringify(spec, null, 2));
  await writeFile(path.join(layout.dir, RERUN_FILE), `${rerunCommand(spec.cellDir, layout.entry, specFile, execPath)}\n`);
  return specFile;
}

/** Test-only switches read by the driver alone (never by a server): see src/driver/README.md. */
function driverTestHooks(): Record<string, string> {
  const hooks: Record<string, string> = {};
  for (const key of ['MCP_MATRIX_TEST_LEAK_HANDLE', 'MCP_MATRIX_TEST_HTTP_PORTS', 'MCP_MATRIX_TEST_BIND_PORTS'])
    if (process.env[key] !== undefined) hooks[key] = process.env[key]!;
  return hooks;
}

async function logTail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-5).join(' | ') || 'no output';
}
