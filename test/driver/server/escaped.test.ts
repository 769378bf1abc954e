// escaped.ts against real processes: children started by the test carry a cookie and a server tag in their
// environment (as the driver's servers do), and are found, named and killed by them. Without /proc (switched
// off per test through a flag on proc.js's `carriers`) nothing can be found and the functions say so.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RUN_COOKIE_VAR, SERVER_TAG_VAR } from '../../../src/contract/cookie.js';
import { findTagged, killTaggedNow, NO_PROC, sweepTagged } from '../../../src/driver/server/escaped.js';

const proc = vi.hoisted(() => ({ off: false, offAfter: Infinity }));

vi.mock('../../../src/driver/server/proc.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/driver/server/proc.js')>();
  return {
    ...real,
    carriers: (...args: Parameters<typeof real.carriers>) => (proc.off || proc.offAfter-- <= 0 ? null : real.carriers(...args)),
  };
});

const started: ChildProcess[] = [];
const alsoKill: number[] = [];

afterEach(() => {
  proc.off = false;
  proc.offAfter = Infinity;
  for (const pid of [...started.map((c) => c.pid!), ...alsoKill]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  started.length = 0;
  alsoKill.length = 0;
});

const cookie = (): string => `${process.pid}.0.${randomBytes(6).toString('hex')}`;

/**
 * A live Node process carrying the cookie and the tag; resolves once it runs (its first line on stdout).
 * `printed()` is all it wrote: its later lines may come in the same chunk as the first (a loaded machine).
 */
async function tagged(
  runCookie: string,
  tag: string,
  script = 'setInterval(() => {}, 1000)',
  detached = false,
): Promise<ChildProcess & { printed: () => string }> {
  const child = spawn(process.execPath, ['-e', `console.log('up');${script}`], {
    env: { ...process.env, [RUN_COOKIE_VAR]: runCookie, [SERVER_TAG_VAR]: tag },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached,
  });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return Object.assign(child, { printed: () => out });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function goneWithin(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}

const exited = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));

