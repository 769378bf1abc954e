// The bench's reading of the lifecycle sub-checks' times (bench/measure/lifecycle.ts) and how section 2 sets them
// apart (bench/sections/cells.ts): the phases compared with the minimal client lose exactly the time the driver
// recorded for those checks, and the checks' own table splits it into waits by design and the rest.
import { describe, expect, it } from 'vitest';
import { summarizeAllCells, summarizeCells } from '../../../bench/sections/cells.js';
import type { Floor } from '../../../bench/measure/floor.js';
import type { CellRow, Run } from '../../../bench/measure/harness.js';
import { lifecycleRows, phaseLifecycle, renderLifecycle } from '../../../bench/measure/lifecycle.js';
import type { Full } from '../../../bench/sections/rep.js';
import type { LifecycleTimes } from '../../../src/driver/lifecycle/checks.js';
import { malformed } from '../../helpers/malformed.js';

const TIMES: LifecycleTimes = {
  durationMs: 2000,
  checks: [
    { id: 'unknown-method', durationMs: 20 },
    { id: 'repeated-initialize', durationMs: 660, waits: [{ for: 'the call in flight, answered', ms: 640 }] },
    {
      id: 'cancellation',
      durationMs: 1300,
      waits: [
        { for: 'the call to be under way', ms: 50, deadlineMs: 50 },
        { for: 'a late answer to the cancelled call', ms: 1050, deadlineMs: 1050 },
        { for: 'an exit after the cancellation', ms: 100, deadlineMs: 100 },
      ],
    },
  ],
};

describe('phaseLifecycle', () => {
  it('sums the waits to a deadline, their deadlines and the waits for an answer', () => {
    expect(phaseLifecycle({ lifecycle: TIMES })).toEqual({
      ms: 2000,
      deadlineWaitMs: 1200,
      deadlinesMs: 1200,
      answerWaitMs: 640,
      checks: TIMES.checks,
    });
  });
  it('is undefined when no lifecycle sub-check ran, or the results predate their times', () => {
    expect(phaseLifecycle(undefined)).toBeUndefined();
    expect(phaseLifecycle({})).toBeUndefined();
    expect(phaseLifecycle({ lifecycle: malformed({ checks: [] }) })).toBeUndefined();
  });
});

const cell = (id: string, stdioMs: number, httpMs: number, withTimes: boolean): CellRow => ({
  id,
  cell: id,
  version: '1.0.0',
  verdict: 'passed',
  durationMs: 10_000,
  installMs: 4000,
  phases: {
    stdio: { verdict: 'passed', durationMs: stdioMs, ...(withTimes ? { lifecycle: phaseLifecycle({ lifecycle: TIMES })! } : {}) },
    http: {
      verdict: 'passed',
      durationMs: httpMs,
      ...(withTimes ? { lifecycle: phaseLifecycle({ lifecycle: { ...TIMES, durationMs: 2100, sessionMs: 30 } })! } : {}),
    },
    conformance: { verdict: 'passed', durationMs: 1000 },
  },
});
const floor = (id: string): Floor =>
  ({ id, floorMs: 6000, installMs: 4000, stdioMs: 1000, stdioExitMs: 20, httpMs: 900, httpExitMs: 30, bindMs: 50, rmMs: 10 }) as Floor;
const rep = (cells: CellRow[]): Full =>
  ({ serial: { cells } as Run, parallel: {} as Run, floors: cells.map((c) => floor(c.id)), scale: {} }) as unknown as Full;

describe('section 2 with the lifecycle sub-checks apart', () => {
  it('takes their recorded time out of stdio, http and the cell; a run without it is read as before', () => {
    const [withTimes] = summarizeCells([rep([cell('a', 3500, 4000, true)])]);
    expect(withTimes).toMatchObject({ stdioMs: 1500, httpMs: 1900, lifecycleMs: 4100, cellMs: 10_000 - 1000 - 4100, stdioRatio: 1.5 });
    expect(withTimes!.overheadMs).toMatchObject({ stdio: 500, http: 1000 });
    const [before] = summarizeCells([rep([cell('a', 3500, 4000, false)])]);
    expect(before).toMatchObject({ stdioMs: 3500, lifecycleMs: undefined, cellMs: 9000, stdioRatio: 3.5 });
    const all = summarizeAllCells([rep([cell('a', 3500, 4000, true), cell('b', 3000, 4000, true)])]);
    expect(all).toMatchObject({ stdioMs: 2500, minStdioMs: 2000, stdioRatio: 1.25, lifecycleMs: 8200, stdioWithLifecycleRatio: 3.25 });
    expect(all.overheadShare).toBeCloseTo((2 * 4900 - 12_000) / (2 * 4900), 3);
    expect(all.overheadShareWithLifecycle).toBeCloseTo((18_000 - 12_000) / 18_000, 3);
  });

  it('the lifecycle table: per phase and check, the waits by design beside the wall time, and the rest', () => {
    const rows = lifecycleRows([cell('a', 3500, 4000, true), cell('b', 3500, 4000, true)]);
    expect(rows.map((r) => r.what)).toEqual([
      'stdio unknown-method',
      'stdio repeated-initialize',
      'stdio cancellation',
      'stdio, outside the checks',
      'http unknown-method',
      'http repeated-initialize',
      'http cancellation',
      'http, outside the checks',
    ]);
    expect(rows[2]).toEqual({ what: 'stdio cancellation', ms: 2600, deadlineWaitMs: 2400, deadlinesMs: 2400, answerWaitMs: 0 });
    expect(rows[1]).toMatchObject({ ms: 1320, answerWaitMs: 1280 });
    // http's own session and the loop: 2 × (2100 − 1980).
    expect(rows[7]).toMatchObject({ ms: 240, deadlineWaitMs: 0 });
    const text = renderLifecycle(rows, 2);
    expect(text).toMatch(/all lifecycle sub-checks +8200 ms +4800 ms +4800 ms +2560 ms +840 ms +10\.2 %/);
  });
});
