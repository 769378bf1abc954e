// Every bind outcome, one fixture each (fixtures/broken/bind-*), run as the CLI runs it on a cell installed once per
// dependency set (helpers/fixture-cell.ts): the phase, the verdict and a message naming the true cause, the exit
// code, and nothing left behind.
import { readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhaseResultOf, RunResult, Verdict } from '../../src/results/types.js';
import { runFixtureCell } from './helpers/fixture-cell.js';
import { phaseTable, type FixtureRun } from './helpers/fixture-run.js';

interface Case {
  fixture: string;
  /** The bind verdict; every other phase must not fail. */
  verdict: Extract<Verdict, 'passed' | 'failed'>;
  outcome: string;
  step?: string;
  /** The bind message; none for a refusal. */
  message?: RegExp;
  extra?(bind: PhaseResultOf<'bind'>, r: RunResult, run: FixtureRun & { env?: Record<string, string> }): Promise<void> | void;
  /** An environment variable the run gets, naming a loopback port this test holds for the whole run. */
  holdPort?: string;
}

const CASES: Case[] = [
  {
    // Issue 9: the old message named the loopback metrics socket, and said "without a token".
    fixture: 'bind-wildcard-metrics',
    verdict: 'failed',
    outcome: 'listened',
    step: 'watch',
    message:
      /^is listening on \[::\]:\d+ \(IPv6 wildcard: every interface\): asked to bind 0\.0\.0\.0 with no token; a request without a token got HTTP 401, so it guards the socket with a token of its own; a non-loopback bind must be refused \(killed it\)\. Also on loopback \(context, not a finding\): 127\.0\.0\.1:\d+$/,
    extra: (bind) => {
      expect(bind.message).not.toMatch(/listening on 127\.0\.0\.1/);
      expect(bind.details!.listened).toMatchObject({ address: '::', scope: 'wildcard' });
      expect(bind.details!.listens).toContainEqual(expect.objectContaining({ address: '127.0.0.1', scope: 'loopback' }));
      expect(bind.details!.unauthenticated).toMatchObject({ status: 401 });
    },
  },
  {
    // Issue 9: it ignores the host; it exposed nothing, so it passes, under its own name.
    fixture: 'bind-loopback-only',
    verdict: 'passed',
    outcome: 'loopback-only',
    message:
      /^loopback only: asked to bind 0\.0\.0\.0 with no token, it did not refuse, but for the whole 8000 ms it only ever listened on loopback \(127\.0\.0\.1:\d+\), so it exposed nothing; killed it at the bound$/,
    extra: async (bind, r, run) => {
      expect(bind.message).not.toMatch(/non-loopback|without a token/);
      expect(bind.details!.listens).toEqual([expect.objectContaining({ address: '127.0.0.1', scope: 'loopback' })]);
      expect(r.exitCode).toBe(0);
      const md = await readFile(path.join(run.outDir, 'matrix.md'), 'utf8');
      // The bind column, found by its header (other columns come and go after it).
      const rows = md.split('\n').filter((l) => l.startsWith('| '));
      const cells = (row: string): string[] => row.split('|').map((c) => c.trim());
      const column = cells(rows[0]!).indexOf('bind refusal');
      expect(column, rows[0]).toBeGreaterThan(0);
      expect(cells(rows[2]!)[column]).toBe('loopback only');
    },
  },
  {
    // Issue 10: with stdio and http off, a bin that cannot load its modules used to pass bind as a refusal.
    fixture: 'bind-could-not-start',
    verdict: 'failed',
    outcome: 'could-not-start',
    step: 'start',
    message:
      /^could not start: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module 'node_modules\/broken-bind-could-not-start\/dist\/server\.js' imported from node_modules\/broken-bind-could-not-start\/bin\/server\.js \(exit code 1\); a crash before its own code ran is not a refusal$/,
    extra: (bind) => expect(bind.details!.startFailure).toMatchObject({ kind: 'could-not-start', source: 'probe' }),
  },
  {
    // Issue 25, class 2: its wildcard listen on a fixed port dies with EADDRINUSE; that used to pass as a refusal.
    fixture: 'bind-fixed-port-taken',
    verdict: 'failed',
    outcome: 'tried-to-listen',
    step: 'watch',
    holdPort: 'BROKEN_FIXED_PORT',
    message:
      /^tried to listen on 0\.0\.0\.0:(\d+) \(IPv4 wildcard: every interface\) without a token \(EADDRINUSE\) \(it was given port \d+, not \1\), then exited \(exit code 1\): asked to bind 0\.0\.0\.0 with no token, it must refuse before it tries any non-loopback listen$/,
    extra: (bind, _r, run) => {
      expect(bind.details!.attempted).toEqual({
        address: '0.0.0.0',
        port: Number(run.env!.BROKEN_FIXED_PORT),
        code: 'EADDRINUSE',
        scope: 'wildcard',
      });
      expect(bind.details).not.toHaveProperty('portRaces');
    },
  },
  {
    // Issue 25, class 7: a logged, handled ERR_MODULE_NOT_FOUND and an error its own handler took, then exit 2: a
    // refusal. It used to be "crashed" (the probe recorded the handled TypeError), else "could not start" (stderr).
    fixture: 'bind-handled-errors',
    verdict: 'passed',
    outcome: 'refused',
    extra: (bind) => {
      expect(bind.details).toMatchObject({ exitCode: 2, stderrLine: expect.stringContaining('refusing to bind 0.0.0.0') });
      expect(bind.details).not.toHaveProperty('startFailure');
    },
  },
  {
    // Issue 13: deleting the exit-0 check changed no test before this fixture.
    fixture: 'bind-exit-zero',
    verdict: 'failed',
    outcome: 'exited-0',
    step: 'exit code',
    message: /^exited 0: a refusal must exit non-zero$/,
    extra: (bind) => expect(bind.details).toMatchObject({ exitCode: 0, stderrLine: expect.stringContaining('refusing to bind 0.0.0.0') }),
  },
  {
    fixture: 'bind-killed-by-signal',
    verdict: 'failed',
    outcome: 'killed-by-signal',
    step: 'exit code',
    message: /^was killed by SIGTERM: a refusal must exit non-zero by itself$/,
    extra: (bind) => expect(bind.details).toMatchObject({ exitCode: null, signal: 'SIGTERM' }),
  },
  {
    fixture: 'bind-never-listens',
    verdict: 'failed',
    outcome: 'never-listened',
    step: 'wait for exit',
    message:
      /^still running after 3000 ms without ever listening: asked to bind 0\.0\.0\.0 with no token, it must exit non-zero by itself \(killed it\); a server without an HTTP transport should set `bind: false`$/,
  },
  {
    fixture: 'bind-cannot-spawn',
    verdict: 'failed',
    outcome: 'cannot-spawn',
    step: 'spawn',
    message:
      /^could not start node_modules\/broken-bind-cannot-spawn\/bin\/server: the interpreter its #! line names, \/opt\/bun\/bin\/bun, does not exist \(spawn ENOENT\)$/,
  },
];

