// bind never uses the client: the variants of a cell on one Node release share the first clean bind measurement
// (src/judge/phase-share.ts, toShare). Through the real CLI with a client axis of two pins on the host's Node:
// a failing bind is reported, unchanged, on every variant, the later one naming the variant that measured it; a
// variant whose leaks failed (its bind server may be the leak) shares nothing, so the next variant runs bind itself.
import path from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellResult, RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, tempDir, writeConfig, type CliOutcome } from './helpers/cli.js';
import { leftovers, phaseTable } from './helpers/fixture-run.js';

const dirs: string[] = [];
const runs = new Map<string, { out: CliOutcome; results: RunResult; tmp: string }>();

async function runWithClients(fixture: string): Promise<void> {
  const tmp = await tempDir(`mm-bind-shared-${fixture}-`);
  dirs.push(tmp);
  const config = await writeConfig(
    tmp,
    `{ package: ${JSON.stringify(path.join(ROOT, 'fixtures/broken', fixture))}, cells: [{ pin: 'latest@1' }], clients: ['latest@1', 'latest@2'],
       stdio: { expect: { tools: ['echo', 'add'] }, steps: [{ tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } }] },
       http: { args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}' } },
       bind: { args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'] }, leaks: { graceMs: 3000 }, lockstep: 'off' }`,
  );
  const outDir = path.join(tmp, 'out');
  // The run's own TMPDIR: what it left is looked for there, not in another run of the fixture on the machine.
  const runTmp = path.join(tmp, 'tmp');
  await mkdir(runTmp);
  const out = await cli(['run', '--config', config, '--out', outDir, '--progress', 'simple'], {
    timeoutMs: 300_000,
    env: { TMPDIR: runTmp },
  });
  runs.set(fixture, { out, results: await readResults(outDir), tmp: runTmp });
}

beforeAll(async () => {
  await Promise.all([runWithClients('bind-no-token'), runWithClients('stdin-eof-timer')]);
}, 900_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const bindOf = (row: CellResult) => row.phases.find((p) => p.phase === 'bind')!;
const failedPhases = (row: CellResult) => row.phases.filter((p) => p.verdict === 'failed').map((p) => p.phase);

describe('bind, measured once per cell and Node release', () => {
  it('bind-no-token: both client variants fail bind with the same message; the second names the variant that measured it', () => {
    const { out, results: r, tmp } = runs.get('bind-no-token')!;
    const table = phaseTable(r);
    expect(out.code, table).toBe(1);
    expect(r.cells.map((c) => [c.id, c.verdict])).toEqual([
      ['latest-1~client-latest-1', 'failed'],
      ['latest-1~client-latest-2', 'failed'],
    ]);
    const [first, second] = r.cells as [CellResult, CellResult];
    for (const row of [first, second]) expect(failedPhases(row), table).toEqual(['bind']);
    const measured = bindOf(first);
    expect(measured.message).toMatch(
      /^is listening on 0\.0\.0\.0:\d+ \(IPv4 wildcard: every interface\): asked to bind 0\.0\.0\.0 with no token; a request without a token got HTTP 200: anyone who can reach it can use it; a non-loopback bind must be refused \(killed it\)$/,
    );
    expect(measured.details?.measuredBy).toBeUndefined();
    expect(measured.durationMs).toBeGreaterThan(0);
    const shared = bindOf(second);
    expect(shared).toMatchObject({ verdict: 'failed', step: measured.step, message: measured.message, durationMs: 0 });
    expect(shared.details).toMatchObject({ ...measured.details, measuredBy: first.id, measuredMs: measured.durationMs });
    // Progress says so, and the leak check of the first variant covered the bind server it started.
    expect(out.stdout).toContain(`[${second.id}] ✖ bind: ${measured.message} (as measured by ${first.id})`);
    expect(first.phases.find((p) => p.phase === 'leaks')!.verdict).toBe('passed');
    expect(leftovers('broken-bind-no-token', tmp)).toEqual({ leftoverDirs: [], leftoverProcs: [] });
  });

  it('stdin-eof-timer: a variant whose leaks failed shares no bind; the next variant runs bind itself', () => {
    const { out, results: r } = runs.get('stdin-eof-timer')!;
    const table = phaseTable(r);
    expect(out.code, table).toBe(1);
    for (const row of r.cells) {
      expect(failedPhases(row), table).toEqual(['leaks']);
      const bind = bindOf(row);
      expect(bind.verdict, table).toBe('passed');
      expect(bind.details?.measuredBy, table).toBeUndefined();
      expect(bind.durationMs).toBeGreaterThan(0);
    }
    expect(r.cells).toHaveLength(2);
  });
});
