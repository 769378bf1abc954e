// A conformance suite that cannot be installed is the harness's infrastructure, never the server's fault:
// the phase is not-measured with the cause, every other phase is still judged, and the run exits 3.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cli, readResults, tempDir } from './helpers/cli.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

it('an uninstallable suite (its cache cannot be written): conformance not measured, naming the cause; the rest judged', async () => {
  const dir = await tempDir('mm-conformance-install-');
  dirs.push(dir);
  // A file where the cache directory should be: nothing can be installed into it.
  const blocked = path.join(dir, 'not-a-dir');
  await writeFile(blocked, '');
  const out = path.join(dir, 'out');
  const r = await cli(['run', '--config', 'fixtures/broken/_base/matrix.config.ts', '--out', out, '--progress', 'silent'], {
    env: { MCP_MATRIX_CONFORMANCE: 'on', MCP_MATRIX_CLIENT_CACHE: blocked },
  });
  const results = await readResults(out);
  const phases = Object.fromEntries(results.cells[0]!.phases.map((p) => [p.phase, p]));
  expect(phases.conformance).toMatchObject({ verdict: 'not-measured', step: 'suite install' });
  expect(phases.conformance!.message).toMatch(
    /^the conformance suite @modelcontextprotocol\/conformance@\S+ could not be installed into .*not-a-dir/,
  );
  for (const p of ['environment', 'stdio', 'http', 'bind', 'leaks']) expect(phases[p]!.verdict, p).toBe('passed');
  expect([r.code, results.exitCode]).toEqual([3, 3]);
  expect(r.stdout + r.stderr).toContain('conformance: not measured');
});
