// Surface parity and the surface snapshot through the real CLI: a server whose add tool loses `b` from
// its required list on 2.x fails the run naming the field; the snapshot round-trips, and a changed
// schema fails with a diff.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, readResults, ROOT, tempDir, writeConfig } from './helpers/cli.js';
import { runFixtureCell } from './helpers/fixture-cell.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function run(config: string, extra: string[] = []) {
  const outDir = await tempDir('mm-surface-out-');
  dirs.push(outDir);
  const out = await cli(['run', '--config', config, '--out', outDir, '--progress', 'silent', ...extra], { timeoutMs: 300_000 });
  const results = await readResults(outDir).catch(() => undefined);
  const md = await readFile(path.join(outDir, 'matrix.md'), 'utf8').catch(() => '');
  return { out, results, md };
}

const PARITY_FINDING = /^tool add: inputSchema\.required \['a','b'\] on latest-1 \(1\.\d+\.\d+\); \['a'\] on latest-2 \(2\.\d+\.\d+\)$/;

describe('surface parity (fixtures/broken/surface-parity: 1.x and 2.x)', () => {
  it('fails the run with exit 1 naming the item, the JSON path and the cells, while every cell passes', async () => {
    const { out, results, md } = await run('fixtures/broken/surface-parity/matrix.config.ts');
    expect(results, out.stderr).toBeDefined();
    expect(results!.cells.map((c) => [c.id, c.verdict])).toEqual([
      ['latest-1', 'passed'],
      ['latest-2', 'passed'],
    ]);
    expect(results!.surface!.findings).toHaveLength(1);
    expect(results!.surface!.findings[0]).toMatch(PARITY_FINDING);
    expect(results!).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(out.code).toBe(1);
    expect(md).toMatch(/\n\nsurface: 1 difference on 2 cells\n- differs: tool add: inputSchema\.required/);
    expect(out.stdout + out.stderr).toMatch(/surface differs: tool add: inputSchema\.required \['a','b'\] on latest-1/);
  }, 400_000);

  it('passes when the config allows exactly that path, and shows it as allowed', async () => {
    // The unknown-tool and bad-arguments probes are off: their error shapes differ between the majors (an
    // answer-parity finding of their own), and this case is about the surface allowance alone.
    const dir = await tempDir('mm-surface-allow-');
    dirs.push(dir);
    const config = await writeConfig(
      dir,
      `{ package: ${JSON.stringify(path.join(ROOT, 'fixtures/broken/surface-parity'))},
         cells: [{ pin: 'latest@1' }, { pin: 'latest@2' }],
         stdio: { expect: { tools: ['echo', 'add'] }, checks: { 'unknown-tool': 'off', 'invalid-arguments': 'off' } },
         http: false, bind: false, leaks: { graceMs: 3000 }, lockstep: 'off',
         surface: { allow: [{ item: 'tool add', path: 'inputSchema.required' }] } }`,
    );
    const { out, results, md } = await run(config);
    expect(results, out.stderr).toBeDefined();
    expect(results!.surface).toMatchObject({ findings: [], allowed: [expect.stringMatching(PARITY_FINDING)] });
    expect(out.code).toBe(0);
    expect(md).toMatch(/surface: identical on 2 cells but for 1 allowed difference\n- allowed: tool add/);
  }, 400_000);
});

