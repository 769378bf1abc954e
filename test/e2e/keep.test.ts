// --keep through the real CLI: each kept cell gets a home, `cells/<id>` in the working directory, linking to
// its directory in the run directory (outside the package); the printed line steps into it and re-runs its
// driver, which measures again. An interrupted --keep run keeps what ran; without --keep nothing is left.
import { execFile, spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, readResults, ROOT, tempDir } from './helpers/cli.js';
import { processes, runDirs, sleep } from './helpers/procs.js';
import type { DriverMessage } from '../../src/contract/protocol.js';
import { TEST_CACHE_ENV } from '../helpers/node-runtimes.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A working directory and a TMPDIR of its own, so that what the run leaves can be seen whole. */
async function scratch(): Promise<{ cwd: string; tmp: string; env: Record<string, string> }> {
  const root = await tempDir('mm-keep-');
  dirs.push(root);
  const cwd = path.join(root, 'work');
  const tmp = path.join(root, 'tmp');
  await Promise.all([mkdir(cwd), mkdir(tmp)]);
  return { cwd, tmp, env: { TMPDIR: tmp } };
}

const CONFIG = path.join(ROOT, 'matrix.config.ts');

describe('--keep', () => {
  it('kept cells live at cells/<id>; the printed line re-runs the driver there; a later run takes the home over', async () => {
    const s = await scratch();
    const out = await cli(['run', '--config', CONFIG, '--cell', 'latest-2', '--out', 'out', '--progress', 'silent', '--keep'], {
      cwd: s.cwd,
      env: s.env,
    });
    expect(out.code, out.stderr).toBe(0);
    const home = path.join(s.cwd, 'cells', 'latest-2');
    const results = await readResults(path.join(s.cwd, 'out'));
    expect(results.cells[0]!.cellDir).toBe(home);
    expect(lstatSync(home).isSymbolicLink()).toBe(true);
    const real = realpathSync(home);
    const [runDir] = runDirs(s.tmp);
    expect(real).toBe(path.join(realpathSync(runDir!), 'cell-latest-2'));
    expect(JSON.parse(readFileSync(path.join(runDir!, 'owner.json'), 'utf8'))).toMatchObject({ kept: true, homes: [home] });

    const line = out.stdout.split('\n').find((l) => l.trim().startsWith('cd cells/'));
    expect(out.stdout).toContain(
      'kept 1 cell directory (--keep); step into one and re-run a driver (its log: driver.log beside its spec):',
    );
    expect(line?.trim()).toBe('cd cells/latest-2 && node .mcp-matrix/driver/index.js .mcp-matrix/spec.json');

    // Re-run exactly what was printed: without IPC the driver writes its messages as JSON lines (here to stderr).
    const rerun = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        'sh',
        ['-c', line!.trim()],
        { cwd: s.cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
        (error, _o, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stderr }),
      ),
    );
    expect(rerun.code, rerun.stderr).toBe(0);
    const messages = rerun.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as DriverMessage);
    const verdicts = messages.flatMap((m) => (m.type === 'phase-result' ? [`${m.result.phase}: ${m.result.verdict}`] : []));
    expect(verdicts).toEqual(['stdio: passed', 'http: passed', 'bind: passed', 'conformance: skipped', 'leaks: passed']);
    expect(messages.at(-1)?.type).toBe('done');

    // A second --keep run of the same cell takes the home over; the first run's directory is no longer linked.
    const again = await cli(['run', '--config', CONFIG, '--cell', 'latest-2', '--out', 'out', '--progress', 'silent', '--keep'], {
      cwd: s.cwd,
      env: s.env,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(realpathSync(home)).not.toBe(real);
    expect(existsSync(path.join(realpathSync(home), '.mcp-matrix', 'spec.json'))).toBe(true);
  });

  it('a kept variant: its printed line runs its driver again from its client install, on its own spec', async () => {
    const s = await scratch();
    const config = path.join(s.cwd, 'axes.config.ts');
    await writeFile(
      config,
      `import base from ${JSON.stringify(CONFIG)};\nexport default { ...base, package: ${JSON.stringify(path.join(ROOT, 'fixtures/reference-server'))}, clients: ['latest@2'] };\n`,
    );
    const out = await cli(['run', '--config', config, '--cell', 'latest-2', '--out', 'out', '--progress', 'silent', '--keep'], {
      cwd: s.cwd,
      env: s.env,
    });
    expect(out.code, out.stderr).toBe(0);
    const [runDir] = runDirs(s.tmp);
    const entry = path.join(runDir!, 'clients', 'client-latest-2', '.mcp-matrix', 'driver', 'index.js');
    const line = out.stdout
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('cd cells/'));
    expect(line).toBe(`cd cells/latest-2 && node ${entry} .mcp-matrix/variants/latest-2~client-latest-2/spec.json`);
    const rerun = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        'sh',
        ['-c', line!],
        { cwd: s.cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
        (error, _o, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stderr }),
      ),
    );
    expect(rerun.code, rerun.stderr).toBe(0);
    const messages = rerun.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as DriverMessage);
    expect(messages.flatMap((m) => (m.type === 'phase-result' ? [`${m.result.phase}: ${m.result.verdict}`] : []))).toEqual([
      'stdio: passed',
      'http: passed',
      'bind: passed',
      'conformance: skipped',
      'leaks: passed',
    ]);
    expect(messages.at(-1)?.type).toBe('done');
  });

  it('an interrupted --keep run keeps the cell that was running, at its home', async () => {
    const s = await scratch();
    const child = spawn(
      process.execPath,
      [BIN, 'run', '--config', CONFIG, '--cell', 'latest-1', '--out', 'out', '--progress', 'silent', '--keep'],
      {
        cwd: s.cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...TEST_CACHE_ENV,
          NO_COLOR: '1',
          CI: 'true',
          ...s.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Wait until the cell's driver runs a server of the package.
    const deadline = Date.now() + 240_000;
    while (Date.now() < deadline && child.exitCode === null) {
      if (processes().some((p) => p.cmdline.includes(s.tmp) && p.cmdline.includes('reference-mcp-server'))) break;
      await sleep(100);
    }
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    const home = path.join(s.cwd, 'cells', 'latest-1');
    expect(lstatSync(home).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(home, '.mcp-matrix', 'spec.json')), 'the home links to the kept cell').toBe(true);
    const [runDir] = runDirs(s.tmp);
    expect(JSON.parse(readFileSync(path.join(runDir!, 'owner.json'), 'utf8'))).toMatchObject({ kept: true, homes: [home] });
  });

  it('without --keep nothing is left: no cells/ home, no run directory', async () => {
    const s = await scratch();
    const out = await cli(['run', '--config', CONFIG, '--cell', 'latest-2', '--out', 'out', '--progress', 'silent'], {
      cwd: s.cwd,
      env: s.env,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(path.join(s.cwd, 'cells'))).toBe(false);
    expect(runDirs(s.tmp)).toEqual([]);
    expect(out.stdout).not.toContain('kept');
  });
});