const runs = new Map<string, FixtureRun & { env?: Record<string, string> }>();

/** The fixture's run; a port it must find taken is held (on loopback) by this process for the whole run. */
async function run(c: Case): Promise<FixtureRun & { env?: Record<string, string> }> {
  if (!c.holdPort) return runFixtureCell(c.fixture);
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const env = { [c.holdPort]: String((holder.address() as net.AddressInfo).port) };
  try {
    return { ...(await runFixtureCell(c.fixture, 'mm-broken', env)), env };
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}

beforeAll(async () => {
  // One at a time: the runs take turns in this process (fixture-cell.ts).
  for (const c of CASES) runs.set(c.fixture, await run(c));
}, 900_000);

afterAll(async () => {
  await Promise.all([...runs.values()].map((r) => rm(r.outDir, { recursive: true, force: true })));
});

describe('fixtures/broken/bind-*: every bind outcome, named', () => {
  it.each(CASES.map((c) => [c.fixture, c] as const))('%s', async (fixture, c) => {
    const run = runs.get(fixture)!;
    expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
    const r = run.results!;
    const table = phaseTable(r);
    const cell = r.cells[0]!;
    const bind = cell.phases.find((p) => p.phase === 'bind')!;
    expect(bind.verdict, table).toBe(c.verdict);
    expect(bind.details?.outcome, table).toBe(c.outcome);
    if (c.message) expect(bind.message, table).toMatch(c.message);
    else expect(bind, table).not.toHaveProperty('message');
    if (c.step !== undefined) expect(bind.step, table).toBe(c.step);
    // Only bind may fail; the other phases pass or are off in the fixture's config.
    expect(
      cell.phases.filter((p) => p.verdict === 'failed').map((p) => p.phase),
      table,
    ).toEqual(c.verdict === 'failed' ? ['bind'] : []);
    expect(run.out.code, table).toBe(c.verdict === 'failed' ? 1 : 0);
    expect(cell.verdict, table).toBe(c.verdict);
    if (c.verdict === 'failed') expect(run.out.stdout + run.out.stderr).toContain('bind: FAIL');
    await c.extra?.(bind, r, run);
    expect(run.leftoverDirs).toEqual([]);
    expect(run.leftoverProcs).toEqual([]);
  });
});
