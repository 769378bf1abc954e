// The baseline of known failures through the real CLI on a broken fixture (crash-on-tool: its stdio phase
// fails, every other phase passes): listed → exit 0, shown as expected; unlisted → exit 1; a listed failure
// that now passes → exit 1 naming the line to delete; --update-baseline writes the file that then passes.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, readResults, tempDir } from './helpers/cli.js';

const CONFIG = 'fixtures/broken/crash-on-tool/matrix.config.ts';
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function run(baseline: string | undefined, ...extra: string[]) {
  const dir = await tempDir('mm-baseline-');
  dirs.push(dir);
  const file = path.join(dir, 'mcp-matrix.baseline.json');
  if (baseline !== undefined) await writeFile(file, baseline);
  const out = path.join(dir, 'out');
  const r = await cli(['run', '--config', CONFIG, '--out', out, '--progress', 'silent', '--baseline', file, ...extra]);
  return { r, file, out };
}

describe.concurrent('baseline of known failures', () => {
  it('an unlisted failure fails the run (exit 1)', async () => {
    const { r, out } = await run(
      '{\n  "expectedFailures": [\n    { "cell": "some-other-cell", "phase": "stdio", "reason": "not this cell" }\n  ]\n}\n',
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^latest-1 · stdio: FAIL: tools\/call crash/m);
    const results = await readResults(out);
    expect(results.verdict).toBe('failed');
    expect(await readFile(path.join(out, 'matrix.md'), 'utf8')).toContain('**Why FAILED:** phases failed: latest-1 · stdio');
  });

  it('a listed failure that now passes fails as stale, naming the line to delete (exit 1)', async () => {
    const { r, out } = await run(
      [
        '{',
        '  "expectedFailures": [',
        '    { "cell": "latest-1", "phase": "stdio", "message": "crash", "reason": "known crash" },',
        '    { "cell": "latest-1", "phase": "http", "reason": "was broken once" }',
        '  ]',
        '}',
        '',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /latest-1 · http: STALE baseline entry: it no longer fails as listed; delete line 4 of .*mcp-matrix\.baseline\.json/,
    );
    expect(r.stderr).toMatch(/latest-1 · stdio: expected \(baseline line 3: known crash\)/);
    expect(await readFile(path.join(out, 'matrix.md'), 'utf8')).toMatch(
      /\*\*Why FAILED:\*\* stale baseline entry \(line 4\): latest-1 · http/,
    );
  });

  it('--update-baseline writes the current failures; the next run lists them as expected (exit 0)', async () => {
    const first = await run(undefined, '--update-baseline');
    expect(first.r.code, first.r.stderr).toBe(0);
    expect(first.r.stdout).toMatch(/--update-baseline: wrote 1 known failure\(s\) to /);
    const text = await readFile(first.file, 'utf8');
    const entries = (JSON.parse(text) as { expectedFailures: Record<string, string>[] }).expectedFailures;
    expect(entries).toEqual([
      {
        cell: 'latest-1',
        phase: 'stdio',
        reason: expect.stringMatching(/^known failure \(added by --update-baseline\): tools\/call crash/),
      },
    ]);
    expect(text.split('\n')[2]).toMatch(/^ {4}\{"cell":"latest-1","phase":"stdio"/);

    const second = await cli([
      'run',
      '--config',
      CONFIG,
      '--out',
      path.join(path.dirname(first.file), 'out2'),
      '--progress',
      'silent',
      '--baseline',
      first.file,
    ]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^latest-1 · stdio: expected \(baseline line 3: known failure/m);
    expect(second.stderr).not.toMatch(/reproduce:/);
    const results = await readResults(path.join(path.dirname(first.file), 'out2'));
    expect(results).toMatchObject({ verdict: 'passed', exitCode: 0 });
    // The phase itself stays failed in results.json: the baseline changes the gate, not the evidence.
    expect(results.cells[0]!.phases.find((p) => p.phase === 'stdio')!.verdict).toBe('failed');
    expect(await readFile(path.join(path.dirname(first.file), 'out2', 'matrix.md'), 'utf8')).toMatch(
      /Expected failures \(.*\): latest-1 · stdio \(line 3: /,
    );
  });

  it('a bad baseline file is a usage error at once (exit 2)', async () => {
    const { r } = await run('{ "expectedFailures": [ { "cell": "latest-1", "phase": "stdoi", "reason": "x" } ] }');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/expectedFailures\[0\]\.phase: one of environment, stdio, http, bind, conformance, leaks \(got "stdoi"\)/);
  });
});
