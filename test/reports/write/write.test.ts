// Issue 10: "an interrupt while the reports are written exits 130, but the files say PASSED, exit code 0".
// writeRunReports writes the real files into a temp dir; an abort before, during or after the write
// leaves files that say interrupted (exit 130), never PASSED.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempsInFlight, writeReportFiles, writeReportFilesSync, writeRunReports } from '../../../src/reports/write/write.js';
import type { RunResult } from '../../../src/results/types.js';
import { makeRun } from '../helpers/make-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-write-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** What each written file says about the run. */
async function said(
  out: string,
): Promise<{ files: string[]; json: Pick<RunResult, 'verdict' | 'exitCode' | 'interrupted'>; headline: string; htmlTitle: string }> {
  const json = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')) as RunResult;
  const headline = (await readFile(path.join(out, 'matrix.md'), 'utf8')).split('\n')[0]!;
  const htmlTitle = /<title>([^<]*)<\/title>/.exec(await readFile(path.join(out, 'matrix.html'), 'utf8'))?.[1] ?? '';
  return {
    files: (await readdir(out)).sort(),
    json: { verdict: json.verdict, exitCode: json.exitCode, interrupted: json.interrupted },
    headline,
    htmlTitle,
  };
}

/** The temporary files in `out` (none when it does not exist). */
function temps(out: string): string[] {
  try {
    return readdirSync(out).filter((f) => f.endsWith('.tmp'));
  } catch {
    return [];
  }
}

const INTERRUPTED = { verdict: 'interrupted', exitCode: 130, interrupted: true };

describe('writeRunReports: the files never say PASSED over an interrupted run', () => {
  it('without an interrupt: the run as it is, PASSED, exit 0 (the control)', async () => {
    const out = path.join(dir, 'control');
    const r = await writeRunReports(makeRun(), out, { signal: new AbortController().signal });
    expect(r.run).toMatchObject({ verdict: 'passed', exitCode: 0, interrupted: false });
    const files = await said(out);
    expect(files.json).toEqual({ verdict: 'passed', exitCode: 0, interrupted: false });
    expect(files.headline).toMatch(/^# mcp-matrix: PASSED/);
    expect(files.htmlTitle).toMatch(/^mcp-matrix: PASSED/);
    expect(r.written.map((f) => path.basename(f)).sort()).toEqual([
      'junit.xml',
      'matrix.html',
      'matrix.md',
      'matrix.sarif',
      'results.json',
    ]);
  });

  it.each([
    ['before the write starts', (c: AbortController) => c.abort()],
    ['while the files are written (an abort on the next turn of the event loop)', (c: AbortController) => setImmediate(() => c.abort())],
  ])('an interrupt %s: every file says interrupted, exit 130', async (name, interrupt) => {
    const out = path.join(dir, name.split(' ')[0]!);
    const controller = new AbortController();
    interrupt(controller);
    const r = await writeRunReports(makeRun(), out, { signal: controller.signal });
    expect(controller.signal.aborted).toBe(true);
    expect(r.run).toMatchObject(INTERRUPTED);
    const files = await said(out);
    expect(files.files, 'no temporary file left').toEqual(['junit.xml', 'matrix.html', 'matrix.md', 'matrix.sarif', 'results.json']);
    expect(files.json).toEqual(INTERRUPTED);
    expect(files.headline).not.toMatch(/PASSED/);
    expect(files.headline).toMatch(/^# mcp-matrix: INTERRUPTED/);
    expect(files.htmlTitle).toMatch(/^mcp-matrix: INTERRUPTED/);
    expect(r.written.map((f) => path.basename(f)).sort()).toEqual([
      'junit.xml',
      'matrix.html',
      'matrix.md',
      'matrix.sarif',
      'results.json',
    ]);
  });

  it('after the files were written (the CLI still ends with 130): written again, saying interrupted', async () => {
    const out = path.join(dir, 'after');
    const controller = new AbortController();
    const first = await writeRunReports(makeRun(), out, { signal: controller.signal });
    expect((await said(out)).json.verdict).toBe('passed');
    controller.abort();
    const again = await writeRunReports(first.run, out, { signal: controller.signal });
    expect(again.run).toMatchObject(INTERRUPTED);
    expect((await said(out)).json).toEqual(INTERRUPTED);
  });

  it('a run already interrupted is written as it is', async () => {
    const out = path.join(dir, 'already');
    const controller = new AbortController();
    controller.abort();
    const run = makeRun(undefined, { interrupted: true });
    const r = await writeRunReports(run, out, { signal: controller.signal });
    expect(r.run).toBe(run);
    expect((await said(out)).json).toEqual(INTERRUPTED);
  });

  it('a write error without an interrupt is not swallowed', async () => {
    const out = path.join('/proc', 'x');
    await expect(writeRunReports(makeRun(), out, { signal: new AbortController().signal })).rejects.toThrow(/pseudo-filesystem/);
  });
});

// 20 MB reports written twice: 10 s seen in a loaded CI, so a hang guard well above that.
describe('the forced exit writes while the graceful write is still in flight (a slow stop after Ctrl-C)', { timeout: 60_000 }, () => {
  it('neither write fails (each has its own temporary file), none is left, and the files are whole', async () => {
    const out = path.join(dir, 'forced');
    // Big enough that the graceful write of results.json is still going when the forced one runs.
    const run = makeRun(undefined, { warnings: ['x'.repeat(20_000_000)] });
    const graceful = writeReportFiles(run, out);
    const inFlight = (): boolean => temps(out).length > 0;
    for (let i = 0; i < 100_000 && !inFlight(); i++) await new Promise((r) => setImmediate(r));
    expect(inFlight(), 'the graceful write has its temporary file open').toBe(true);
    writeReportFilesSync(makeRun(undefined, { interrupted: true }), out);
    await expect(graceful).resolves.toHaveLength(5);
    expect((await readdir(out)).sort()).toEqual(['junit.xml', 'matrix.html', 'matrix.md', 'matrix.sarif', 'results.json']);
    expect(() => JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'))).not.toThrow();
  });

  it('a write still in flight when the process exits leaves no temporary file (the exit hook removes it)', async () => {
    const out = path.join(dir, 'exit');
    const graceful = writeReportFiles(makeRun(undefined, { warnings: ['x'.repeat(20_000_000)] }), out).catch(() => 'cut short');
    for (let i = 0; i < 100_000 && !temps(out).length; i++) await new Promise((r) => setImmediate(r));
    expect(temps(out), 'in flight').toHaveLength(1);
    removeTempsInFlight();
    expect(temps(out)).toEqual([]);
    expect(process.listeners('exit')).toContain(removeTempsInFlight);
    await graceful;
    expect(temps(out)).toEqual([]);
  });
});
