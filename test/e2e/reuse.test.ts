// Install reuse through the real CLI (issue 22, item 2): the same failing fixture run with `--fresh`, then
// storing, then reusing, gives the same verdict on every phase with the same messages; results.json and the
// failure section name each install's source; `--fresh` neither reads nor writes the tree cache. A local run (no `CI`)
// within the reuse window (issue 34) swaps the tarball onto the tree npm resolved minutes ago: the same verdicts
// again, and results.json, matrix.md and the terminal say how old the resolution is.
import { existsSync, readdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { HINT_PREFIX } from '../../src/cells/install/reuse-install.js';
import { RECORD_PREFIX } from '../../src/cells/install/resolution-record.js';
import { cli, CONFIG_WINDOW, readResults, tempDir } from './helpers/cli.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function runWith(
  cache: string,
  flags: string[],
  env: Record<string, string> = {},
): Promise<{ results: RunResult; md: string; stdout: string }> {
  const out = await tempDir('mm-reuse-out-');
  dirs.push(out);
  const r = await cli(
    ['run', '--config', 'fixtures/broken/stdout-noise/matrix.config.ts', '--out', out, '--progress', 'silent', ...flags],
    {
      // The window's subject: the config's own window, not the suite's week.
      env: { MCP_MATRIX_TREE_CACHE: cache, ...CONFIG_WINDOW, ...env },
    },
  );
  expect(r.code, r.stderr).toBe(1);
  return { results: await readResults(out), md: await readFile(path.join(out, 'matrix.md'), 'utf8'), stdout: r.stdout + r.stderr };
}

/** Every phase's verdict, step and message: what must not depend on where the tree came from. */
const verdicts = (r: RunResult) => r.cells.map((c) => [c.id, c.verdict, c.phases.map((p) => [p.phase, p.verdict, p.step, p.message])]);

describe('install reuse through the CLI', () => {
  it('--fresh, stored and reused installs give the same verdicts, and each install names its source', async () => {
    const cache = path.join(await tempDir('mm-reuse-trees-'), 'trees');
    dirs.push(path.dirname(cache));

    const fresh = await runWith(cache, ['--fresh']);
    expect(fresh.results.cells[0]!.environment!.installSource).toEqual({ source: 'npm', reason: 'reuse is off' });
    expect(existsSync(cache), '--fresh writes nothing to the tree cache').toBe(false);

    // A local run (CI unset): it also records npm's resolution for the reuse window.
    const stored = await runWith(cache, [], { CI: '' });
    expect(stored.results.cells[0]!.environment!.installSource).toEqual({ source: 'npm', reason: 'no tree stored yet' });
    // One tree, and beside it the hint of its key for the next run of this package on these pins.
    expect(readdirSync(cache).filter((n) => !n.startsWith('.'))).toHaveLength(1);
    expect(readdirSync(cache).filter((n) => n.startsWith(HINT_PREFIX))).toHaveLength(1);
    expect(readdirSync(cache).filter((n) => n.startsWith(RECORD_PREFIX))).toHaveLength(1);

    // A CI run: npm resolves now, then takes the stored tree.
    const reused = await runWith(cache, [], { CI: 'true' });
    const source = reused.results.cells[0]!.environment!.installSource!;
    expect(source).toMatchObject({ source: 'reused', lockfileSha256: reused.results.cells[0]!.environment!.lockfileSha256 });

    expect(source).not.toHaveProperty('resolvedAt');
    // Within the window: no npm run at all; the same verdicts and messages, the age said.
    const windowed = await runWith(cache, [], { CI: '' });
    expect(windowed.results.cells[0]!.environment!.installSource).toMatchObject({
      source: 'reused',
      swapped: true,
      resolvedAt: expect.any(String),
    });
    expect(windowed.results.cells[0]!.environment!.tarball.sha512).toBe(windowed.results.plan.tarball.sha512);
    expect(windowed.md).toMatch(
      /- Server install: reused tree [^\n]+ as npm resolved it at [^\n]+ \(resolved \d+ (s|min) ago; \\?`--fresh\\?` to resolve now;/,
    );
    expect(windowed.stdout).toMatch(/resolved \d+ (s|min) ago \(the reuse window\); `--fresh` to resolve now/);
    expect(verdicts(windowed.results)).toEqual(verdicts(fresh.results));

    expect(verdicts(reused.results)).toEqual(verdicts(fresh.results));
    expect(verdicts(stored.results)).toEqual(verdicts(fresh.results));
    expect(reused.results.cells[0]!.phases.find((p) => p.phase === 'stdio')!.verdict).toBe('failed');
    // The environment phase still proves the tarball: the installed package is this run's packed tarball.
    expect(reused.results.cells[0]!.environment!.tarball.sha512).toBe(reused.results.plan.tarball.sha512);

    // The failure section says where the failing cell's tree came from.
    expect(fresh.md).toMatch(/- Server install: npm install \(reuse is off\)/);
    expect(reused.md).toMatch(
      /- Server install: reused tree [^\n]+ of the tree cache \(npm resolved the same now; package-lock\.json sha256 [0-9a-f]{12}…\)/,
    );
  }, 600_000);
});
