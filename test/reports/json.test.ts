import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseResults, renderJson, renderJunit, renderMarkdown, writeReports } from '../../src/reports/index.js';
import { makeRun } from './helpers/make-run.js';

describe('renderJson / parseResults', () => {
  test('round trip', () => {
    const run = makeRun();
    const text = renderJson(run);
    expect(text.startsWith('{\n  "schemaVersion": 1,\n')).toBe(true);
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
    expect(parseResults('{"schemaVersion":2}')).toMatchObject({ ok: false, error: expect.stringMatching(/newer .* upgrade mcp-matrix/) });
    expect(parseResults('{"schemaVersion":0}')).toMatchObject({ ok: false, error: expect.stringMatching(/not supported/) });
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

  test('the SDK copies the servers loaded are checked when present', () => {
    const run = JSON.parse(renderJson(makeRun())) as { cells: { environment: Record<string, unknown> }[] };
    run.cells[0]!.environment.loadedSdk = [{ server: 'stdio', probe: true, nodeBin: true, answered: 'yes', copies: [{ name: 'x' }] }];
    const result = parseResults(JSON.stringify(run));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain('cells[0].environment.loadedSdk[0].answered: expected true or false, got "yes"');
      expect(result.error).toContain('cells[0].environment.loadedSdk[0].copies[0].version: expected a string, got undefined');
    }
  });
});

describe('writeReports', () => {
  test('writes results.json, matrix.md and junit.xml', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-matrix-reports-'));
    try {
      const out = join(dir, 'a', 'b');
      const run = makeRun();
      const paths = await writeReports(run, out);
      expect(paths).toEqual(['results.json', 'matrix.md', 'junit.xml'].map((f) => join(out, f)));
      expect(await readFile(join(out, 'results.json'), 'utf8')).toBe(renderJson(run));
      // Rendered from the stored JSON, so `report results.json` reproduces the files byte for byte.
      const stored = JSON.parse(renderJson(run)) as typeof run;
      expect(await readFile(join(out, 'matrix.md'), 'utf8')).toBe(renderMarkdown(stored));
      expect(await readFile(join(out, 'junit.xml'), 'utf8')).toBe(renderJunit(stored));
      const only = await writeReports(run, join(dir, 'c'), { junit: false });
      expect(only).toHaveLength(2);
      expect((await readdir(join(dir, 'c'))).sort()).toEqual(['matrix.md', 'results.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
