// The bin before main() exists: loading the CLI can fail on the machine (no file descriptors left) or on a copy
// that was never built. Neither is a verdict on a server: exit 3 with the cause, never exit 1 with a raw stack.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../e2e/helpers/cli.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function run(shell: string) {
  return spawnSync('sh', ['-c', shell], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('bin/mcp-matrix.js: a harness that cannot load', () => {
  it('out of file descriptors (ulimit -n 20) while loading: exit 3 naming EMFILE, no stack (was exit 1 and a raw stack)', () => {
    const r = run(`ulimit -n 20 && exec "${process.execPath}" "${BIN}" plan --config fixtures/broken/_base/matrix.config.ts`);
    expect(r.stderr).toMatch(
      /^mcp-matrix: harness error: could not load the harness itself: too many open files \(the per-process limit, ulimit -n\) \(EMFILE\): EMFILE: too many open files, open '[^']+'\n$/,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(3);
  });

  it('a copy that was never built: exit 3, the missing file named, and the build suggested', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-matrix-unbuilt-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'bin'));
    copyFileSync(BIN, path.join(dir, 'bin', 'mcp-matrix.js'));
    const r = run(`exec "${process.execPath}" "${path.join(dir, 'bin', 'mcp-matrix.js')}" --version`);
    expect(r.stderr).toBe(
      `mcp-matrix: harness error: could not load the harness itself: Cannot find module '${path.join(dir, 'dist', 'bundle', 'cli.js')}' imported from ${path.join(dir, 'bin', 'mcp-matrix.js')} (a limit on open files reads as a missing module; otherwise build it: npm run build)\n`,
    );
    expect(r.status).toBe(3);
  });
});

describe('bin/mcp-matrix.js: a signal after main() has decided', () => {
  // main() returns its code; the bin sets it and the event loop drains. A signal then (a CI runner's SIGTERM right
  // after its SIGINT) ends the process with that code, never by the signal itself (which leaves no exit code).
  it.each(['SIGTERM', 'SIGINT'] as const)('%s after main() returned: exit with its code, not killed by the signal', (signal) => {
    const script = [
      `const { main } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'cli.js')).href)});`,
      `process.exitCode = await main(['--version']);`,
      `process.kill(process.pid, '${signal}');`,
      `setTimeout(() => {}, 2000);`,
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it('a Node below the engines floor: exit 3 naming the floor, the Node found and where an older Node goes', () => {
    // The version is set before the bin runs (a preload), as a Node 18 would report it.
    const preload = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.20.8"})';
    const r = run(`exec "${process.execPath}" --import '${preload}' "${BIN}" --version`);
    expect(r.stderr).toBe(
      'mcp-matrix: harness error: mcp-matrix needs Node >=20.19; this is 18.20.8. Run it on a newer Node; to test a server on this one, add it to the config as a Node axis (docs/config.md).\n',
    );
    expect(r.stdout).toBe('');
    expect(r.status).toBe(3);
    // The bin checks before any module loads, so its floor is written out: it must be the package's engines.
    expect((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node).toBe(
      '>=20.19',
    );
  });
});
