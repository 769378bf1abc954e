// The harness end to end on the bundled reference server: real pack, real installs, real servers.
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, readResults, ROOT, tempDir, writeConfig } from './helpers/cli.js';

const REF = path.join(ROOT, 'fixtures/reference-server');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function scratch(): Promise<string> {
  const d = await tempDir();
  dirs.push(d);
  return d;
}

/**
 * The project matrix, run once: its own test judges it, and the re-render test re-renders its reports. A private TMPDIR:
 * a run first sweeps what a dead run left in its temp dir and says so on stderr, and the shared /tmp may hold one of
 * any run on the machine (another engineer's, a killed test's), which is not this run's to answer for.
 */
let projectRun: Promise<{ out: string; r: Awaited<ReturnType<typeof cli>> }> | undefined;
const runProject = () =>
  (projectRun ??= Promise.all([scratch(), scratch()]).then(async ([out, tmp]) => ({
    out,
    r: await cli(['run', '--out', out, '--progress', 'simple'], { env: { TMPDIR: tmp } }),
  })));

describe('mcp-matrix on the reference server', () => {
  it('runs the project matrix: four cells, every phase passes, exit 0, reports written', async () => {
    const { out, r } = await runProject();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const run = await readResults(out);
    expect(run.verdict).toBe('passed');
    expect(run.cells.map((c) => c.pin)).toEqual(['floor@1', 'latest@1', '2.0.0', 'latest@2']);
    for (const cell of run.cells) {
      expect(cell.phases.map((p) => `${p.phase}:${p.verdict}`)).toEqual([
        'environment:passed',
        'stdio:passed',
        'http:passed',
        'bind:passed',
        'conformance:skipped',
        'leaks:passed',
      ]);
      expect(cell.summary).toMatchObject({ tools: 7, resourceTemplates: 2, prompts: 2, leakedHandles: [] });
    }
    const latest2 = run.cells.find((c) => c.pin === 'latest@2')!;
    expect(Object.keys(latest2.installSet)).toContain('@modelcontextprotocol/node');
    const md = await readFile(path.join(out, 'matrix.md'), 'utf8');
    expect(md).toContain(`latest@2 → ${latest2.version}`);
    expect(md).toContain(`node ${latest2.installSet['@modelcontextprotocol/node']}`);
  });

  it('runs one cell alone with --cell', async () => {
    const out = await scratch();
    const r = await cli(['run', '--cell', '2.0.0', '--out', out, '--progress', 'silent']);
    expect(r.code).toBe(0);
    const run = await readResults(out);
    expect(run.cells.map((c) => c.id)).toEqual(['2.0.0']);
    expect(run.cells[0]!.installSet).toEqual({
      '@modelcontextprotocol/server': '2.0.0',
      '@modelcontextprotocol/client': '2.0.0',
      '@modelcontextprotocol/node': '2.0.0',
    });
    expect(run.plan.cells).toHaveLength(4);
    expect(run.plan.selected).toEqual(['2.0.0']);
  });

  it('plans without installing anything', async () => {
    // A private TMPDIR: other test files run matrices at the same time.
    const tmp = await scratch();
    const r = await cli(['plan'], { env: { TMPDIR: tmp } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/floor@1 → 1\.\d+\.\d+/);
    expect(r.stdout).toMatch(
      /installs @modelcontextprotocol\/server@2\.0\.0 @modelcontextprotocol\/client@2\.0\.0 @modelcontextprotocol\/node@2\.0\.0/,
    );
    expect(await readdir(tmp)).toEqual([]);
    const json = await cli(['plan', '--json']);
    expect(JSON.parse(json.stdout).include.map((c: { id: string }) => c.id)).toEqual(['floor-1', 'latest-1', '2.0.0', 'latest-2']);
  });

  it('refuses a pin that does not exist, with exit 2', async () => {
    const cfg = await writeConfig(await scratch(), `{ package: ${JSON.stringify(REF)}, cells: [{ pin: '1.99.0' }] }`);
    const r = await cli(['run', '--config', cfg, '--progress', 'silent']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /pin 1\.99\.0: @modelcontextprotocol\/sdk@1\.99\.0 does not exist on the registry \(the newest 1\.x is 1\.\d+\.\d+\); use a published version or latest@1/,
    );
  });

  it('refuses an unknown config key, naming its path, with exit 2', async () => {
    const cfg = await writeConfig(
      await scratch(),
      `{ package: ${JSON.stringify(REF)}, cells: [{ pin: 'latest@1' }], stdio: { expect: { tools: 7 }, tiemout: 5 } } as never`,
    );
    const r = await cli(['plan', '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('stdio.tiemout: unknown key (did you mean "timeoutMs"?)');
  });

  it('fails the environment phase for a pin outside the declared range, exit 1', async () => {
    const out = await scratch();
    const cfg = await writeConfig(
      await scratch(),
      `{ package: ${JSON.stringify(REF)}, cells: [{ pin: '1.22.0', role: 'below the floor' }], lockstep: 'off' }`,
    );
    const r = await cli(['run', '--config', cfg, '--out', out, '--progress', 'silent']);
    expect(r.code).toBe(1);
    const env = (await readResults(out)).cells[0]!.phases.find((p) => p.phase === 'environment')!;
    expect(env.verdict).toBe('failed');
    expect(env.message).toContain(
      'pin @modelcontextprotocol/sdk@1.22.0 is outside the range ">=1.23.0 <2" that reference-mcp-server declares',
    );
  });

  it('rejects usage errors with exit 2', async () => {
    // Refused from the config alone, before any look-up (a version no planned cell has waits for the plan).
    const nope = await cli(['run', '--cell', 'nope', '--progress', 'silent']);
    expect(nope.code).toBe(2);
    expect(nope.stderr).toMatch(/--cell nope matches no cell; the config's cells: floor-1 \(floor@1\), latest-1 \(latest@1\)/);
    const version = await cli(['run', '--cell', '9.9.9', '--progress', 'silent']);
    expect(version.code).toBe(2);
    expect(version.stderr).toMatch(/--cell 9\.9\.9 matches no cell; the plan has: floor-1 \(1\.23\.0\)/);
    expect((await cli(['run', '--concurrency', 'zero'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['run', '--config', 'missing.config.ts'])).stderr).toMatch(/does not exist \(check --config\)/);
  });

  it('re-renders reports from results.json without running anything', async () => {
    const { out } = await runProject();
    const original = await readFile(path.join(out, 'matrix.md'), 'utf8');
    await rm(path.join(out, 'matrix.md'));
    const r = await cli(['report', path.join(out, 'results.json')]);
    expect(r.code).toBe(0);
    expect(await readFile(path.join(out, 'matrix.md'), 'utf8')).toBe(original);
    const bad = await cli(['report', path.join(ROOT, 'package.json')]);
    expect(bad.code).toBe(2);
  });

  it('shows an allowed failure as allowed (exit 0) and fails a stale allowance (exit 1)', async () => {
    const broken = path.join(ROOT, 'fixtures/broken/tool-count');
    const allowed = await writeConfig(
      await scratch(),
      `{ package: ${JSON.stringify(broken)}, cells: [{ pin: 'latest@1', allowedToFail: true }], stdio: { expect: { tools: 3 } }, lockstep: 'off' }`,
    );
    const out1 = await scratch();
    const r1 = await cli(['run', '--config', allowed, '--out', out1, '--progress', 'silent']);
    expect(r1.code).toBe(0);
    expect((await readResults(out1)).cells[0]).toMatchObject({ verdict: 'failed', outcome: 'allowed-failure' });
    expect(await readFile(path.join(out1, 'matrix.md'), 'utf8')).toContain('FAIL (allowed)');

    const stale = await writeConfig(
      await scratch(),
      `{ package: ${JSON.stringify(REF)}, cells: [{ pin: 'latest@2', allowedToFail: true }], stdio: {}, lockstep: 'off' }`,
    );
    const out2 = await scratch();
    const r2 = await cli(['run', '--config', stale, '--out', out2, '--progress', 'silent']);
    expect(r2.code).toBe(1);
    expect((await readResults(out2)).cells[0]).toMatchObject({ verdict: 'passed', outcome: 'stale-allowance' });
  });
});
