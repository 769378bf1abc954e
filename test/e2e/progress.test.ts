// Progress matches the result through the real CLI: a failed cell is ✖ in the plain (CI) lines and on a
// TTY (listr2's tree, driven through `script`), npm install is its own step with its time, and after the
// run the terminal names the failing phase and shows the server's last stderr lines.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cli, tempDir } from './helpers/cli.js';

const CONFIG = 'fixtures/broken/crash-on-tool/matrix.config.ts';
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n');

function hasScript(): Promise<boolean> {
  return new Promise((resolve) => execFile('script', ['--version'], (error) => resolve(!error)));
}

describe('progress that matches the result', () => {
  it('plain/CI: the failed cell is ✖, install has its own line with its time, the stderr tail is printed after the run', async () => {
    const out = await tempDir();
    dirs.push(out);
    const r = await cli(['run', '--config', CONFIG, '--out', path.join(out, 'r'), '--progress', 'simple']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^ {2}✔ npm install \(\d+\.\d s\)$/m);
    expect(r.stdout).toMatch(/^ {2}✖ stdio: tools\/call crash: /m);
    expect(r.stdout).toMatch(/^✖ latest-1: FAILED \(stdio failed\) in /m);
    expect(r.stdout).not.toMatch(/✔ latest-1/);
    expect(r.stderr).toMatch(/^latest-1 · stdio: FAIL: tools\/call crash: /m);
    expect(r.stderr).toMatch(/^ {2}server stderr \(last \d+ lines\):$/m);
    expect(r.stderr).toMatch(/^ {2}│ Error: BROKEN: crash in the crash tool$/m);
    expect(r.stderr).toMatch(/^ {2}reproduce: .* run --cell latest-1 /m);
  });

  it.runIf(process.platform === 'linux')('TTY (listr2): the failed cell is ✖, never ✔ or ⚠', async () => {
    expect(await hasScript()).toBe(true);
    const out = await tempDir();
    dirs.push(out);
    const command = `stty cols 200 rows 50; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run --config ${CONFIG} --out ${JSON.stringify(path.join(out, 'r'))} --progress default`;
    const r = await new Promise<{ code: number; text: string }>((resolve) => {
      execFile(
        'script',
        ['-qec', command, '/dev/null'],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm' },
          timeout: 600_000,
          maxBuffer: 64 * 1024 * 1024,
        },
        (error, stdout) => resolve({ code: error ? Number((error as { code?: number }).code ?? -1) : 0, text: plain(stdout) }),
      );
    });
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/✖ latest-1: FAILED \(stdio failed\)/);
    expect(r.text).toMatch(/✔ npm install \(\d+\.\d s\)/);
    expect(r.text).not.toMatch(/[✔⚠] latest-1/);
    expect(r.text).toMatch(/│ Error: BROKEN: crash in the crash tool/);
  });
});