describe('findTagged', () => {
  it("finds the cell's live tagged processes by the tag's prefix, or by the whole tag when exact", async () => {
    const c = cookie();
    const one = await tagged(c, 'cell-a#1');
    const twelve = await tagged(c, 'cell-a#12');
    await tagged(c, 'cell-b#1');
    await tagged(cookie(), 'cell-a#1');
    const pids = (found: { pid: number }[] | null) => found?.map((f) => f.pid).sort((a, b) => a - b);
    expect(pids(findTagged(c, 'cell-a#1'))).toEqual([one.pid!, twelve.pid!].sort((a, b) => a - b));
    expect(pids(findTagged(c, 'cell-a#1', true))).toEqual([one.pid]);
    expect(pids(findTagged(c, 'cell-a#12', true))).toEqual([twelve.pid]);
    expect(pids(findTagged(c, 'cell-c'))).toEqual([]);
    expect(findTagged(c, 'cell-a#1', true)![0]!.vars).toEqual({ [RUN_COOKIE_VAR]: c, [SERVER_TAG_VAR]: 'cell-a#1' });
  });

  it('a process without a server tag is never one of them, whatever the prefix', async () => {
    const c = cookie();
    const child = spawn(process.execPath, ['-e', "console.log('up');setInterval(() => {}, 1000)"], {
      env: { ...process.env, [RUN_COOKIE_VAR]: c },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    started.push(child);
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    expect(findTagged(c, '')).toEqual([]);
  });

  it('without /proc: null', async () => {
    const c = cookie();
    await tagged(c, 'cell#1');
    proc.off = true;
    expect(findTagged(c, 'cell')).toBeNull();
    // What the leaks phase reports then (static: killed by hand, see docs/testing.md).
    expect(NO_PROC).toBe(
      'no /proc: escaped descendants cannot be found by their environment; only each server’s process group was checked',
    );
  });
});

describe('sweepTagged', () => {
  it('kills every tagged process of the prefix, waits until they are gone, and names each with its tag', async () => {
    const c = cookie();
    const a = await tagged(c, 'cell#1');
    const b = await tagged(c, 'cell#2');
    const other = await tagged(c, 'other#1');
    // A long bound: the sweep returns once they are gone, not when the bound ends (a mutant that waits it out times out).
    const found = await sweepTagged(c, 'cell#', 60_000);
    expect(found!.sort((x, y) => x.pid - y.pid)).toEqual(
      [
        { pid: a.pid, cmdline: expect.stringContaining(process.execPath), tag: 'cell#1' },
        { pid: b.pid, cmdline: expect.stringContaining(process.execPath), tag: 'cell#2' },
      ].sort((x, y) => x.pid! - y.pid!),
    );
    // Gone when it returns: killed and reaped by the kernel (the test's child handles see the SIGKILL).
    await Promise.all([exited(a), exited(b)]);
    expect(a.signalCode).toBe('SIGKILL');
    expect(b.signalCode).toBe('SIGKILL');
    expect(findTagged(c, 'cell#')).toEqual([]);
    expect(alive(other.pid!)).toBe(true);
  }, 20_000);

  it('exact: one server\'s tag only ("#1" is no prefix of "#12" then)', async () => {
    const c = cookie();
    const one = await tagged(c, 'cell#1');
    const twelve = await tagged(c, 'cell#12');
    const found = await sweepTagged(c, 'cell#1', 60_000, true);
    expect(found!.map((f) => f.pid)).toEqual([one.pid]);
    await exited(one);
    expect(one.signalCode).toBe('SIGKILL');
    expect(alive(twelve.pid!)).toBe(true);
  }, 20_000);

  it('a tagged leader of its own group takes its group with it: a child that scrubbed its environment dies too', async () => {
    const c = cookie();
    // The leader starts a child without the cookie or the tag (env: {}), in the leader's group, and prints its pid.
    const leader = await tagged(
      c,
      'cell#1',
      "const k = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: {}, stdio: 'ignore' }); console.log('child ' + k.pid); setInterval(() => {}, 1000)",
      true,
    );
    // Polled, not awaited as a new chunk: "child <pid>" may have come in the same chunk as "up" (a CI run timed out so).
    let printed: RegExpExecArray | null = null;
    while (!(printed = /child (\d+)/.exec(leader.printed()))) await new Promise((r) => setTimeout(r, 20));
    const childPid = Number(printed[1]);
    alsoKill.push(childPid);
    expect(alive(childPid)).toBe(true);
    const found = await sweepTagged(c, 'cell#', 60_000);
    expect(found!.map((f) => f.pid)).toEqual([leader.pid]);
    expect(await goneWithin(childPid)).toBe(true);
  }, 20_000);

  it('keeps looking until none is left: one tagged after the first look is killed too (not named: it was not found at first)', async () => {
    const c = cookie();
    const first = await tagged(c, 'cell#1');
    const sweep = sweepTagged(c, 'cell#', 60_000);
    // Started while the sweep waits for the first round to die (spawn returns once the child has exec'd).
    const late = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      env: { ...process.env, [RUN_COOKIE_VAR]: c, [SERVER_TAG_VAR]: 'cell#2' },
      stdio: 'ignore',
    });
    started.push(late);
    const found = await sweep;
    expect(found!.map((f) => f.pid)).toEqual([first.pid]);
    await exited(late);
    expect(late.signalCode).toBe('SIGKILL');
  }, 20_000);

  it('/proc gone after the first look: what was found is named, at once', async () => {
    const c = cookie();
    const a = await tagged(c, 'cell#1');
    proc.offAfter = 1;
    const found = await sweepTagged(c, 'cell#', 60_000);
    expect(found!.map((f) => f.pid)).toEqual([a.pid]);
  }, 20_000);

  it('with no tagged process: an empty list at once', async () => {
    expect(await sweepTagged(cookie(), 'cell#', 60_000)).toEqual([]);
  });

  it('a zero bound names what it found without killing it', async () => {
    const c = cookie();
    const a = await tagged(c, 'cell#1');
    const found = await sweepTagged(c, 'cell#', -1);
    expect(found!.map((f) => f.pid)).toEqual([a.pid]);
    expect(alive(a.pid!)).toBe(true);
  });

  it('without /proc: null, and nothing is killed', async () => {
    const c = cookie();
    const a = await tagged(c, 'cell#1');
    proc.off = true;
    expect(await sweepTagged(c, 'cell#')).toBeNull();
    expect(alive(a.pid!)).toBe(true);
  });
});

describe('killTaggedNow', () => {
  it('signals every tagged process of the prefix once, synchronously', async () => {
    const c = cookie();
    const a = await tagged(c, 'cell#1');
    const b = await tagged(c, 'cell#12');
    const other = await tagged(c, 'other#1');
    killTaggedNow(c, 'cell#1');
    await Promise.all([exited(a), exited(b)]);
    expect([a.signalCode, b.signalCode]).toEqual(['SIGKILL', 'SIGKILL']);
    expect(alive(other.pid!)).toBe(true);
  });

  it('without /proc: does nothing', async () => {
    const c = cookie();
    const a = await tagged(c, 'cell#1');
    proc.off = true;
    expect(() => killTaggedNow(c, 'cell#')).not.toThrow();
    expect(alive(a.pid!)).toBe(true);
  });
});
