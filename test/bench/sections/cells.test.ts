// The bench's reading of a cell's time (bench/sections/cells.ts, bench/measure/spawns.ts): http's spec sub-checks set apart as
// the driver timed them (and the overhead with them counted printed beside it), a cell's npm installs read as
// one span (install reuse runs two), and the steps outside the driver split by the harness's marks.
import { describe, expect, it } from 'vitest';
import { cellSteps, summarizeAllCells, summarizeCells } from '../../../bench/sections/cells.js';
import type { Floor } from '../../../bench/measure/floor.js';
import type { CellRow, Run } from '../../../bench/measure/harness.js';
import type { Full } from '../../../bench/sections/rep.js';
import { analyzeSpawns, marksByCell, type ProbeLog } from '../../../bench/measure/spawns.js';

const cell = (id: string, specChecksMs?: number): CellRow => ({
  id,
  cell: id,
  version: '1.0.0',
  verdict: 'passed',
  durationMs: 10_000,
  installMs: 4000,
  phases: {
    stdio: { verdict: 'passed', durationMs: 1500 },
    http: { verdict: 'passed', durationMs: 2000, ...(specChecksMs === undefined ? {} : { specChecksMs }) },
    conformance: { verdict: 'passed', durationMs: 1000 },
  },
});
const floor = (id: string): Floor =>
  ({ id, floorMs: 6000, installMs: 4000, stdioMs: 1000, stdioExitMs: 20, httpMs: 900, httpExitMs: 30, bindMs: 50, rmMs: 10 }) as Floor;
const rep = (cells: CellRow[]): Full =>
  ({ serial: { cells } as Run, parallel: {} as Run, floors: cells.map((c) => floor(c.id)), scale: {} }) as unknown as Full;

describe('section 2 with the http spec sub-checks apart', () => {
  it('takes their recorded time out of http and the cell, and shows the overhead with them counted', () => {
    const [c] = summarizeCells([rep([cell('a', 600)])]);
    expect(c).toMatchObject({ httpMs: 1400, specChecksMs: 600, cellMs: 10_000 - 1000 - 600 });
    expect(c!.overheadMs.http).toBe(500);
    expect(c!.overheadShare).toBeCloseTo((8400 - 6000) / 8400, 3);
    expect(c!.overheadShareWithSpecChecks).toBeCloseTo((9000 - 6000) / 9000, 3);
    const all = summarizeAllCells([rep([cell('a', 600), cell('b', 400)])]);
    expect(all).toMatchObject({ specChecksMs: 1000, httpMs: 3000, minHttpMs: 1800, cellMs: 17_000 });
    expect(all.overheadShare).toBeCloseTo((17_000 - 12_000) / 17_000, 3);
    expect(all.overheadShareWithSpecChecks).toBeCloseTo((18_000 - 12_000) / 18_000, 3);
    expect(all.httpWithSpecChecksRatio).toBeCloseTo(4000 / 1800, 3);
  });

  it('results from before the driver timed them are read as before (http and the overhead include them)', () => {
    const [c] = summarizeCells([rep([cell('a')])]);
    expect(c).toMatchObject({ httpMs: 2000, specChecksMs: undefined, cellMs: 9000 });
    expect(summarizeAllCells([rep([cell('a')])]).specChecksMs).toBeUndefined();
  });
});

const probe: ProbeLog = {
  startedAt: 1000,
  exitedAt: 30_000,
  maxRssKb: 1,
  spawns: [
    { kind: 'spawn', command: 'npm', args: ['install', '--package-lock-only'], cwd: '/tmp/r/cell-a', start: 2000, end: 3000 },
    { kind: 'spawn', command: 'npm', args: ['install'], cwd: '/tmp/r/cell-a', start: 4000, end: 4500 },
    { kind: 'fork', command: '/tmp/r/cell-a/.mcp-matrix/driver/index.js', args: [], cwd: '/tmp/r/cell-a', start: 4600, end: 14_000 },
  ],
  marks: [
    ['dir-start', 1990],
    ['dir-end', 1995],
    ['resolve-end', 3001],
    ['found', 3005],
    ['copied', 3800],
    ['checked', 3950],
    ['install-end', 4501],
    ['ship-end', 4510],
    ['variant-start', 4511],
    ['deps-end', 4512],
    ['suite-end', 4590],
    ['judged', 14_010],
    ['last-variant-end', 14_011],
    ['rechecked', 14_020],
    ['removed', 14_200],
  ].map(([m, at]) => ({ name: `a:${m}`, at: at as number })),
};

describe('the spawn log and the marks', () => {
  it("a cell's npm installs are one span: install end → driver start is from its last install", () => {
    const o = analyzeSpawns(probe);
    expect(o.perCell.a).toMatchObject({ installStart: 1000, installEnd: 3500, driverStart: 3600, driverEnd: 13_000 });
    expect(o.installEndToDriverStartMs).toBe(100);
  });

  it("splits a cell's steps outside the driver by the harness's marks (each moment's first)", () => {
    expect(marksByCell({ ...probe, marks: [...probe.marks!, { name: 'a:judged', at: 20_000 }] }).a!.judged).toBe(13_010);
    expect(cellSteps(analyzeSpawns(probe).perCell.a)).toEqual({
      dirMs: 5,
      resolveMs: 1006,
      copyMs: 795,
      checkMs: 150,
      copyWaitMs: 949,
      npmMs: 551,
      storeMs: undefined,
      verifyShipMs: 9,
      suiteWaitMs: 78,
      toForkMs: 10,
      afterDriverMs: 10,
      recheckMs: 9,
      removalMs: 180,
    });
    expect(cellSteps({ installStart: 0, installEnd: 1, driverStart: undefined, driverEnd: undefined })).toBeUndefined();
  });
});
