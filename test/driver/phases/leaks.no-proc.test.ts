// The leaks phase without /proc (macOS, the BSDs, a locked-down container): environments cannot be read, so
// escaped descendants cannot be found, and a process group's members cannot be listed. /proc is switched off
// for the phase only (the test itself still reads it to find what it must clean up); the servers are real.
// What remains is each server's process group, still probed with kill(-pgid, 0): a child left in it fails the
// phase (unnamed), and the details say the escape check could not run.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RUN_COOKIE_VAR } from '../../../src/contract/cookie.js';
import { activeResources } from '../../../src/driver/probe/driver-handles.js';
import { NO_PROC } from '../../../src/driver/server/escaped.js';
import { leaksPhase } from '../../../src/driver/phases/leaks.js';
import { ROOT } from '../helpers/cell.js';
import { phaseBench, serversBooted, type PhaseBench } from '../helpers/phase-bench.js';
import { levels } from '../helpers/levels.js';

vi.mock('../../../src/driver/server/proc.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/driver/server/proc.js')>()),
  procAvailable: () => false,
  groupMembers: () => null,
  carriers: () => null,
}));

const real = await vi.importActual<typeof import('../../../src/driver/server/proc.js')>('../../../src/driver/server/proc.js');

const SERVER = join(ROOT, 'test/driver/fixtures/phase-server.mjs');
const GRACE = 400;
/**
 * For the tests whose server exits by itself (the subject is what is left after it, or what cannot be seen): a loaded
 * machine must not turn the server's own slow exit into "still running", as at 400 ms it can (leaks.test.ts, ROOMY).
 */
const ROOMY = 3_000;
/** The leaks checks at their defaults, as the harness resolves them. */
const LEAKS = levels('leaks');
const num = expect.any(Number) as number;

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-leaks-no-proc-');
});
afterAll(() => bench.dispose());

let started = 0;

async function startBooted(mode: string) {
  const ctx = bench.context();
  const ready = join(bench.cell, `ready-${++started}`);
  const proc = ctx.startServer('stdio', { bin: SERVER, args: [], env: {} }, { MODE: mode, READY_FILE: ready });
  await serversBooted(ctx);
  return { ctx, proc };
}

/** The test's own cleanup, with the real /proc: whatever this context's cookie still marks. */
async function sweep(cookie: string): Promise<number[]> {
  const left = (real.carriers(RUN_COOKIE_VAR, cookie) ?? []).map((c) => c.pid);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return left;
}

describe('leaksPhase without /proc', () => {
  it('a child left in the server group still fails "stdio shutdown": the group answers kill(-pgid, 0), its members cannot be listed', async () => {
    const baseline = activeResources();
    const { ctx, proc } = await startBooted('child');
    const r = await leaksPhase(ctx, ROOMY, baseline, LEAKS);
    const problem = `stdio server exited, but its process group (pgid ${proc.pid}) was still alive ${ROOMY} ms after stdin EOF; no /proc: the processes left in it cannot be listed (killed the group)`;
    const { checks, ...phase } = r;
    expect(checks!.map((c) => [c.id, c.outcome])).toEqual([
      ['shutdown', r.verdict],
      ['temp-files', 'passed'],
    ]);
    expect(phase).toStrictEqual({
      phase: 'leaks',
      durationMs: num,
      verdict: 'failed',
      step: 'stdio shutdown',
      message: problem,
      details: {
        servers: [
          { role: 'stdio', pid: proc.pid, exitMs: num, code: 0, signal: null, handles: [], leftovers: [], unlistedGroup: true, problem },
        ],
        escaped: [],
        escapedCheck: NO_PROC,
        driverHandles: [],
        graceMs: ROOMY,
        tempFiles: [],
      },
      stderrTail: 'phase-server: started 1 child(ren)',
    });
    expect(ctx.summary.leakedHandles).toStrictEqual([
      { owner: 'server:stdio', type: 'process', location: `process group ${proc.pid} (members unknown without /proc)` },
    ]);
    // The group was killed: nothing of it is left for the test to clean up.
    expect(await sweep(ctx.cookie)).toEqual([]);
  });

  it('a Node server still running is still asked for its handles: the bin is a Node script, so its own pid is the target', async () => {
    const baseline = activeResources();
    const { ctx, proc } = await startBooted('linger');
    const r = await leaksPhase(ctx, GRACE, baseline, LEAKS);
    const line = readFileSync(SERVER, 'utf8')
      .split('\n')
      .findIndex((l) => l.startsWith('  setInterval(() => {}, 1000);'));
    const timer = { type: 'Timeout', location: `${SERVER}:${line + 1}`, createdBy: 'setInterval' };
    const problem = `stdio server still running ${GRACE} ms after stdin EOF: Timeout (setInterval) at ${timer.location}`;
    const { checks, ...phase } = r;
    expect(checks!.map((c) => [c.id, c.outcome])).toEqual([
      ['shutdown', r.verdict],
      ['temp-files', 'passed'],
    ]);
    expect(phase).toStrictEqual({
      phase: 'leaks',
      durationMs: num,
      verdict: 'failed',
      step: 'stdio shutdown',
      message: problem,
      details: {
        servers: [{ role: 'stdio', pid: proc.pid, exitMs: null, handles: [timer], leftovers: [], problem }],
        escaped: [],
        escapedCheck: NO_PROC,
        driverHandles: [],
        graceMs: GRACE,
        tempFiles: [],
      },
      stderrTail: 'phase-server: lingering',
    });
    expect(await sweep(ctx.cookie)).toEqual([]);
  });

  it('a detached child cannot be seen: leaks passes, and the details say the escape check did not run', async () => {
    const baseline = activeResources();
    const { ctx, proc } = await startBooted('escape');
    const r = await leaksPhase(ctx, ROOMY, baseline, LEAKS);
    const { checks, ...phase } = r;
    expect(checks!.map((c) => [c.id, c.outcome])).toEqual([
      ['shutdown', r.verdict],
      ['temp-files', 'passed'],
    ]);
    expect(phase).toStrictEqual({
      phase: 'leaks',
      durationMs: num,
      verdict: 'passed',
      details: {
        servers: [{ role: 'stdio', pid: proc.pid, exitMs: num, code: 0, signal: null, handles: [], leftovers: [] }],
        escaped: [],
        escapedCheck: NO_PROC,
        driverHandles: [],
        graceMs: ROOMY,
        tempFiles: [],
      },
    });
    // The documented limit: the escaped child is still alive (the orchestrator's end-of-run sweep would need /proc too).
    expect(await sweep(ctx.cookie)).toHaveLength(1);
  });
});
