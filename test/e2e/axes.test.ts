// The client and Node axes through the real CLI on the reference server: real installs of the cells, of
// each client (once per run, apart from the servers) and the host's own Node release as the Node axis.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellResult, RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, tempDir, type CliOutcome } from './helpers/cli.js';
import { rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';

const HOST_NODE = process.versions.node;
const dirs: string[] = [];
let config: string;
let full: { out: CliOutcome; results: RunResult };
let one: { out: CliOutcome; results: RunResult };
let plan: CliOutcome;
let planJson: CliOutcome;
let merged: Awaited<ReturnType<typeof fanOut>>;

/** A variant run alone (`--cell <variant id>`): the fan-out's job for it. */
const ONE = `latest-2~client-1.0.0~node-${HOST_NODE}`;

/**
 * The CI fan-out, locally: one job per entry of plan --json (a variant), each with the tarball packed once, then merge.
 * `one`: the job of ONE, a variant run alone.
 */
async function fanOut(): Promise<{ out: CliOutcome; results: RunResult; pieces: number[]; one: { out: CliOutcome; results: RunResult } }> {
  const dir = await tempDir('mm-axes-fanout-');
  dirs.push(dir);
  const include = (JSON.parse(planJson.stdout) as { include: { id: string }[] }).include;
  const tarball = await new Promise<string>((resolve, reject) =>
    execFile(
      'npm',
      ['pack', '--json', '--pack-destination', dir],
      { cwd: path.join(ROOT, 'fixtures/reference-server') },
      (error, stdout) => (error ? reject(error) : resolve(path.join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename))),
    ),
  );
  const jobs = await Promise.all(
    include.map(async ({ id }) =>
      cli(['run', '--config', config, '--cell', id, '--tarball', tarball, '--out', path.join(dir, 'pieces', id), '--progress', 'silent'], {
        timeoutMs: 600_000,
      }),
    ),
  );
  const alone = include.findIndex(({ id }) => id === ONE);
  const out = await cli([
    'merge',
    ...include.map(({ id }) => path.join(dir, 'pieces', id, 'results.json')),
    '--out',
    path.join(dir, 'merged'),
  ]);
  return {
    out,
    results: await readResults(path.join(dir, 'merged')),
    pieces: jobs.map((j) => j.code),
    one: { out: jobs[alone]!, results: await readResults(path.join(dir, 'pieces', ONE)) },
  };
}

async function run(extra: string[]): Promise<{ out: CliOutcome; results: RunResult }> {
  const dir = await tempDir('mm-axes-out-');
  dirs.push(dir);
  const out = await cli(['run', '--config', config, '--out', dir, '--progress', 'simple', ...extra], { timeoutMs: 600_000 });
  return { out, results: await readResults(dir) };
}

