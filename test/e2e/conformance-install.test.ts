// The conformance suite's cache is an instrument: when it cannot be written, the suite is installed into the run
// instead, the phase is still measured, and one warning names the cache and the real cause (issue 22 item 3). A
// suite that cannot be installed at all is not-measured with its cause (test/judge/not-measured.test.ts, suiteMissing).
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cli, readResults, tempDir } from './helpers/cli.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

it('a suite cache that cannot be written: the suite is installed into the run, conformance measured, one warning names the cause', async () => {
  const dir = await tempDir('mm-conformance-install-');
  dirs.push(dir);
  // A file where the cache directory should be: nothing can be stored in it.
  const blocked = path.join(dir, 'not-a-dir');
  await writeFile(blocked, '');
  const out = path.join(dir, 'out');
  const r = await cli(['run', '--config', 'fixtures/broken/_base/matrix.config.ts', '--out', out, '--progress', 'silent'], {
    env: { MCP_MATRIX_CONFORMANCE: 'on', MCP_MATRIX_CLIENT_CACHE: blocked },
  });
  const results = await readResults(out);
  const phases = Object.fromEntries(results.cells[0]!.phases.map((p) => [p.phase, p]));
  for (const p of ['environment', 'stdio', 'http', 'bind', 'conformance', 'leaks']) expect(phases[p]!.verdict, p).toBe('passed');
  const about = results.warnings.filter((w) => w.includes('not-a-dir'));
  expect(about, results.warnings.join('\n')).toHaveLength(1);
  expect(about[0]).toMatch(/ENOTDIR|not a directory/i);
  expect([r.code, results.exitCode]).toEqual([0, 0]);
  expect(r.stdout + r.stderr).toContain('not-a-dir');
});
