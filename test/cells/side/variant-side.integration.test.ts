// A cell's variants side by side on a real cell: two variants of a server that takes a fixed port on every start pass
// in turn and collide beside each other; the one that lost the port is run again alone on the cell's own tree and
// passes. A server that writes into its copy sends the cell back to in turn. A lane's later variant leaves bind to its
// first and reports the first's share as its turn's driver would have.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDriver, type DriverLayout } from '../../../src/cells/driver-launch.js';
import { laterStandIns, runOnCopy, takeLater } from '../../../src/cells/side/variant-side.js';
import { sharedWith, type PhaseShare } from '../../../src/judge/phase-share.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import type { CellResult } from '../../../src/results/types.js';
import { findTagged } from '../../../src/driver/server/escaped.js';
import { cellLanes } from '../../../src/orchestrator/cell-lanes.js';
import { currentCookie } from '../../../src/process/cookie.js';
import { baseSpec, buildDriver, makeCell, removeDir, tempDir, testServerPhases, type Cell } from '../../driver/helpers/cell.js';
import { quietPort } from '../../helpers/quiet-port.js';
import { expectConfirmedAloneForCause } from '../../e2e/helpers/confirmed-alone.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const VARIANTS = [
  { id: 'cell~node-20', node: { spec: '20', version: '20.0.0', id: 'node-20' } },
  { id: 'cell~node-22', node: { spec: '22', version: '22.0.0', id: 'node-22' } },
];
let work: string;
let cell: Cell;

beforeAll(async () => {
  work = tempDir('mm-variant-side-');
  cell = await makeCell(1, await buildDriver(join(work, 'build')));
  cpSync(join(FIXTURES, 'fixed-port-server.mjs'), join(cell.dir, 'pkg/fixed-port.mjs'));
  cpSync(join(FIXTURES, 'state-writing-server.mjs'), join(cell.dir, 'pkg/state-writing.mjs'));
}, 240_000);
afterAll(() => {
  removeDir(cell?.dir);
  removeDir(work);
});

/**
 * Each variant's spec and layout: its stdio phase only, on `bin`, with its own work dir and tags (its id). `graceMs`:
 * how long a stopped server may take to exit (the fixed-port server holding its port until the other copy collided).
 */
function variantRun(id: string, bin: string, env: Record<string, string>, graceMs = 8000): { spec: DriverSpec; layout: DriverLayout } {
  const phases = testServerPhases(cell, '', graceMs);
  phases.stdio = phases.stdio && { ...phases.stdio, command: { ...phases.stdio.command, bin: join(cell.dir, 'pkg', bin), env } };
  const base = baseSpec(cell, join(cell.dir, 'pkg'), { ...phases, http: false, bind: false });
  const dir = join(cell.dir, '.mcp-matrix', 'variants', id);
  mkdirSync(dir, { recursive: true });
  const spec = { ...base, workDir: dir, baseEnv: { ...base.baseEnv, MCP_MATRIX_CELL: id } };
  return { spec, layout: { dir, entry: join(cell.driver, 'index.js'), probe: spec.probe, log: join(dir, 'driver.log') } };
}

