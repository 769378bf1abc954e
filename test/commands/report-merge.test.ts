// `report` and `merge` on real files: a schema 1 results.json and the pieces of a run with axes.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mergeCommand } from '../../src/commands/merge.js';
import { reportCommand } from '../../src/commands/report.js';
import { createLogger } from '../../src/logger.js';
import { renderJson, renderMarkdown, renderSarif } from '../../src/reports/index.js';
import { CLIENT_NEW, CLIENT_OLD, makeRun, NODE_22, pieceOf, variantSpecs } from '../reports/helpers/make-run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-matrix-report-merge-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function logger() {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: '', err: '' };
  out.on('data', (d: Buffer) => (text.out += d.toString()));
  err.on('data', (d: Buffer) => (text.err += d.toString()));
  return { log: createLogger(out, err), text };
}

describe('report', () => {
  test('a stored schema 1 results.json is re-rendered as it was, and rewritten as schema 2', async () => {
    const v1 = new URL('../reports/fixtures/results-v1.json', import.meta.url);
    await writeFile(join(dir, 'results.json'), await readFile(v1, 'utf8'));
    const { log } = logger();
    expect(await reportCommand('results.json', { cwd: dir, junit: true }, log)).toBe(0);
    const md = await readFile(join(dir, 'matrix.md'), 'utf8');
    expect(md).toBe(await readFile(new URL('../reports/fixtures/matrix-v1.md', import.meta.url), 'utf8'));
    const rewritten = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as { schemaVersion: number; cells: { cell: string }[] };
    expect(rewritten.schemaVersion).toBe(2);
    expect(rewritten.cells.map((c) => c.cell)).toEqual(['floor-1', 'latest-1', '2.0.0', 'latest-2']);
    // matrix.sarif beside them, rendered from the stored run.
    expect(await readFile(join(dir, 'matrix.sarif'), 'utf8')).toBe(renderSarif(rewritten as Parameters<typeof renderSarif>[0]));
  });

  test('a results.json of an unknown schema version is refused in one line', async () => {
    await writeFile(join(dir, 'results.json'), JSON.stringify({ ...makeRun(), schemaVersion: 7 }));
    const { log } = logger();
    const result = await reportCommand('results.json', { cwd: dir, junit: true }, log);
    expect(result).toEqual({
      kind: 'usage',
      message: `${join(dir, 'results.json')}: schemaVersion 7 is newer than this mcp-matrix understands (it reads 1 and 2): upgrade mcp-matrix to read it.`,
    });
  });
});

describe('merge', () => {
  test('the pieces of a fan-out over variants merge into the run, and a lost variant fails the gate naming its --cell run', async () => {
    const run = makeRun(
      variantSpecs(
        { 'v2-latest~client-1.0.0~node-22': { phases: { stdio: { verdict: 'failed', message: 'resource_link' } } } },
        undefined,
        [CLIENT_OLD, CLIENT_NEW],
        [NODE_22],
      ),
    );
    const files = await Promise.all(
      run.cells.map(async (cell, i) => {
        const file = join(dir, `piece-${i}.json`);
        const piece = pieceOf(run, cell.id, `2026-08-25T10:0${i}:00.000Z`, `2026-08-25T10:0${i}:30.000Z`);
        await writeFile(file, renderJson({ ...piece, plan: { ...piece.plan, selected: [cell.id] } }));
        return file;
      }),
    );
    const { log, text } = logger();
    expect(await mergeCommand(files, { cwd: dir, out: 'merged' }, log)).toBe(1);
    const md = await readFile(join(dir, 'merged', 'matrix.md'), 'utf8');
    expect(md).toContain('4 variants of 2 cells: 3 passed, 1 failed · exit code 1');
    // As if the whole matrix had run in one process (and been stored: keys sorted).
    const whole = { ...run, startedAt: '2026-08-25T10:00:00.000Z', finishedAt: '2026-08-25T10:03:30.000Z', durationMs: 210_000 };
    expect(md).toBe(renderMarkdown(JSON.parse(renderJson(whole)) as typeof whole));
    expect(text.out).toContain('| ″ | latest@2 → 2.1.0 · 2025-06-18 | 5 |');
    const junit = await readFile(join(dir, 'merged', 'junit.xml'), 'utf8');
    expect(junit).toContain('<testcase classname="v2-latest~client-1.0.0~node-22" name="stdio"');
    const sarif = JSON.parse(await readFile(join(dir, 'merged', 'matrix.sarif'), 'utf8')) as {
      runs: { results: { ruleId: string; properties: { variants: string[] } }[] }[];
    };
    expect(sarif.runs[0]!.results.map((r) => [r.ruleId, r.properties.variants])).toEqual([
      ['stdio/failed', ['v2-latest~client-1.0.0~node-22']],
    ]);

    const lost = logger();
    expect(await mergeCommand(files.slice(1), { cwd: dir, out: 'lost' }, lost.log)).toBe(1);
    expect(lost.text.err).toContain(
      'merge: variant v1-latest~client-1.0.0~node-22 of cell v1-latest (pin latest@1) has no evidence: no piece contains it. The `mcp-matrix run --cell v1-latest~client-1.0.0~node-22` run produced no results.json',
    );
  });
});
