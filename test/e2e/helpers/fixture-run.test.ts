// The leftover checks of runFixture and runFixtureCell see what their own run left, and never another run's of the same
// fixture beside it in the shared temp dir. The runs end at once (no such config): only the leftover checks are the subject.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './cli.js';
import { runFixtureCell } from './fixture-cell.js';
import { runFixture, type FixtureRun } from './fixture-run.js';
import { processesOfRun } from './procs.js';

// A fixture no other test runs: what is planted for it cannot touch another test's checks.
const FIXTURE = `leftover-probe-${process.pid}`;
const PKG = `broken-${FIXTURE}`;
const dirs: string[] = [];
const sleepers: ChildProcess[] = [];

/** What a run of PKG leaves in `tmp`: a run dir holding its tarball, and a server under a cell's node_modules/PKG/. */
async function plantRun(tmp: string): Promise<{ dir: string; pid: number }> {
  const dir = await mkdtemp(path.join(tmp, 'mcp-matrix-'));
  dirs.push(dir);
  await writeFile(path.join(dir, `${PKG}-1.0.0.tgz`), '');
  const server = path.join(dir, 'cell-latest-1', 'node_modules', PKG, 'index.js');
  await mkdir(path.dirname(server), { recursive: true });
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)', server], { stdio: 'ignore' });
  sleepers.push(sleeper);
  return { dir, pid: sleeper.pid! };
}

const found = (run: FixtureRun): string[] => [...run.leftoverDirs, ...run.leftoverProcs];

let other: { dir: string; pid: number };
beforeAll(async () => {
  // Another run of the same fixture, in the machine's temp dir (another worktree's tests, a CI beside).
  other = await plantRun(os.tmpdir());
});

afterAll(async () => {
  for (const s of sleepers) s.kill('SIGKILL');
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe.each([
  ['runFixture (the CLI)', runFixture],
  ['runFixtureCell (in this process)', runFixtureCell],
])('%s', (_, run) => {
  it("given no TMPDIR: another run's leftovers in the machine's temp dir are not this run's", async () => {
    const ran = await run(FIXTURE, 'mm-leftover-probe', {}, 'no-such.config.ts');
    dirs.push(ran.outDir);
    expect(ran.out.code, ran.out.stderr).toBe(2);
    expect(found(ran).filter((f) => f.includes(other.dir))).toEqual([]);
  });

  it("a leftover of the run's own, in its TMPDIR, is still reported: its run dir and its process", async () => {
    const tmp = await tempDir('mm-leftover-probe-tmp-');
    dirs.push(tmp);
    const mine = await plantRun(tmp);
    const ran = await run(FIXTURE, 'mm-leftover-probe', { TMPDIR: tmp }, 'no-such.config.ts');
    dirs.push(ran.outDir);
    expect(ran.leftoverDirs).toEqual([mine.dir]);
    expect(ran.leftoverProcs).toEqual([expect.stringMatching(new RegExp(`^${mine.pid} `))]);
  });
});

describe('tempDir', () => {
  it("makes its dirs in the suite's temp dir, never in the TMPDIR an in-process run has set meanwhile", async () => {
    const theirs = await tempDir('mm-leftover-probe-theirs-');
    dirs.push(theirs);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = theirs;
    try {
      const mine = await tempDir('mm-leftover-probe-mine-');
      dirs.push(mine);
      expect(path.dirname(mine)).toBe(path.dirname(theirs));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});

describe('processesOfRun', () => {
  it("a process of the run's that names nothing of it but works in its TMPDIR (a server's child) is the run's; another's is not", async () => {
    const [tmp, elsewhere] = await Promise.all([tempDir('mm-leftover-probe-tmp-'), tempDir('mm-leftover-probe-other-')]);
    dirs.push(tmp, elsewhere);
    const cell = path.join(tmp, 'mcp-matrix-abcdef', 'cell-latest-1');
    await mkdir(cell, { recursive: true });
    const marker = `${PKG}-marker`;
    const start = (cwd: string): ChildProcess => {
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)', marker], { cwd, stdio: 'ignore' });
      sleepers.push(child);
      return child;
    };
    const [mine, other] = [start(cell), start(elsewhere)];
    await Promise.all([mine, other].map((c) => new Promise((r) => c.once('spawn', r))));
    expect(processesOfRun(tmp, marker).map((p) => p.pid)).toEqual([mine.pid]);
    expect(processesOfRun(elsewhere, marker).map((p) => p.pid)).toEqual([other.pid]);
  });
});
