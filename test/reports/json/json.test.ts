import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  parseResults,
  renderHtml,
  renderJson,
  renderJunit,
  renderMarkdown,
  renderSarif,
  writeReportFiles,
} from '../../../src/reports/index.js';
import { makeRun } from '../helpers/make-run.js';

describe('renderJson / parseResults', () => {
  test('round trip', () => {
    const run = makeRun();
    const text = renderJson(run);
    expect(text.startsWith('{\n  "schemaVersion": 2,\n')).toBe(true);
    expect(text.endsWith('}\n')).toBe(true);
    expect(parseResults(text)).toEqual({ ok: true, run });
  });

  test('stable: key order of the input does not matter', () => {
    const run = makeRun();
    const reordered = JSON.parse(JSON.stringify(run, Object.keys(run).reverse())) as typeof run;
    expect(renderJson({ ...reordered, ...run })).toBe(renderJson(run));
    const { host, ...rest } = run;
    expect(renderJson({ host, ...rest })).toBe(renderJson(run));
  });

  test('invalid JSON', () => {
    const result = parseResults('{"schemaVersion": 1,');
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/^not valid JSON .*re-run `mcp-matrix run`/) });
  });

  test('not a results file / wrong schema version', () => {
    expect(parseResults('[]')).toMatchObject({ ok: false, error: expect.stringMatching(/expected a JSON object/) });
    expect(parseResults('{"a":1}')).toMatchObject({ ok: false, error: expect.stringMatching(/no `schemaVersion`/) });
    const newer = parseResults('{"schemaVersion":3}');
    expect(newer).toEqual({
      ok: false,
      error: 'schemaVersion 3 is newer than this mcp-matrix understands (it reads 1 and 2): upgrade mcp-matrix to read it.',
    });
    expect(parseResults('{"schemaVersion":0}')).toEqual({
      ok: false,
      error:
        'schemaVersion 0 is not supported (this mcp-matrix reads 1 and 2): re-run the matrix with this version to produce a compatible results.json.',
    });
    expect(parseResults('{"schemaVersion":"2"}')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^schemaVersion "2" is not supported/),
    });
  });

  test('a schema 2 row must name its cell, and a plan cell its variants', () => {
    type Loose = { cells: Record<string, unknown>[]; plan: { cells: Record<string, unknown>[] } };
    const run = JSON.parse(renderJson(makeRun())) as Loose;
    delete run.cells[0]!.cell;
    run.cells[1]!.client = { pin: '1.0.0', major: 1 };
    run.cells[2]!.node = { spec: 22 };
    delete run.plan.cells[1]!.variants;
    run.plan.cells[2]!.variants = [];
    const result = parseResults(JSON.stringify(run));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain('cells[0].cell: expected a string, got undefined');
      expect(result.error).toContain('cells[1].client.version: expected a string, got undefined');
      expect(result.error).toContain('cells[1].client.package: expected a string, got undefined');
      expect(result.error).toContain('cells[2].node.spec: expected a string, got number');
      expect(result.error).toContain('plan.cells[1].variants: expected an array, got undefined');
      expect(result.error).toContain('plan.cells[2].variants: expected at least one variant, got none');
    }
  });

  test('stored schema 1 evidence is read as schema 2 (each row the only variant of its cell) and renders as it did', () => {
    const v1 = readFileSync(new URL('../fixtures/results-v1.json', import.meta.url), 'utf8');
    expect(JSON.parse(v1)).toMatchObject({ schemaVersion: 1 });
    const result = parseResults(v1);
    if (!result.ok) throw new Error(result.error);
    const { run } = result;
    expect(run.schemaVersion).toBe(2);
    expect(run.cells.map((c) => [c.id, c.cell])).toEqual([
      ['floor-1', 'floor-1'],
      ['latest-1', 'latest-1'],
      ['2.0.0', '2.0.0'],
      ['latest-2', 'latest-2'],
    ]);
    expect(run.plan.cells.map((c) => c.variants)).toEqual([
      [{ id: 'floor-1' }],
      [{ id: 'latest-1' }],
      [{ id: '2.0.0' }],
      [{ id: 'latest-2' }],
    ]);
    // The matrix.md written with that results.json (schema 1), byte for byte: without axes nothing changes.
    expect(renderMarkdown(run)).toBe(readFileSync(new URL('../fixtures/matrix-v1.md', import.meta.url), 'utf8'));
    // Re-rendered, it is a schema 2 file that reads back to the same run.
    expect(parseResults(renderJson(run))).toEqual({ ok: true, run });
  });

  test('a schema 1 file with a broken shape still names the problem with its path', () => {
    const v1 = JSON.parse(readFileSync(new URL('../fixtures/results-v1.json', import.meta.url), 'utf8')) as { cells: { id?: string }[] };
    delete v1.cells[1]!.id;
    const result = parseResults(JSON.stringify(v1));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain('cells[1].id: expected a string, got undefined');
      expect(result.error).toContain('cells[1].cell: expected a string, got undefined');
    }
  });

  test('shape problems are listed with their path', () => {
    type Loose = { cells: { phases: { verdict: string }[]; summary: { leakedHandles: unknown } }[]; plan: { configHash?: string } };
    const run = JSON.parse(renderJson(makeRun())) as Loose;
    run.cells[1]!.phases[0]!.verdict = 'ok';
    delete run.plan.configHash;
    run.cells[2]!.summary.leakedHandles = 'none';
    const result = parseResults(JSON.stringify(run));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain('cells[1].phases[0].verdict: expected one of passed | failed | not-measured | skipped, got "ok"');
      expect(result.error).toContain('plan.configHash: expected a string, got undefined');
      expect(result.error).toContain('cells[2].summary.leakedHandles: expected an array');
    }
  });

  test("how a variant's phases ran is checked when present", () => {
    const run = JSON.parse(renderJson(makeRun())) as { cells: Record<string, unknown>[] };
    run.cells[0]!.phaseRuns = { sideBySide: [['stdio'], ['http', 'bind']], confirmedAlone: ['http'] };
    expect(parseResults(JSON.stringify(run)).ok).toBe(true);
    run.cells[0]!.phaseRuns = { sideBySide: [['stdio']], confirmedAlone: [], inTurn: ['http', 'bind', 'conformance'] };
    expect(parseResults(JSON.stringify(run)).ok).toBe(true);
    run.cells[0]!.phaseRuns = { sideBySide: [['stdio', 'telepathy']], inTurn: ['stdio', 'telepathy'] };
    const result = parseResults(JSON.stringify(run));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain('cells[0].phaseRuns.sideBySide[0][1]: expected one of');
      expect(result.error).toContain('cells[0].phaseRuns.confirmedAlone: expected an array');
      expect(result.error).toContain('cells[0].phaseRuns.inTurn[1]: expected one of');
    }
  });

  test('the SDK copies the servers loaded are checked when present', () => {
    const run = JSON.parse(renderJson(makeRun())) as { cells: { environment: Record<string, unknown> }[] };
    run.cells[0]!.environment.loadedSdk = [
      { server: 'stdio', probe: true, nodeBin: true, answered: 'yes', copies: [{ name: 'x' }], node: 22 },
    ];
    const result = parseResults(JSON.stringify(run));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain('cells[0].environment.loadedSdk[0].answered: expected true or false, got "yes"');
      expect(result.error).toContain('cells[0].environment.loadedSdk[0].copies[0].version: expected a string, got undefined');
      expect(result.error).toContain('cells[0].environment.loadedSdk[0].node: expected a string, got number');
    }
  });
});

