// Who listens where: a free port for the http phase, "the port answers and it is ours", and the
// bind phase's watch for any listen (from the probe's synchronous reports and from /proc).

import net from 'node:net';
import { watch, type FSWatcher } from 'node:fs';
import { waitAtMost } from './context.js';
import { groupListeners, procAvailable } from './proc.js';
import type { ServerProcess } from './server-process.js';

export interface SeenListen {
  address: string;
  port: number;
  source: 'probe' | 'proc';
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
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
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

export type Identity = 'verified' | 'probe' | 'unverified';

export type ReadyOutcome = { ok: true; identity: Identity; ms: number } | { ok: false; reason: string; step: string };

/** Polls until the port answers and belongs to the process group we started; stops at once on exit. */
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
      if (await canConnect(host, port, Math.min(500, Math.max(1, deadline - Date.now())))) {
        const identity = ownerOf(proc, port);
        if (identity === 'foreign') {
          return {
            ok: false,
            step: 'port identity',
            reason: `${host}:${port} answers, but no process of the started server's group holds it`,
          };
        }
        return { ok: true, identity, ms: Date.now() - started };
      }
      await waitAtMost(Promise.race([proc.exited, new Promise<void>((resolve) => (wake = resolve))]), delay);
      delay = Math.min(delay * 2, 50);
    }
    return {
      ok: false,
      step: 'wait for listen',
      reason: `timed out after ${timeoutMs} ms waiting for the server to listen on ${host}:${port}`,
    };
  }
}

function ownerOf(proc: ServerProcess, port: number): Identity | 'foreign' {
  if (proc.pid !== undefined && procAvailable()) {
    const listeners = groupListeners(proc.pid);
    if (listeners) return listeners.some((l) => l.port === port) ? 'verified' : 'foreign';
  }
  return listensOf(proc).some((l) => l.port === port) ? 'probe' : 'unverified';
}