beforeAll(async () => {
  const dir = await tempDir('mm-axes-');
  dirs.push(dir);
  config = path.join(dir, 'matrix.config.ts');
  // The project's own config (steps, http, bind, leaks), on two cells, crossed with a pre-1.10 1.x client
  // and the latest 2.x client, on the host's Node release (so no runtime download is needed).
  await writeFile(
    config,
    `import base from ${JSON.stringify(path.join(ROOT, 'matrix.config.ts'))};
import { defineConfig } from ${JSON.stringify(path.join(ROOT, 'src/index.ts'))};
export default defineConfig({
  ...base,
  package: ${JSON.stringify(path.join(ROOT, 'fixtures/reference-server'))},
  cells: [{ pin: 'latest@1' }, { pin: 'latest@2' }],
  clients: ['1.0.0', 'latest@2'],
  node: [${JSON.stringify(HOST_NODE)}],
  // The claim's coverage is lockstep's own test; two cells do not cover the declared 1.x floor.
  lockstep: 'off',
});
`,
  );
  [plan, planJson] = await Promise.all([cli(['plan', '--config', config]), cli(['plan', '--config', config, '--json'])]);
  full = await run([]);
  // The variant alone is the fan-out's job for it (the same `run --cell <id>`, given the tarball packed once).
  merged = await fanOut();
  one = merged.one;
}, 900_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('plan with axes', () => {
  it('shows the expansion and the count before anything runs', () => {
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('2 cell(s) · 4 variant(s)');
    expect(plan.stdout).toContain(`latest-1~client-1.0.0~node-${HOST_NODE}  client @modelcontextprotocol/sdk@1.0.0 · node ${HOST_NODE}`);
    expect(plan.stdout).toContain(
      '4 variant(s) = 2 cell(s) × 2 client(s) × 1 node(s); installs: 2 server install(s), 2 client install(s), 1 node runtime(s)',
    );
  });

  it('--json has one job per variant with its client and exact Node release', () => {
    const include = (JSON.parse(planJson.stdout) as { include: { id: string; cell: string; client: { version: string }; node: string }[] })
      .include;
    expect(include.map((i) => [i.id, i.cell, i.node])).toEqual([
      [`latest-1~client-1.0.0~node-${HOST_NODE}`, 'latest-1', HOST_NODE],
      [`latest-1~client-latest-2~node-${HOST_NODE}`, 'latest-1', HOST_NODE],
      [`latest-2~client-1.0.0~node-${HOST_NODE}`, 'latest-2', HOST_NODE],
      [`latest-2~client-latest-2~node-${HOST_NODE}`, 'latest-2', HOST_NODE],
    ]);
    expect(include[0]!.client.version).toBe('1.0.0');
  });
});

describe('run with axes', () => {
  it('passes every variant: one row per variant, in plan order, with its cell, client and Node', () => {
    const { out, results } = full;
    expect(out.code, out.stderr + out.stdout.slice(-3000)).toBe(0);
    expect(results.verdict).toBe('passed');
    expect(results.cells.map((c) => [c.id, c.cell, c.client?.package, c.client?.version, c.node?.version, c.verdict])).toEqual([
      [`latest-1~client-1.0.0~node-${HOST_NODE}`, 'latest-1', '@modelcontextprotocol/sdk', '1.0.0', HOST_NODE, 'passed'],
      [
        `latest-1~client-latest-2~node-${HOST_NODE}`,
        'latest-1',
        '@modelcontextprotocol/client',
        expect.stringMatching(/^2\./),
        HOST_NODE,
        'passed',
      ],
      [`latest-2~client-1.0.0~node-${HOST_NODE}`, 'latest-2', '@modelcontextprotocol/sdk', '1.0.0', HOST_NODE, 'passed'],
      [
        `latest-2~client-latest-2~node-${HOST_NODE}`,
        'latest-2',
        '@modelcontextprotocol/client',
        expect.stringMatching(/^2\./),
        HOST_NODE,
        'passed',
      ],
    ]);
    expect(results.plan.cells.map((c) => c.variants.map((v) => v.id))).toEqual([
      results.cells.slice(0, 2).map((c) => c.id),
      results.cells.slice(2).map((c) => c.id),
    ]);
    expect(results.plan.selected).toBeUndefined();
  });

  it('each variant drives the server with its own client: the negotiated protocol and http follow the client', () => {
    const [old1, new1, old2, new2] = full.results.cells;
    // SDK 1.0.0 speaks 2024-11-05 and has no Streamable HTTP client: http is skipped with the reason, never passed.
    for (const row of [old1!, old2!]) {
      expect(row.summary.protocolVersion).toBe('2024-11-05');
      expect(row.phases.find((p) => p.phase === 'http')).toMatchObject({ verdict: 'skipped' });
      expect(row.phases.find((p) => p.phase === 'http')!.message).toContain('@modelcontextprotocol/sdk@1.0.0');
    }
    for (const row of [new1!, new2!]) {
      expect(row.summary.protocolVersion).not.toBe('2024-11-05');
      expect(row.phases.find((p) => p.phase === 'http')!.verdict).toBe('passed');
    }
  });

  it("variants of a cell share its one install; each records the servers' SDK and Node", () => {
    const [a, b, c, d] = full.results.cells;
    expect(a!.environment!.lockfileSha256).toBe(b!.environment!.lockfileSha256);
    expect(c!.environment!.lockfileSha256).toBe(d!.environment!.lockfileSha256);
    expect(a!.environment!.lockfileSha256).not.toBe(c!.environment!.lockfileSha256);
    for (const row of full.results.cells) {
      expect(row.environment!.node).toBe(`v${HOST_NODE}`);
      // The server ran the cell's SDK, whatever client drove it.
      const loaded = row.environment!.loadedSdk!.flatMap((s) => s.copies.map((x) => `${x.name}@${x.version}`));
      expect(loaded).toContain(
        row.cell === 'latest-1' ? `@modelcontextprotocol/sdk@${row.version}` : `@modelcontextprotocol/server@${row.version}`,
      );
    }
    // The server install once per cell, shown as shared; progress lines name the variant.
    expect(full.out.stdout).toContain(`[latest-1~client-1.0.0~node-${HOST_NODE}] ✔ npm install (`);
    expect(full.out.stdout).toMatch(/npm install \([^)]*shared by 2 variants\)/);
    expect(full.out.stdout).toContain('PASSED · 4 variant(s) of 2 cell(s)');
    // The expansion is shown before anything runs.
    expect(full.out.stdout.indexOf('4 variant(s) = 2 cell(s) × 2 client(s) × 1 node(s)')).toBeGreaterThanOrEqual(0);
    expect(full.out.stdout.indexOf('4 variant(s) = 2 cell(s)')).toBeLessThan(full.out.stdout.indexOf('npm install'));
  });

  it('bind runs once per cell and Node release: the second client variant reports the first one’s bind, naming it', () => {
    const [a, b, c, d] = full.results.cells;
    const pairs: [CellResult, CellResult][] = [
      [a!, b!],
      [c!, d!],
    ];
    for (const [first, second] of pairs) {
      const measured = first.phases.find((p) => p.phase === 'bind')!;
      expect(measured).toMatchObject({ verdict: 'passed' });
      expect(measured.details?.measuredBy).toBeUndefined();
      expect(second.phases.find((p) => p.phase === 'bind')).toMatchObject({
        verdict: 'passed',
        durationMs: 0,
        details: { measuredBy: first.id, measuredMs: measured.durationMs },
      });
    }
    expect(full.out.stdout).toContain(`[${b!.id}] ✔ bind (as measured by ${a!.id})`);
    // A variant run alone measures its own.
    expect(one.results.cells[0]!.phases.find((p) => p.phase === 'bind')!.details?.measuredBy).toBeUndefined();
  });

  it('every row carries the command that reruns that variant alone', () => {
    for (const row of full.results.cells) expect(row.repro).toContain(`run --cell ${row.id}`);
  });

  it('--cell takes a variant id: that variant alone', () => {
    expect(one.out.code, one.out.stderr).toBe(0);
    expect(one.results.cells.map((c) => c.id)).toEqual([ONE]);
    expect(one.results.plan.selected).toEqual([ONE]);
    expect(one.results.plan.cells.flatMap((c) => c.variants)).toHaveLength(4);
  });
});

describe('the fan-out with axes', () => {
  it('one job per variant (plan --json), each passing alone, merge into one run of every variant: exit 0', () => {
    expect(merged.pieces).toEqual([0, 0, 0, 0]);
    expect(merged.out.code, merged.out.stderr).toBe(0);
    expect(merged.results.verdict).toBe('passed');
    expect(merged.results.cells.map((c) => c.id)).toEqual(full.results.cells.map((c) => c.id));
    expect(merged.results.cells.map((c) => c.client?.version)).toEqual(full.results.cells.map((c) => c.client?.version));
  });
});
