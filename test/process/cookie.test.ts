// The run's cookie, read back from /proc: real processes, a real detached child, a real dead owner.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { carriers, procAvailable, startTime } from '../../src/driver/server/proc.js';
import { cookieOwner, makeCookie, RUN_COOKIE_VAR, SERVER_TAG_VAR } from '../../src/contract/cookie.js';
import { killCarriers, orphanedCarriers, ownerAlive, settleCarriers } from '../../src/process/cookie.js';
import { describeSwept, shortCommand, sweepStale } from '../../src/orchestrator/sweep.js';
import { createRunDir, markKept, OWNER_FILE, readOwner, removeRunDirWithin } from '../../src/cells/install/workspace.js';
import { linkKeptCells } from '../../src/cells/kept.js';

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A cookie whose owner is provably dead: a real process that has exited. */
function deadCookie(): string {
  const child = spawnSync(process.execPath, [
    '-e',
    'const fs=require("fs");process.stdout.write(fs.readFileSync("/proc/self/stat","utf8"))',
  ]);
  const stat = child.stdout.toString();
  const pid = Number(stat.split(' ')[0]);
  const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
  return makeCookie(pid, start);
}

// Alive far longer than a test on a loaded machine takes (each test SIGKILLs its own): a sleeper that ended by itself
// would read as swept or as no carrier.
const sleeper = (env: Record<string, string>, detached = false) =>
  spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600_000)', 'mm-cookie-test-sleeper'], {
    env: { ...process.env, ...env },
    detached,
    stdio: 'ignore',
  });

