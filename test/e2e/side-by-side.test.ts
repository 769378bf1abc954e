// The default path of a one-cell run on a machine with spare cores, through the real CLI: its phases side by side
// (the suite's other runs take turns), a failing phase confirmed alone with the message it has in turn, and the
// two ways to take turns (`--in-turn`, `sideBySide: false`). Nothing (process, temp dir) survives a run.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhaseName, RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, type CliOutcome } from './helpers/cli.js';
import { EVERY_PHASE_PASSED } from './helpers/broken-suite.js';
import { expectConfirmedAloneForCause } from './helpers/confirmed-alone.js';
import { leftovers, phaseTable } from './helpers/fixture-run.js';

interface Run {
  out: CliOutcome;
  results?: RunResult;
  tmp: string;
  leftoverDirs: string[];
  leftoverProcs: string[];
}

const dirs: string[] = [];
const runs = new Map<string, Run>();
// The default: nothing in the environment turns side by side off (the suite's cli() does, for every other run).
const DEFAULT = { MCP_MATRIX_SIDE_BY_SIDE: 'on' };

async function run(name: string, fixture: string, extra: string[] = [], config?: string): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), `mm-side-${name}-`));
  dirs.push(tmp);
  const outDir = path.join(tmp, 'out');
  const file = config ?? `fixtures/broken/${fixture}/matrix.config.ts`;
  const out = await cli(['run', '--config', file, '--out', outDir, '--progress', 'silent', ...extra], {
    timeoutMs: 240_000,
    env: { ...DEFAULT, TMPDIR: tmp },
  });
  const results = await readResults(outDir).catch(() => undefined);
  runs.set(name, { out, ...(results ? { results } : {}), tmp, ...leftovers(`broken-${fixture}`, tmp) });
}

beforeAll(async () => {
  if (os.availableParallelism() < 2 || process.platform !== 'linux') return;
  const configDir = await mkdtemp(path.join(os.tmpdir(), 'mm-side-config-'));
  dirs.push(configDir);
  // _base's own config with `sideBySide: false`: imported, as a user's wrapper config would, its package made absolute.
  const base = path.join(ROOT, 'fixtures/broken/_base');
  const inTurnConfig = path.join(configDir, 'matrix.config.ts');
  await writeFile(
    inTurnConfig,
    [
      `import { defineConfig } from 'mcp-matrix';`,
      `import base from ${JSON.stringify(path.join(base, 'matrix.config.ts'))};`,
      `export default defineConfig({ ...base, package: ${JSON.stringify(base)}, sideBySide: false });`,
      '',
    ].join('\n'),
  );
  await Promise.all([run('base', '_base'), run('cancel-crash', 'cancel-crash')]);
  await Promise.all([run('in-turn-flag', '_base', ['--in-turn']), run('in-turn-config', '_base', [], inTurnConfig)]);
}, 900_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const phases = (r: RunResult): [PhaseName, string][] => r.cells[0]!.phases.map((p) => [p.phase, p.verdict]);

async function nothingLeft(r: Run): Promise<void> {
  expect(r.leftoverDirs).toEqual([]);
  expect(r.leftoverProcs).toEqual([]);
  // Every copy of the tree is gone with the run: only its --out is left in its own TMPDIR.
  expect(await readdir(r.tmp)).toEqual(['out']);
}

describe.runIf(os.availableParallelism() >= 2 && process.platform === 'linux')('phases side by side, the default of a one-cell run', () => {
  it('a correct server: the groups ran beside each other and every phase passed', async () => {
    const r = runs.get('base')!;
    expect(r.results, r.out.stderr).toBeDefined();
    expect(r.out.code, phaseTable(r.results!)).toBe(0);
    const cell = r.results!.cells[0]!;
    // Conformance is off in the suite's runs: bind rides with http.
    expect(cell.phaseRuns!.sideBySide).toEqual([['stdio'], ['http', 'bind']]);
    // Its only findings are warn checks failed on its own answers (a foreign Host and Origin served behind its token),
    // which running beside cannot cause (src/judge/beside-proof.ts): they stand.
    const found = cell.phases.flatMap((p) => (p.checks ?? []).filter((c) => c.outcome !== 'passed' && c.outcome !== 'skipped'));
    expect(found.map((c) => [c.id, c.outcome, c.level])).toEqual([
      ['origin', 'failed', 'warn'],
      ['host', 'failed', 'warn'],
    ]);
    // None is confirmed alone for those findings; heavy load may send a phase to be confirmed for a cause of its own.
    expectConfirmedAloneForCause(cell);
    expect(phases(r.results!)).toEqual(EVERY_PHASE_PASSED);
    await nothingLeft(r);
  });

  it('a phase that fails beside the others is run again alone, and that run is the one reported', async () => {
    const r = runs.get('cancel-crash')!;
    expect(r.results, r.out.stderr).toBeDefined();
    expect(r.out.code, phaseTable(r.results!)).toBe(1);
    const cell = r.results!.cells[0]!;
    expect(cell.verdict).toBe('failed');
    expect(cell.phaseRuns!.confirmedAlone).toEqual(expect.arrayContaining(['stdio', 'http']));
    const stdio = cell.phases.find((p) => p.phase === 'stdio')!;
    const http = cell.phases.find((p) => p.phase === 'http')!;
    // The same step and message as in turn (test/e2e/broken.test.ts).
    expect(stdio).toMatchObject({ verdict: 'failed', step: 'notifications/cancelled for tools/call wait' });
    expect(stdio.message).toMatch(
      /^cancellation: after notifications\/cancelled for `tools\/call wait`, the server exited \(code 1\) \[harness, level require\]$/,
    );
    expect(http).toMatchObject({ verdict: 'failed', step: 'notifications/cancelled for tools/call wait' });
    for (const p of [stdio, http])
      expect(p.details!.confirmedAlone).toMatchObject({ why: expect.stringContaining('run again alone'), beside: { verdict: 'failed' } });
    expect(cell.phases.find((p) => p.phase === 'bind')!.verdict).toBe('passed');
    await nothingLeft(r);
  });

  it.each([
    ['in-turn-flag', '`run --in-turn`'],
    ['in-turn-config', '`sideBySide: false` in the config'],
  ])('%s: %s takes turns (no groups recorded), with the same verdicts', async (name) => {
    const r = runs.get(name)!;
    expect(r.results, r.out.stderr).toBeDefined();
    expect(r.out.code, phaseTable(r.results!)).toBe(0);
    expect(r.results!.cells[0]!.phaseRuns).toBeUndefined();
    expect(phases(r.results!)).toEqual(phases(runs.get('base')!.results!));
    await nothingLeft(r);
  });
});
