// The programmatic API from src/index.ts (the package's main export): loading a results.json as a typed
// outcome (another schema version is a failure value, never a throw), rendering each report as the files
// are rendered, writing them, and runMatrix's bad input answered at once, printing nothing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadResults, parseResultsText, renderReport, runMatrix, writeReports } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { renderJson } from '../../src/reports/json/json.js';
import { renderMarkdown } from '../../src/reports/markdown/markdown.js';
import { renderSarif } from '../../src/reports/sarif/sarif.js';
import { FOUR_CELLS, makeRun } from '../reports/helpers/make-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-api-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const failingRun = () =>
  makeRun([
    { ...FOUR_CELLS[0]!, phases: { bind: { verdict: 'failed', message: 'listens on 0.0.0.0', details: { outcome: 'listened' } } } },
  ]);

describe('loadResults', () => {
  it('a results.json a run wrote: the typed run', async () => {
    await writeFile(path.join(dir, 'results.json'), renderJson(failingRun()));
    const loaded = await loadResults('results.json', dir);
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.run.cells[0]!.phases.find((p) => p.phase === 'bind')!.verdict).toBe('failed');
  });

  it('another schema version: a usage failure naming the file, the version and what to do (not a throw)', async () => {
    await writeFile(path.join(dir, 'v9.json'), JSON.stringify({ ...makeRun(), schemaVersion: 9 }));
    expect(await loadResults('v9.json', dir)).toEqual({
      ok: false,
      error: {
        kind: 'usage',
        message: `${path.join(dir, 'v9.json')}: schemaVersion 9 is newer than this mcp-matrix understands (it reads 1 and 2): upgrade mcp-matrix to read it.`,
      },
    });
    expect(await parseResultsText('{"schemaVersion":"2"}')).toMatchObject({
      ok: false,
      error: { kind: 'usage', message: expect.stringMatching(/^results\.json: schemaVersion "2" is not supported/) },
    });
  });

  it('a missing file, and one whose stored verdict contradicts its phases: failures, with the details', async () => {
    expect(await loadResults('nope.json', dir)).toEqual({
      ok: false,
      error: { kind: 'usage', message: `cannot read ${path.join(dir, 'nope.json')}: pass the results.json a run wrote` },
    });
    const lying = { ...failingRun(), verdict: 'passed', exitCode: 0 };
    await writeFile(path.join(dir, 'lying.json'), renderJson(lying as ReturnType<typeof failingRun>));
    const loaded = await loadResults('lying.json', dir);
    expect(loaded).toMatchObject({ ok: false, error: { kind: 'usage', message: expect.stringContaining('contradicts itself') } });
    if (!loaded.ok) expect(loaded.error.details!.length).toBeGreaterThan(0);
  });
});

describe('renderReport and writeReports', () => {
  it('each format is the file the CLI writes', async () => {
    const run = failingRun();
    const stored = JSON.parse(renderJson(run)) as typeof run;
    expect(await renderReport(run, 'json')).toBe(renderJson(run));
    expect(await renderReport(run, 'markdown')).toBe(renderMarkdown(stored));
    expect(await renderReport(run, 'sarif')).toBe(renderSarif(stored));
    expect(await renderReport(run, 'html')).toMatch(/^<!doctype html>/i);
    expect(await renderReport(run, 'junit')).toMatch(/^<\?xml /);
    const out = path.join(dir, 'out');
    const written = await writeReports(run, out);
    expect(written).toEqual({
      ok: true,
      value: ['results.json', 'matrix.md', 'matrix.html', 'matrix.sarif', 'junit.xml'].map((f) => path.join(out, f)),
    });
    expect(await readFile(path.join(out, 'matrix.sarif'), 'utf8')).toBe(renderSarif(stored));
    // A file where the directory should be: a failure value.
    expect(await writeReports(run, path.join(out, 'results.json'))).toMatchObject({ ok: false, error: { kind: 'infrastructure' } });
  });
});

describe('runMatrix: bad input is answered at once, as a value, printing nothing', () => {
  const quiet = () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    return { lines, log: createLogger(sink, sink) };
  };

  it('a config object with a mistake: usage (exit 2) naming the key', async () => {
    const outcome = await runMatrix({ cwd: dir, config: { cells: [{ pin: 'latest@1' }], stdio: { expect: { tool: 3 } } } as never });
    expect(outcome).toMatchObject({ ok: false, exitCode: 2, error: { kind: 'usage', message: 'the config object has 1 problem:' } });
    if (!outcome.ok) expect(outcome.error.details!.join('\n')).toMatch(/stdio\.expect.*tool/);
  });

  it('a config file that does not exist: usage; a logger given to `print` gets nothing on failure (the caller prints)', async () => {
    const { lines, log } = quiet();
    const outcome = await runMatrix({ cwd: dir, config: 'missing.config.ts', print: log });
    expect(outcome).toMatchObject({
      ok: false,
      exitCode: 2,
      error: { kind: 'usage', message: expect.stringContaining('missing.config.ts does not exist') },
    });
    expect(lines).toEqual([]);
  });
});
