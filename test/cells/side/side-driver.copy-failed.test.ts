// runBeside when a later copy of the cell's tree cannot be made (a full disk): the groups already started keep their
// results (their start lines were shown), the other groups' phases run once after them, alone on the cell's own tree.
// The copies and the drivers are replaced (the subject is runBeside's bookkeeping); side-driver.integration.test.ts
// runs the real ones.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Launch from '../../../src/cells/driver-launch.js';
import type * as TreeCopy from '../../../src/cells/side/tree-copy.js';
import { runBeside } from '../../../src/cells/side/side-driver.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import type { PhaseResult } from '../../../src/results/types.js';
import { fail, ok } from '../../../src/util/result.js';

const SIDE = ['stdio', 'http', 'bind', 'conformance'] as const;
const state = vi.hoisted(() => ({
  /** How many copies can be made before the disk is full. */
  copiesLeft: 0,
  copies: [] as string[],
  /** Each driver run: the tree it ran on and the phases it measured. */
  drivers: [] as { cellDir: string; phases: string[] }[],
  /** Phases that fail when run on a copy (beside the others). */
  failBeside: [] as string[],
}));

vi.mock('../../../src/cells/side/tree-copy.js', async (importOriginal) => {
  const real = await importOriginal<typeof TreeCopy>();
  return {
    ...real,
    copyCellTree: async (cellDir: string) => {
      if (state.copiesLeft-- <= 0) return fail('infrastructure', "cannot make a copy of the cell's tree: ENOSPC");
      const copy = `${cellDir}.side-${state.copies.length + 1}`;
      await mkdir(copy, { recursive: true });
      state.copies.push(copy);
      return ok(copy);
    },
    writtenSince: async () => undefined,
    removeCopy: (dir: string) => rm(dir, { recursive: true, force: true }),
  };
});

vi.mock('../../../src/cells/driver-launch.js', async (importOriginal) => {
  const real = await importOriginal<typeof Launch>();
  return {
    ...real,
    writeSpec: async () => 'spec.json',
    runDriver: async (_layout: Launch.DriverLayout, spec: DriverSpec, _options: Launch.DriverOptions, hooks: Launch.DriverHooks = {}) => {
      const phases = SIDE.filter((p) => spec.phases[p]);
      state.drivers.push({ cellDir: spec.cellDir, phases });
      const onCopy = spec.cellDir !== CELL;
      const results: PhaseResult[] = phases.map((phase) => {
        hooks.onPhaseStart?.(phase);
        const failed = onCopy && state.failBeside.includes(phase);
        return { phase, verdict: failed ? 'failed' : 'passed', durationMs: 1, ...(failed ? { message: 'port taken' } : {}) };
      });
      results.push({ phase: 'leaks', verdict: 'passed', durationMs: 1 });
      return { kind: 'done', results, summary: { leakedHandles: [] } };
    },
  };
});

const work = mkdtempSync(join(tmpdir(), 'mm-side-copy-'));
const CELL = join(work, 'cell');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const command = { bin: join(CELL, 'node_modules/srv/bin.js'), args: [], env: {} };
const spec = {
  cellDir: CELL,
  packageDir: join(CELL, 'node_modules/srv'),
  workDir: join(CELL, '.mcp-matrix'),
  probe: join(CELL, '.mcp-matrix/probe.js'),
  baseEnv: { MCP_MATRIX_CELL: 'latest-1' },
  phases: { stdio: { command }, http: { command }, bind: { command }, conformance: { command }, leaks: { graceMs: 1000 } },
} as unknown as DriverSpec;
const layout = { dir: join(CELL, '.mcp-matrix'), entry: 'index.js', probe: spec.probe, log: join(work, 'driver.log') };
const GROUPS = [['stdio'], ['http'], ['bind', 'conformance']] as ('stdio' | 'http' | 'bind' | 'conformance')[][];

async function run() {
  const starts: string[] = [];
  const out = await runBeside(layout, spec, { timeoutMs: 1000, env: {} }, { onPhaseStart: (p) => starts.push(p) }, GROUPS);
  const confirmed = out.outcome.results.filter((r) => r.details?.confirmedAlone).map((r) => r.phase);
  return { ...out, starts, confirmed, verdicts: out.outcome.results.map((r) => [r.phase, r.verdict]) };
}

beforeEach(() => Object.assign(state, { copiesLeft: 0, copies: [], drivers: [], failBeside: [] }));

describe('runBeside: a copy that cannot be made', () => {
  it("the second copy: the first group keeps its results; the others' phases run once after it, alone on the cell's tree", async () => {
    state.copiesLeft = 1;
    const r = await run();
    expect(state.drivers).toEqual([
      { cellDir: `${CELL}.side-1`, phases: ['stdio'] },
      { cellDir: CELL, phases: ['http', 'bind', 'conformance'] },
    ]);
    // Each phase started once: stdio's start line was shown, and stdio is not run again.
    expect(r.starts).toEqual(['stdio', 'http', 'bind', 'conformance']);
    expect(r.ran).toEqual({ sideBySide: [['stdio']], confirmedAlone: [], inTurn: ['http', 'bind', 'conformance'] });
    expect(r.verdicts).toEqual([...SIDE.map((p) => [p, 'passed']), ['leaks', 'passed']]);
    // Nothing ran beside another phase only to be run again: no result says it was confirmed alone.
    expect(r.confirmed).toEqual([]);
    expect(r.outcome.kind).toBe('done');
  });

  it('a started group that did not pass is confirmed in the same lone run as the phases never copied', async () => {
    Object.assign(state, { copiesLeft: 2, failBeside: ['http'] });
    const r = await run();
    // The two groups' drivers start as their copies are whole, in either order; the lone run comes after both.
    expect(state.drivers.slice(0, 2).sort((a, b) => a.cellDir.localeCompare(b.cellDir))).toEqual([
      { cellDir: `${CELL}.side-1`, phases: ['stdio'] },
      { cellDir: `${CELL}.side-2`, phases: ['http'] },
    ]);
    expect(state.drivers.slice(2)).toEqual([{ cellDir: CELL, phases: ['http', 'bind', 'conformance'] }]);
    expect(r.ran).toEqual({ sideBySide: [['stdio'], ['http']], confirmedAlone: ['http'], inTurn: ['bind', 'conformance'] });
    expect(r.confirmed).toEqual(['http']);
    expect(r.verdicts).toEqual([...SIDE.map((p) => [p, 'passed']), ['leaks', 'passed']]);
  });

  it('the first copy: nothing started, every phase in turn in one driver, no phaseRuns', async () => {
    const r = await run();
    expect(state.drivers).toEqual([{ cellDir: CELL, phases: [...SIDE] }]);
    expect(r.starts).toEqual([...SIDE]);
    expect(r.ran).toBeUndefined();
  });

  it('every copy made: the copies are gone at the end', async () => {
    state.copiesLeft = 3;
    const r = await run();
    expect(r.ran).toEqual({ sideBySide: GROUPS, confirmedAlone: [] });
    expect(state.copies).toHaveLength(3);
    expect(state.copies.filter((c) => existsSync(c))).toEqual([]);
  });
});