describe('surface snapshot (a copy of fixtures/broken/_base)', () => {
  it('round-trips: --update-surface writes mcp-surface.json, a clean run passes, a changed schema fails with a diff', async () => {
    const dir = await tempDir('mm-surface-snap-');
    dirs.push(dir);
    const pkg = path.join(dir, 'pkg');
    await cp(path.join(ROOT, 'fixtures/broken/_base/bin'), path.join(pkg, 'bin'), { recursive: true });
    await cp(path.join(ROOT, 'fixtures/broken/_base/package.json'), path.join(pkg, 'package.json'));
    const config = await writeConfig(
      dir,
      `{ package: './pkg', cells: [{ pin: 'latest@1' }],
         stdio: { expect: { tools: ['echo', 'add'] }, steps: [{ tool: 'echo', arguments: { text: 'hi' }, expect: { text: 'hi' } }] },
         http: false, bind: false, leaks: { graceMs: 3000 }, lockstep: 'off' }`,
    );
    const snapshotFile = path.join(dir, 'mcp-surface.json');

    const update = await run(config, ['--update-surface']);
    expect(update.out.code, update.out.stderr).toBe(0);
    const snapshot = JSON.parse(await readFile(snapshotFile, 'utf8'));
    expect(snapshot.items['tool add'].inputSchema.required).toEqual(['a', 'b']);
    // The step's answer is recorded beside the surface (answer parity's snapshot).
    expect(snapshot.compared['stdio tools/call echo']).toEqual({
      isError: false,
      content: [{ type: 'text', text: expect.stringMatching(/^sha256:[0-9a-f]{12} \(2 chars\)$/) }],
    });
    expect(update.out.stdout + update.out.stderr).toMatch(/wrote .*mcp-surface\.json \(2 items\): commit it/);

    const clean = await run(config);
    expect(clean.out.code, clean.out.stderr).toBe(0);
    expect(clean.results!.surface!.drift).toEqual([]);
    expect(clean.md).toContain('surface: identical on 1 cell · snapshot: matches mcp-surface.json');
    expect(clean.results!.parity).toMatchObject({ findings: [], drift: [], stale: [] });
    // The step's answer, and the lifecycle checks' recorded values beside it.
    expect(clean.md).toMatch(/\nanswers: \d+ items identical on 1 cell · snapshot: matches mcp-surface\.json\n/);
    expect(clean.results!.parity!.items).toContain('stdio tools/call echo');

    // The next release makes b optional: its schema loses b from `required`.
    const server = path.join(pkg, 'bin/server.js');
    const source = await readFile(server, 'utf8');
    expect(source).toContain('b: z.number() }');
    // …and its echo starts marking its text for the user only.
    expect(source).toContain("content: [{ type: 'text', text }],");
    await writeFile(
      server,
      source
        .replace('b: z.number() }', 'b: z.number().optional() }')
        .replace("content: [{ type: 'text', text }],", "content: [{ type: 'text', text, annotations: { audience: ['user'] } }],"),
    );
    const changed = await run(config);
    expect(changed.out.code, changed.out.stderr).toBe(1);
    expect(changed.results!.cells[0]!.verdict).toBe('passed');
    expect(changed.results!.surface!.drift).toEqual(["tool add: inputSchema.required ['a','b'] → ['a'] (latest-1)"]);
    expect(changed.md).toContain("- changed since mcp-surface.json: tool add: inputSchema.required \\['a','b'\\] → \\['a'\\] (latest-1)");
    expect(changed.out.stdout + changed.out.stderr).toContain(
      "surface changed since mcp-surface.json: tool add: inputSchema.required ['a','b'] → ['a'] (latest-1)",
    );
    expect(changed.results!.parity!.drift).toEqual([
      "stdio tools/call echo: content[0].annotations absent → {'audience':['user']} (latest-1)",
    ]);
    expect(changed.out.stdout + changed.out.stderr).toContain(
      "answer changed since mcp-surface.json: stdio tools/call echo: content[0].annotations absent → {'audience':['user']} (latest-1)",
    );
  }, 600_000);
});

// Answer parity (2 cells each: 1.x and 2.x): every cell passes, the run fails naming the step, the JSON path and the
// cells, in results.json, matrix.md, JUnit and the terminal. The subject is the cross-cell judgement (the harness's
// assemble), not the CLI, which the surface-parity run above proves end to end: these run in this process on cells laid
// out from one install per dependency set (helpers/fixture-cell.ts).
const ANSWER_CASES: { fixture: string; finding: RegExp }[] = [
  {
    // isError lost on the 2.x cell only: the error result goes out as a JSON-RPC error there.
    fixture: 'answer-iserror-lost',
    finding: /^stdio tools\/call fail: isError true on latest-1 \(1\.\d+\.\d+\); absent on latest-2 \(2\.\d+\.\d+\)$/,
  },
  {
    // The mimeType of an image (a PNG embedded as a resource) dropped on one pin.
    fixture: 'answer-mimetype-dropped',
    finding:
      /^stdio tools\/call card: content\[1\]\.resource\.mimeType 'image\/png' on latest-1 \(1\.\d+\.\d+\); absent on latest-2 \(2\.\d+\.\d+\)$/,
  },
];

