// Publishable: the harness's own `npm pack`, installed into an empty directory as a user installs it,
// works there: `plan`, and a one-cell `run` against the repository's reference server.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { harnessTarball } from './helpers/harness-tarball.js';
import { exec as run } from './helpers/shell.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let tmp = os.tmpdir();

/** A private TMPDIR: the run directory of the cell stays out of other tests' sight (and goes with `work`). */
const exec = (file: string, args: string[], cwd: string) => run(file, args, cwd, { TMPDIR: tmp }, 300_000);

describe('the packed harness, installed into an empty directory', () => {
  let work: string;
  let app: string;
  let files: string[];
  let installed: { code: number; stderr: string };

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'mm-publish-'));
    app = path.join(work, 'app');
    tmp = path.join(work, 'tmp');
    await mkdir(tmp);
    // `npm test` has just built dist: packed without running prepare again, once per run (helpers/harness-tarball.ts).
    const packed = await harnessTarball(work);
    files = packed.files;
    await mkdir(app);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    installed = await exec('npm', ['install', '--no-audit', '--no-fund', packed.tarball], app);
    // What a user writes: the config imports defineConfig from the installed package.
    await writeFile(
      path.join(app, 'matrix.config.ts'),
      `import { defineConfig } from 'mcp-matrix';
export default defineConfig({
  package: ${JSON.stringify(path.join(ROOT, 'fixtures/reference-server'))},
  bin: 'reference-mcp-server',
  cells: [{ pin: 'floor@1' }, { pin: 'latest@1' }, { pin: '2.0.0' }, { pin: 'latest@2' }],
  stdio: { expect: { tools: 7, resourceTemplates: 2, prompts: 2 } },
});
`,
    );
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('the tarball holds the CLI and the built code, not the sources or tests', () => {
    expect(files).toContain('bin/mcp-matrix.js');
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files.filter((f) => /^(src|test|fixtures|scripts)\//.test(f) || f.includes('.test.'))).toEqual([]);
  });

  test('installs with its runtime dependencies only', () => {
    expect(installed.code, installed.stderr).toBe(0);
    expect(existsSync(path.join(app, 'node_modules/.bin/mcp-matrix'))).toBe(true);
    for (const dev of ['typescript', 'vitest', '@modelcontextprotocol/sdk'])
      expect(existsSync(path.join(app, 'node_modules', dev)), dev).toBe(false);
  });

  test('the installed CLI: plan exits 0', async () => {
    const r = await exec(path.join(app, 'node_modules/.bin/mcp-matrix'), ['plan', '--config', path.join(app, 'matrix.config.ts')], app);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('reference-mcp-server@1.0.0 · bin reference-mcp-server · 4 cell(s)');
  });

  test('the installed CLI: a one-cell run exits 0 and writes results.json', async () => {
    const out = path.join(app, 'out');
    const r = await exec(
      path.join(app, 'node_modules/.bin/mcp-matrix'),
      ['run', '--config', path.join(app, 'matrix.config.ts'), '--cell', 'latest-2', '--out', out, '--progress', 'silent'],
      app,
    );
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')) as RunResult;
    expect(run.verdict).toBe('passed');
    expect(run.tool).toEqual({
      name: 'mcp-matrix',
      version: (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    });
    expect(run.cells.map((c) => `${c.id}:${c.verdict}`)).toEqual(['latest-2:passed']);
    // The config names stdio only: the other server phases are skipped at once, never waited for.
    expect(run.cells[0]!.phases.map((p) => `${p.phase}:${p.verdict}:${p.message ?? ''}:${p.durationMs}`)).toEqual([
      expect.stringMatching(/^environment:passed:/),
      expect.stringMatching(/^stdio:passed:/),
      'http:skipped:not configured:0',
      'bind:skipped:not configured:0',
      'conformance:skipped:no http phase:0',
      'leaks:skipped:not configured:0',
    ]);
    expect(await readFile(path.join(out, 'matrix.md'), 'utf8')).toContain('| skipped (not configured) | skipped (not configured) |');
  });
});