/** Until the child has exec'd (its /proc environ carries the cookie): a fixed sleep loses on a loaded machine. */
const waitCarrying = async (...children: { pid?: number | undefined }[]): Promise<void> => {
  // A hang guard (~30 s), not a speed check: a node started on a loaded machine can take seconds to exec.
  for (let i = 0; i < 1200; i++) {
    const ready = children.every((c) => {
      try {
        return readFileSync(`/proc/${c.pid}/environ`, 'utf8').includes(`${RUN_COOKIE_VAR}=`);
      } catch {
        return false;
      }
    });
    if (ready) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the sleeper never carried the cookie');
};

const waitGone = async (pid: number): Promise<boolean> => {
  // A hang guard (~30 s): a SIGKILLed process on a loaded machine can take a while to be reaped.
  for (let i = 0; i < 1200; i++) {
    const state = (() => {
      try {
        const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return s.slice(s.lastIndexOf(')') + 2).split(' ')[0];
      } catch {
        return 'gone';
      }
    })();
    if (state === 'gone' || state === 'Z') return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
};

describe('cookie format', () => {
  it('names its owner: pid and start time', () => {
    const cookie = makeCookie(1234, '5678');
    expect(cookieOwner(cookie)).toEqual({ pid: 1234, start: '5678' });
    expect(cookieOwner('not a cookie')).toBeNull();
  });

  it.runIf(procAvailable())('this process is alive; a pid with another start time (a reused pid) is not the owner', () => {
    expect(ownerAlive(makeCookie(process.pid, startTime(process.pid)))).toBe(true);
    expect(ownerAlive(makeCookie(process.pid, '1'))).toBe(false);
    expect(ownerAlive(deadCookie())).toBe(false);
  });
});

// Real processes started, waited for and killed: on a loaded machine that is seconds, so a hang guard above the
// unit project's 20 s (the waits above may take up to 30 s each before they give up).
describe.runIf(procAvailable())('carriers: found by environment, whatever the group or session', { timeout: 120_000 }, () => {
  it('finds a detached child by its cookie and tag, and killCarriers takes it down', async () => {
    const cookie = makeCookie(process.pid, startTime(process.pid));
    const child = sleeper({ [RUN_COOKIE_VAR]: cookie, [SERVER_TAG_VAR]: 'cell-a:stdio#1' }, true);
    const other = sleeper({ [RUN_COOKIE_VAR]: cookie, [SERVER_TAG_VAR]: 'cell-b:stdio#1' }, true);
    try {
      await waitCarrying(child, other);
      const found = carriers(RUN_COOKIE_VAR, cookie, [SERVER_TAG_VAR])!;
      expect(found.map((c) => c.pid).sort()).toEqual([child.pid, other.pid].sort());
      const mine = found.find((c) => c.pid === child.pid)!;
      expect(mine.pgrp).toBe(child.pid); // its own group: the group check cannot see it
      expect(mine.cmdline).toContain('mm-cookie-test-sleeper');
      expect(mine.vars[SERVER_TAG_VAR]).toBe('cell-a:stdio#1');
      // One cell's tag prefix kills that cell's carrier only.
      expect(killCarriers(cookie, 'cell-a:')!.map((c) => c.pid)).toEqual([child.pid]);
      expect(await waitGone(child.pid!)).toBe(true);
      expect(carriers(RUN_COOKIE_VAR, cookie)!.map((c) => c.pid)).toEqual([other.pid]);
    } finally {
      child.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  });

  it('settleCarriers returns only once every carrier is gone, a stopped one included', async () => {
    const cookie = makeCookie(process.pid, startTime(process.pid));
    const child = sleeper({ [RUN_COOKIE_VAR]: cookie, [SERVER_TAG_VAR]: 'cell-s:stdio#1' }, true);
    try {
      await waitCarrying(child);
      process.kill(child.pid!, 'SIGSTOP');
      // The bound is a hang guard: settleCarriers returns as soon as the stopped carrier is gone.
      expect(await settleCarriers(cookie, 60_000)).toEqual([]);
      expect(carriers(RUN_COOKIE_VAR, cookie)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a carrier of a dead run is orphaned; one of a live run is not', async () => {
    const dead = deadCookie();
    const live = makeCookie(process.pid, startTime(process.pid));
    // A temp dir of its own: an mcp-matrix run starting beside this test (the e2e lanes) sweeps the orphans of its
    // own temp dir, and /tmp's would include this one.
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-orphan-'));
    temps.push(tmp);
    const orphan = sleeper({ [RUN_COOKIE_VAR]: dead, TMPDIR: tmp }, true);
    const owned = sleeper({ [RUN_COOKIE_VAR]: live }, true);
    try {
      await waitCarrying(orphan, owned);
      const orphans = orphanedCarriers()!.map((c) => c.pid);
      expect(orphans).toContain(orphan.pid);
      expect(orphans).not.toContain(owned.pid);
    } finally {
      orphan.kill('SIGKILL');
      owned.kill('SIGKILL');
    }
  });
});

describe.runIf(procAvailable())('sweep at start', { timeout: 120_000 }, () => {
  it('removes run dirs of dead owners, kills the processes of this temp dir’s dead runs, leaves live, kept and unowned dirs and other temp dirs’ orphans alone', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-sweep-'));
    temps.push(tmp);
    const dead = deadCookie();
    const mk = (name: string, owner?: object) => {
      const dir = path.join(tmp, `mcp-matrix-${name}`);
      mkdirSync(path.join(dir, 'cell-x'), { recursive: true });
      if (owner) writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(owner));
      return dir;
    };
    const stale = mk('stale', { pid: cookieOwner(dead)!.pid, cookie: dead, startedAt: '' });
    const live = mk('live', { pid: process.pid, cookie: makeCookie(process.pid, startTime(process.pid)), startedAt: '' });
    const kept = mk('kept', { pid: cookieOwner(dead)!.pid, cookie: dead, startedAt: '', kept: true });
    const unowned = mk('unowned');
    const orphan = sleeper({ [RUN_COOKIE_VAR]: dead, TMPDIR: path.join(tmp, 'own-tmp') }, true);
    // Dead runs of this temp dir that left no run dir here: known by their TMPDIR (TMP/TEMP when it is unset).
    const sameTmp = sleeper({ [RUN_COOKIE_VAR]: deadCookie(), TMPDIR: `${tmp}/` }, true);
    const sameTmpByTmp = sleeper({ [RUN_COOKIE_VAR]: deadCookie(), TMPDIR: '', TMP: tmp }, true);
    // Another temp dir's dead run: its own next run sweeps it (and must find it there to say so).
    const elsewhere = sleeper({ [RUN_COOKIE_VAR]: deadCookie(), TMPDIR: path.join(tmp, 'other') }, true);
    try {
      await waitCarrying(orphan, sameTmp, sameTmpByTmp, elsewhere);
      const swept = sweepStale(tmp);
      await swept.removed;
      expect(swept.dirs).toEqual([{ dir: stale, ownerPid: cookieOwner(dead)!.pid }]);
      expect(swept.processes.map((p) => p.pid).sort()).toEqual([orphan.pid, sameTmp.pid, sameTmpByTmp.pid].sort());
      expect(swept.processes).toContainEqual({ pid: orphan.pid, what: 'node' });
      expect(await waitGone(orphan.pid!)).toBe(true);
      expect(await waitGone(sameTmp.pid!)).toBe(true);
      expect(existsSync(`/proc/${elsewhere.pid}`)).toBe(true);
      expect([stale, live, kept, unowned].map(existsSync)).toEqual([false, true, true, true]);
      const line = describeSwept(swept)!;
      expect(line).toMatch(
        new RegExp(
          `^swept what a dead run left behind: 1 run dir\\(s\\) \\(${stale}, owner pid \\d+ gone\\); killed \\d+ orphaned process\\(es\\) \\(.*pid ${orphan.pid} node`,
        ),
      );
    } finally {
      [orphan, sameTmp, sameTmpByTmp, elsewhere].forEach((c) => c.kill('SIGKILL'));
    }
  });

  it('a kept run dir stays while one of its homes (cells/<id>) links into it, and is swept once none does', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-sweep-kept-'));
    temps.push(tmp);
    const dead = deadCookie();
    const cwd = path.join(tmp, 'work');
    const mk = (name: string, homes: string[]) => {
      const dir = path.join(tmp, `mcp-matrix-${name}`);
      mkdirSync(path.join(dir, 'cell-x'), { recursive: true });
      writeFileSync(
        path.join(dir, OWNER_FILE),
        JSON.stringify({ pid: cookieOwner(dead)!.pid, cookie: dead, startedAt: '', kept: true, homes }),
      );
      return dir;
    };
    const home = (id: string) => path.join(cwd, 'cells', id);
    const linked = mk('linked', [home('a'), home('b')]);
    const replaced = mk('replaced', [home('c')]);
    const removed = mk('removed', [home('d')]);
    const linkedHomes = linkKeptCells(cwd, [
      { id: 'a', dir: path.join(linked, 'cell-x') },
      // A later --keep run took over c: the home now links elsewhere.
      { id: 'c', dir: path.join(linked, 'cell-x') },
    ]);
    expect([...linkedHomes.linked.keys()]).toEqual(['a', 'c']);
    const swept = sweepStale(tmp);
    await swept.removed;
    expect(swept.dirs.map((d) => d.dir).sort()).toEqual([removed, replaced]);
    expect([linked, replaced, removed].map(existsSync)).toEqual([true, false, false]);
  });

  it('nothing to sweep: no line', () => {
    expect(describeSwept({ dirs: [], processes: [] })).toBeUndefined();
  });

  it('never prints a whole command line (it may hold a dead run’s token)', () => {
    expect(shortCommand('/usr/bin/node /tmp/x/node_modules/.bin/server --token s3cr3t')).toBe('node server');
    expect(shortCommand('npm install --no-audit')).toBe('npm install');
  });

  it('a run dir records its owner; --keep marks it kept', async () => {
    const cookie = makeCookie(process.pid, startTime(process.pid));
    const dir = await createRunDir(cookie);
    temps.push(dir);
    expect(readOwner(dir)).toMatchObject({ pid: process.pid, cookie });
    markKept(dir);
    expect(readOwner(dir)).toMatchObject({ kept: true, cookie });
    expect(readOwner(dir)).not.toHaveProperty('homes');
    markKept(dir, ['/work/cells/latest-1']);
    expect(readOwner(dir)).toMatchObject({ kept: true, cookie, homes: ['/work/cells/latest-1'] });
  });

  it('a removal that overruns its bound is handed to a detached remover: the run dir is gone at once, its rest soon after', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-handoff-'));
    temps.push(tmp);
    const dir = path.join(tmp, 'mcp-matrix-handoff');
    for (let i = 0; i < 200; i++) mkdirSync(path.join(dir, `cell-${i % 4}`, 'node_modules', `p${i}`), { recursive: true });
    writeFileSync(path.join(dir, OWNER_FILE), '{}');
    await removeRunDirWithin(dir, 0);
    expect(existsSync(dir)).toBe(false);
    // The detached remover is a node started on a possibly loaded machine: up to ~60 s (a hang guard).
    for (let i = 0; i < 1200 && existsSync(`${dir}.removing`); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(`${dir}.removing`)).toBe(false);
  });
});