const options = () => ({ timeoutMs: 120_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
const STDIO_PASSED = [
  ['stdio', 'passed'],
  ['http', 'skipped'],
  ['bind', 'skipped'],
  ['conformance', 'skipped'],
  ['leaks', 'passed'],
];

describe("a cell's variants side by side on a server that holds a fixed port", () => {
  it('in turn, both variants pass: the port is free again before the next server starts', async () => {
    const env = { TEST_FIXED_PORT: String(await quietPort()), TEST_HOLD_MS: '2000' };
    for (const v of VARIANTS) {
      const { spec, layout } = variantRun(v.id, 'fixed-port.mjs', env);
      const outcome = await runDriver(layout, spec, options());
      expect(outcome.results.map((r) => [r.phase, r.verdict])).toEqual(STDIO_PASSED);
    }
  }, 120_000);

  it('beside each other, the variant that lost the port failed there, was run again alone and passed; nothing is left', async () => {
    // The server that took the port holds it, once stopped, until the other copy has found it taken (however late
    // that one starts under load): the two surely collide. The lone run finds the file there and exits at once.
    const env = { TEST_FIXED_PORT: String(await quietPort()), TEST_COLLIDED: join(work, 'variants-collided') };
    const lanes = cellLanes(VARIANTS, new Map());
    const runs = await Promise.all(
      VARIANTS.map((v) => {
        const { spec, layout } = variantRun(v.id, 'fixed-port.mjs', env, 60_000);
        return lanes.run(
          v,
          (lane) => runOnCopy(layout, spec, options(), {}, lane),
          async () => undefined,
        );
      }),
    );
    for (const run of runs) {
      expect(run?.outcome.results.map((r) => [r.phase, r.verdict])).toEqual(STDIO_PASSED);
      expect(run?.ran).toMatchObject({ sideBySide: [['stdio']], variantsBeside: true });
    }
    // Both stdio phases started at once on the one port: one lost it, failed beside the other, and was confirmed alone.
    const confirmed = runs.flatMap(
      (r) => r?.outcome.results.flatMap((p) => (p.details?.confirmedAlone ? [p.details.confirmedAlone] : [])) ?? [],
    );
    expect(confirmed.length).toBeGreaterThan(0);
    expect(confirmed.map((c) => (c as { beside: { verdict: string } }).beside.verdict)).toContainEqual(
      expect.stringMatching(/failed|not-measured/),
    );
    expect(runs.filter((r) => r?.ran?.confirmedAlone.includes('stdio')).length).toBe(confirmed.length);
    for (const c of confirmed) expect((c as { why: string }).why).toMatch(/^it did not pass beside the cell's other variants/);
    // The copies are gone, and no process of either variant's tags is alive.
    expect(readdirSync(dirname(cell.dir)).filter((e) => e.startsWith(`${basename(cell.dir)}.side-`))).toEqual([]);
    const cookie = currentCookie();
    if (cookie) for (const v of VARIANTS) expect(findTagged(cookie, `${v.id}:`)).toEqual([]);
  }, 240_000);

  it('a server that writes into its copy sends the cell back to in turn: that variant and the next run again there', async () => {
    const lanes = cellLanes(VARIANTS, new Map());
    const wrote: (string | undefined)[] = [];
    const rows = await Promise.all(
      VARIANTS.map((v) => {
        const { spec, layout } = variantRun(v.id, 'state-writing.mjs', {});
        return lanes.run(
          v,
          async (lane) => {
            await runOnCopy(layout, spec, options(), {}, lane);
            wrote.push(lane.wrote);
            return `${v.id} beside`;
          },
          async () => `${v.id} in turn`,
        );
      }),
    );
    expect(wrote).toEqual([expect.stringMatching(/^pkg/), expect.stringMatching(/^pkg/)]);
    expect(rows).toEqual(VARIANTS.map((v) => `${v.id} in turn`));
  }, 240_000);
});

describe("a lane's later variant beside its first, on a real driver", () => {
  it("its driver skips bind (stood in for); once the first's row stands it reports the first's share, as in its turn", async () => {
    const lane20 = [VARIANTS[0]!, { id: 'cell~later~node-20', node: VARIANTS[0]!.node }];
    const shares: PhaseShare = new Map();
    const lanes = cellLanes(lane20, shares);
    const measured = {
      phase: 'bind' as const,
      verdict: 'failed' as const,
      durationMs: 412,
      step: 'watch',
      message: 'is listening on 0.0.0.0',
    };
    const rows = await Promise.all(
      lane20.map((v, i) => {
        const { spec, layout } = variantRun(v.id, 'server.mjs', {});
        // The spec as driverSpec makes it: bind on unless stood in for (this test's first measures no real bind).
        const whole: DriverSpec = { ...spec, phases: { ...spec.phases, bind: testServerPhases(cell).bind } };
        return lanes.run(
          v,
          async (lane) => {
            if (i === 0) {
              shares.set('bind on 20.0.0', { variant: v.id, result: measured });
              return undefined;
            }
            expect(lane.later).toBeDefined();
            const ran: DriverSpec = { ...whole, standIns: laterStandIns(whole), phases: { ...whole.phases, bind: false } };
            const beside = await runOnCopy(layout, ran, options(), {}, lane);
            const taken = await lane.later!();
            const final: DriverSpec = { ...whole, standIns: { ...taken }, phases: { ...whole.phases, bind: false } };
            return { beside, took: takeLater(beside.outcome.results, ran, final), final };
          },
          async () => undefined,
        );
      }),
    );
    const later = rows[1]!;
    expect(later.beside.ran).toMatchObject({ sideBySide: [['stdio']], variantsBeside: true });
    // Its stdio ran beside the first's (which measured nothing): confirmed alone only for a cause load can give.
    const row = { id: lane20[1]!.id, phaseRuns: later.beside.ran, phases: later.beside.outcome.results } as unknown as CellResult;
    expectConfirmedAloneForCause(row);
    // The real driver reported the placeholder at bind's place; taken over, it is the first's share.
    expect(later.beside.outcome.results.find((r) => r.phase === 'bind')).toMatchObject({ verdict: 'not-measured', durationMs: 0 });
    const took = 'results' in later.took ? later.took.results : [];
    expect(took.map((r) => [r.phase, r.verdict])).toEqual([
      ['stdio', 'passed'],
      ['http', 'skipped'],
      ['bind', 'failed'],
      ['conformance', 'skipped'],
      ['leaks', 'passed'],
    ]);
    expect(took.find((r) => r.phase === 'bind')).toEqual(JSON.parse(JSON.stringify(sharedWith(shares, lane20[1]!).bind)));
    expect(took.find((r) => r.phase === 'bind')!.details).toMatchObject({ measuredBy: 'cell~node-20', measuredMs: 412 });
  }, 120_000);
});