describe('writeReportFiles', () => {
  test('writes results.json, matrix.md, matrix.html, matrix.sarif and junit.xml', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-matrix-reports-'));
    try {
      const out = join(dir, 'a', 'b');
      const run = makeRun();
      const paths = await writeReportFiles(run, out);
      expect(paths).toEqual(['results.json', 'matrix.md', 'matrix.html', 'matrix.sarif', 'junit.xml'].map((f) => join(out, f)));
      expect(await readFile(join(out, 'results.json'), 'utf8')).toBe(renderJson(run));
      // Rendered from the stored JSON, so `report results.json` reproduces the files byte for byte.
      const stored = JSON.parse(renderJson(run)) as typeof run;
      expect(await readFile(join(out, 'matrix.md'), 'utf8')).toBe(renderMarkdown(stored));
      expect(await readFile(join(out, 'matrix.html'), 'utf8')).toBe(renderHtml(stored));
      expect(await readFile(join(out, 'junit.xml'), 'utf8')).toBe(renderJunit(stored));
      expect(await readFile(join(out, 'matrix.sarif'), 'utf8')).toBe(renderSarif(stored));
      const only = await writeReportFiles(run, join(dir, 'c'), { junit: false });
      expect(only).toHaveLength(4);
      expect((await readdir(join(dir, 'c'))).sort()).toEqual(['matrix.html', 'matrix.md', 'matrix.sarif', 'results.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