describe('answer parity (fixtures/broken/answer-*)', () => {
  it.each(ANSWER_CASES.map((c) => [c.fixture, c] as const))(
    '%s: every cell passes, the run fails on the answer',
    async (fixture, c) => {
      const run = await runFixtureCell(fixture, 'mm-answer');
      dirs.push(run.outDir);
      const r = run.results;
      expect(r, run.out.stderr).toBeDefined();
      expect(r!.cells.map((cell) => [cell.id, cell.verdict])).toEqual([
        ['latest-1', 'passed'],
        ['latest-2', 'passed'],
      ]);
      expect(
        r!.parity!.findings.some((f) => c.finding.test(f)),
        r!.parity!.findings.join('\n'),
      ).toBe(true);
      expect(r!.surface!.findings).toEqual([]);
      expect(r!).toMatchObject({ verdict: 'failed', exitCode: 1 });
      expect(run.out.code).toBe(1);
      const md = await readFile(path.join(run.outDir, 'matrix.md'), 'utf8');
      expect(md).toMatch(/\nanswers: \d+ differences? in \d+ items? on 2 cells\n- differs: stdio tools\/call /);
      const junit = await readFile(path.join(run.outDir, 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<testsuite name="parity" tests="\d+" failures="1"/);
      expect(run.out.stdout + run.out.stderr).toMatch(/answer differs: stdio tools\/call /);
      expect(run.leftoverDirs).toEqual([]);
      expect(run.leftoverProcs).toEqual([]);
    },
    400_000,
  );
});

// A dual-major server (fixtures/broken/answer-iserror-dropped, lib/compat.js) whose `lose` tool drops isError on
// 2.x, called without `expect` and then with `expect: { isError: true }`. Before issue 32 the 1.x cell failed
// ("returned isError"), the 2.x cell passed, and no parity finding was recorded (a failed step recorded no answer).
describe('answer parity of a failed step (fixtures/broken/answer-iserror-dropped)', () => {
  it('without expect no cell is blamed; with expect the 2.x cell fails; both calls are parity findings naming isError and both cells', async () => {
    const run = await runFixtureCell('answer-iserror-dropped', 'mm-answer');
    dirs.push(run.outDir);
    const r = run.results;
    expect(r, run.out.stderr).toBeDefined();
    const stdio = (id: string) => r!.cells.find((c) => c.id === id)!.phases.find((p) => p.phase === 'stdio')!;
    const contested =
      /tools\/call lose: not judged: the cells disagree whether the call failed \(isError true on latest-1 \(1\.\d+\.\d+\); false on latest-2 \(2\.\d+\.\d+\)\) and the step has no `expect`/;
    // Measured, neither failed nor passed on one row: the session check is contested (not-measured is the machine's);
    // the 1.x row passes its other checks, and the parity finding carries the failure.
    expect(stdio('latest-1').verdict).toBe('passed');
    expect(stdio('latest-1').step).toBeUndefined();
    expect(stdio('latest-1').checks!.find((c) => c.id === 'session')).toMatchObject({ outcome: 'contested', step: 'tools/call lose' });
    expect(stdio('latest-1').message).toMatch(contested);
    expect(stdio('latest-1').message).not.toMatch(/returned isError/);
    expect(r!.cells.map((c) => c.verdict)).toEqual(['passed', 'failed']);
    expect(stdio('latest-2').verdict).toBe('failed');
    expect(stdio('latest-2').message).toMatch(
      /^tools\/call lose: expected isError, got a success: "lost on purpose" · .*; the other cells answered: isError true on latest-1 \(1\.\d+\.\d+\); /,
    );
    expect(stdio('latest-2').message).toMatch(contested);
    const finding = (item: string) =>
      new RegExp(`^stdio ${item}: isError true on latest-1 \\(1\\.\\d+\\.\\d+\\); false on latest-2 \\(2\\.\\d+\\.\\d+\\)$`);
    expect(r!.parity!.findings).toEqual([
      expect.stringMatching(finding('tools/call lose')),
      expect.stringMatching(finding('tools/call lose #2')),
    ]);
    expect(r!).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(run.out.code).toBe(1);
    const md = await readFile(path.join(run.outDir, 'matrix.md'), 'utf8');
    expect(md).toMatch(/\nanswers: 2 differences in \d+ items on 2 cells\n/);
    expect(md).toContain('the cells disagree whether the call failed');
    expect(md).toMatch(/\| stdio › session \| harness \| require \| contested \| FAIL \|/);
    const junit = await readFile(path.join(run.outDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="parity" tests="\d+" failures="2"/);
    expect(junit).toMatch(/name="stdio › session"[^>]*>\s*<skipped message="[^"]*the cells disagree whether the call failed/);
    expect(run.out.stdout + run.out.stderr).toMatch(/latest-1 · stdio › session: tools\/call lose: not judged: the cells disagree/);
    const sarif = await readFile(path.join(run.outDir, 'matrix.sarif'), 'utf8');
    expect(sarif).toMatch(/stdio tools\/call lose: isError true on latest-1/);
    const html = await readFile(path.join(run.outDir, 'matrix.html'), 'utf8');
    expect(html).toContain('the cells disagree whether the call failed');
    expect(run.leftoverDirs).toEqual([]);
    expect(run.leftoverProcs).toEqual([]);
  }, 400_000);
});
