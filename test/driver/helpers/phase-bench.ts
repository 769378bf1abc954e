// Runs a driver phase from src, in the test's own process, against real server processes: the probe
// is bundled from src with esbuild, servers are small scripts the test writes into a temp "cell".
// This is what lets the mutation run (which sees only src) reach the phases' orchestration; the
// compiled driver in a real cell stays the e2e tests' job.

import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { DriverContext } from '../../../src/driver/context.js';
import type { DriverMessage, DriverSpec } from '../../../src/contract/protocol.js';
import { Redactor } from '../../../src/driver/server/redact.js';
import { ROOT, removeDir, tempDir } from './cell.js';

export interface PhaseBench {
  /** The temp cell directory (servers are written to `<cell>/pkg`). */
  cell: string;
  /**
   * A context as the driver makes it (`over` changes its spec); every message it sends is kept in
   * `messages` and handed to `onMessage` as it is sent (a `spawned` message is sent from `startServer`).
   */
  context(over?: Partial<DriverSpec>, onMessage?: (m: DriverMessage) => void): DriverContext;
  messages: DriverMessage[];
  /** Writes an executable server script into `<cell>/pkg` and returns its path. */
  server(name: string, text: string): string;
  /** Kills every server still running (a failed assertion must not leave one) and removes the cell. */
  dispose(): Promise<void>;
}

export async function phaseBench(prefix: string): Promise<PhaseBench> {
  const cell = tempDir(prefix);
  mkdirSync(join(cell, 'pkg'), { recursive: true });
  const probeDir = join(cell, '.mcp-matrix', 'driver');
  await build({
    entryPoints: [
      join(ROOT, 'src/driver/probe/probe.ts'),
      join(ROOT, 'src/driver/probe/probe-hooks.ts'),
      join(ROOT, 'src/driver/probe/suite-gate.ts'),
    ],
    outdir: probeDir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  // The driver's own manifest beside it, as the harness ships it: the probe is an ES module wherever Node loads it
  // from (a Yarn PnP server's hooks would otherwise load it as CommonJS).
  cpSync(join(ROOT, 'src/driver/package.json'), join(probeDir, 'package.json'));
  const contexts: DriverContext[] = [];
  const messages: DriverMessage[] = [];
  const spec: DriverSpec = {
    cellDir: cell,
    packageDir: join(cell, 'pkg'),
    major: 1,
    probe: join(probeDir, 'probe.js'),
    baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cell },
    phases: { stdio: false, http: false, bind: false, leaks: false },
  };
  return {
    cell,
    messages,
    context(over = {}, onMessage) {
      const ctx = new DriverContext({ ...spec, ...over }, new Redactor(), (m) => {
        messages.push(m);
        onMessage?.(m);
      });
      contexts.push(ctx);
      return ctx;
    },
    server(name, text) {
      const file = join(cell, 'pkg', name);
      writeFileSync(file, text, { mode: 0o755 });
      return file;
    },
    async dispose() {
      await Promise.all(contexts.flatMap((c) => c.servers.map((s) => s.proc.kill(1000))));
      removeDir(cell);
    },
  };
}

/**
 * Blocks this process, and so the phase running in it, until `until()` holds (checked every 10 ms) or
 * `maxMs` passed: a driver stalled by a loaded machine, while its servers (other processes) run on.
 */
export function stall(until: () => boolean, maxMs: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + maxMs;
  while (!until() && Date.now() < end) Atomics.wait(cell, 0, 0, 10);
}

/**
 * Stalls the driver from its first poll after the server's spawn until `up` exists (the server writes
 * it once it listened; it may listen only once `go` exists, written when the stall begins) and the
 * phase's bound `boundMs` has passed: the server's listen is first seen after the bound.
 */
export function stallPastBound(go: string, up: string, boundMs: number, goPastBound = false): (m: DriverMessage) => void {
  return (m) => {
    if (m.type !== 'spawned') return;
    const spawned = Date.now();
    // A timer: it fires only after the phase's own synchronous first look (its poll awaits next).
    setTimeout(() => {
      // `goPastBound`: the server may listen only once the bound has passed (the phase's wait began after the spawn
      // message, in the same synchronous run: 500 ms is far more than that run), so its listen is truly late.
      if (goPastBound) stall(() => Date.now() > spawned + boundMs + 500, 60_000);
      writeFileSync(go, '');
      stall(() => existsSync(up) && Date.now() > spawned + boundMs + 100, 60_000);
    }, 0);
  };
}

/**
 * Stalls the driver from its first poll after the first server's spawn until `settled()` holds (that server listened,
 * or failed to), then moves the clock the driver reads (Date.now) on by `boundMs`: the phase reads the listen only
 * past its bound by its own clock, while the server's own record of it (its real clock) is well within. Call
 * `restore` after the phase.
 */
export function listenReadPastBound(
  settled: () => boolean,
  boundMs: number,
): { onMessage: (m: DriverMessage) => void; restore: () => void } {
  const realNow = Date.now;
  let first = true;
  return {
    onMessage(m) {
      if (m.type !== 'spawned' || !first) return;
      first = false;
      setTimeout(() => {
        stall(settled, 60_000);
        Date.now = () => realNow() + boundMs;
      }, 0);
    },
    restore: () => void (Date.now = realNow),
  };
}

/** Waits (bounded) until every started server of `ctx` has written its READY_FILE: a signal never races its handler. */
export async function serversBooted(ctx: DriverContext): Promise<void> {
  const files = ctx.servers.flatMap((s) =>
    s.proc.pid !== undefined && s.proc.options.env.READY_FILE ? [s.proc.options.env.READY_FILE] : [],
  );
  const until = Date.now() + 20_000;
  while (!files.every((f) => existsSync(f)) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Runs `phase` and, once `seen()` holds (what the server shows that the test is about: its listens, its stdout, read
 * by the phase), moves the clock the phase reads (Date.now) on by `boundMs`: the phase's wait of that bound ends at
 * once, with that evidence in hand, however long the server took to start on a loaded machine (seconds at a load of
 * 10-17 on 2 cores). Give the phase a bound it never reaches by itself. The clock is put back after.
 */
export async function pastBoundOnceSeen<T>(phase: () => Promise<T>, seen: () => boolean, boundMs: number): Promise<T> {
  const realNow = Date.now;
  let skew = 0;
  let done = false;
  Date.now = () => realNow() + skew;
  const watch = (async () => {
    while (!done && !seen()) await new Promise((r) => setTimeout(r, 10));
    if (!done) skew = boundMs;
  })();
  try {
    return await phase();
  } finally {
    done = true;
    await watch;
    Date.now = realNow;
  }
}
