// Variants of one cell share its install, so they take turns on it: fixtures/broken/install-lock keeps a lock file
// beside its bin while it runs and refuses to start when another server of the install holds it. Run at once, two
// variants would fail each other; one after another, every variant passes.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phaseTable, runFixture, type FixtureRun } from './helpers/fixture-run.js';

let run: FixtureRun;

beforeAll(async () => {
  run = await runFixture('install-lock', 'mm-variant-turns');
}, 600_000);

afterAll(async () => {
  await rm(run.outDir, { recursive: true, force: true });
});

describe('variants of a cell take turns on its install', () => {
  it('three client variants of a server that locks its install: every variant passes, exit 0, nothing left', () => {
    expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
    const r = run.results!;
    expect(
      r.cells.map((c) => [c.id, c.verdict]),
      phaseTable(r),
    ).toEqual([
      ['latest-1~client-1.23.0', 'passed'],
      ['latest-1~client-1.24.0', 'passed'],
      ['latest-1~client-latest-1', 'passed'],
    ]);
    expect(run.out.code).toBe(0);
    expect(run.leftoverDirs).toEqual([]);
    expect(run.leftoverProcs).toEqual([]);
  });
});
