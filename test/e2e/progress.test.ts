// Progress matches the result through the real CLI: a failed cell is ✖ in the plain (CI) lines and on a
// TTY (listr2's tree, driven through `script`), npm install is its own step with its time, and after the
// run the terminal names the failing phase and shows the server's last stderr lines.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cli, tempDir, writeConfig } from './helpers/cli.js';
import { finalScreen } from './helpers/screen.js';
import { TEST_CACHE_ENV } from '../helpers/node-runtimes.js';

const CONFIG = 'fixtures/broken/crash-on-tool/matrix.config.ts';
const COLUMNS = 200;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function hasScript(): Promise<boolean> {
  return new Promise((resolve) => execFile('script', ['--version'], (error) => resolve(!error)));
}

describe('progress that matches the result', () => {
  it('plain/CI: the failed cell is ✖, install has its own line with its time, the stderr tail is printed after the run', async () => {
    const out = await tempDir();
    dirs.push(out);
    const r = await cli(['run', '--config', CONFIG, '--out', path.join(out, 'r'), '--progress', 'simple'], { env: { CI: 'true' } });
    expect(r.code, r.stderr).toBe(1);
    // A network error on an attempt is retried (`2 attempts, 12.3 s`): the registry's, not the run's, and still its own line.
    expect(r.stdout).toMatch(/^ {2}✔ npm install \((\d+ attempts, )?\d+\.\d s\)$/m);
    expect(r.stdout).toMatch(/^ {2}✖ stdio: tools\/call crash: /m);
    expect(r.stdout).toMatch(/^✖ latest-1: FAILED \(stdio failed\) in /m);
    expect(r.stdout).not.toMatch(/✔ latest-1/);
    expect(r.stderr).toMatch(/^latest-1 · stdio: FAIL: tools\/call crash: /m);
    expect(r.stderr).toMatch(/^ {2}server stderr \(last \d+ lines\):$/m);
    expect(r.stderr).toMatch(/^ {2}│ Error: BROKEN: crash in the crash tool$/m);
    expect(r.stderr).toMatch(/^ {2}reproduce: .* run --cell latest-1 /m);
  });

  it.runIf(process.platform === 'linux')(
    'TTY (listr2): one tree on the final screen, each cell once with its own mark (✖, never ✔ or ⚠), each phase once',
    async () => {
      expect(await hasScript()).toBe(true);
      const out = await tempDir();
      dirs.push(out);
      // Two cells at once, one phase disabled: the tree must be redrawn in place, not appended frame after frame.
      const config = await writeConfig(
        out,
        `{
          package: ${JSON.stringify(path.join(ROOT, 'fixtures/broken/crash-on-tool'))},
          cells: [{ pin: 'floor@1', role: 'floor' }, { pin: 'latest@1', role: 'latest 1.x' }],
          stdio: { expect: { tools: ['echo', 'add', 'crash'] }, steps: [{ tool: 'crash', expect: { text: 'never' } }] },
          http: false,
          bind: false,
          leaks: { graceMs: 3000 },
          lockstep: 'off',
        }`,
      );
      const command = `stty cols ${COLUMNS} rows 50; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run --config ${JSON.stringify(config)} --out ${JSON.stringify(path.join(out, 'r'))} --progress default --concurrency 2`;
      const r = await new Promise<{ code: number; raw: string }>((resolve) => {
        execFile(
          'script',
          ['-qec', command, '/dev/null'],
          {
            cwd: ROOT,
            env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...TEST_CACHE_ENV, TERM: 'xterm' },
            timeout: 600_000,
            maxBuffer: 64 * 1024 * 1024,
          },
          (error, stdout) => resolve({ code: error ? Number((error as { code?: number }).code ?? -1) : 0, raw: stdout }),
        );
      });
      expect(r.code).toBe(1);
      const screen = finalScreen(r.raw, COLUMNS);
      const text = screen.join('\n');
      const count = (re: RegExp) => screen.filter((l) => re.test(l)).length;
      for (const id of ['floor-1', 'latest-1']) {
        expect(count(new RegExp(`^✖ ${id}: FAILED \\(stdio failed[^)]*\\) in `)), `${id}\n${text}`).toBe(1);
        expect(count(new RegExp(`[✔⚠↓⊘] ${id}\\b`)), text).toBe(0);
      }
      expect(count(/^ {2}✔ npm install \((\d+ attempts, )?\d+\.\d s\)$/), text).toBe(2);
      expect(count(/^ {2}✖ stdio: tools\/call crash: /), text).toBe(2);
      expect(count(/^ {2}↓ http: skipped \(disabled\)$/), text).toBe(2);
      expect(count(/^ {2}↓ bind: skipped \(disabled\)$/), text).toBe(2);
      expect(count(/^ {2}[✔✖] leaks\b/), text).toBe(2); // floor@1's own client may leave a timer (a finding of its own)
      expect(text).not.toContain('⚠');
      expect(text).toMatch(/│ Error: BROKEN: crash in the crash tool/);
    },
  );
});
