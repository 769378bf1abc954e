// init against real servers that cannot be listed: nothing is written, the cause is named, and the exit
// code says whose fault it is (the quick-start test covers the servers that work).
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cli, tempDir } from './helpers/cli.js';
import { writeScratchServer } from './helpers/scratch-server.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('mcp-matrix init on a server it cannot list', () => {
  test('a bin that was never built: nothing written, the missing file named, exit 1', async () => {
    const work = await tempDir('mm-init-');
    dirs.push(work);
    const pkg = await writeScratchServer(work);
    const manifest = JSON.parse(await readFile(path.join(pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(
      path.join(pkg, 'package.json'),
      JSON.stringify({ ...manifest, bin: { 'scratch-notes': './dist/server.js' }, files: ['bin/', 'dist/'] }, null, 2),
    );
    const r = await cli(['init'], { cwd: pkg, env: { TMPDIR: work } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^mcp-matrix: init could not list the server's surface: the environment phase failed/m);
    expect(r.stderr).toContain('dist/server.js');
    expect(r.stderr).toContain('Nothing was written.');
    expect(existsSync(path.join(pkg, 'matrix.config.ts'))).toBe(false);
    expect(existsSync(path.join(pkg, '.github'))).toBe(false);
  });
});
