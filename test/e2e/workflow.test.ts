// The acceptance workflow end to end in the local workflow runner (test/helpers/workflow-runner.ts) with the
// real CLI: a one-cell plan (the plan, one real npm pack, one real install through the action, the real merge) passes, and an SDK
// release published between the plan job and the cell job (a registry proxy adds it) changes nothing: the cell
// runs the frozen plan. The plumbing scenarios (2 and 4 variants, failures, re-runs, forks) are in
// test/workflows/acceptance.test.ts with a stand-in CLI.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runWorkflow } from '../helpers/workflow-runner.js';
import { TEST_CACHE_ENV } from '../helpers/node-runtimes.js';
import { BIN, CONFIG_WINDOW, ROOT, cli } from './helpers/cli.js';

// Made in beforeAll, not when the file is collected: a run that filters every test of it out (vitest -t,
// a mutation run) collects it but runs no hook, and a directory made at collection was left in /tmp.
let tmp = '';
const cleanup: (() => void)[] = [];
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-wf-real-'));
  cleanup.push(() => rmSync(tmp, { recursive: true, force: true }));
});
afterAll(() => cleanup.reverse().forEach((f) => f()));

async function releaseProxy(hits: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'test/workflows/release-proxy.mjs'), 'https://registry.npmjs.org/', '@modelcontextprotocol/sdk', '1.999.0', hits],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  cleanup.push(() => child.kill('SIGTERM'));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve) => lines.once('line', resolve));
  return `http://127.0.0.1:${port}/`;
}

test('a one-cell plan passes, and a release between the plan and the cell changes nothing (real CLI)', async () => {
  const repo = path.join(tmp, 'repo');
  mkdirSync(repo);
  writeFileSync(path.join(repo, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}\n');
  // setup-node (cache: npm) hashes the lockfile; npm ci is stubbed below.
  writeFileSync(path.join(repo, 'package-lock.json'), '{"name":"consumer","lockfileVersion":3,"packages":{}}\n');
  writeFileSync(
    path.join(repo, 'matrix.config.ts'),
    `import { defineConfig } from ${JSON.stringify(path.join(ROOT, 'src/index.ts'))};
export default defineConfig({
  package: ${JSON.stringify(path.join(ROOT, 'fixtures/reference-server'))},
  bin: 'reference-mcp-server',
  cells: [{ pin: 'latest@1', role: 'latest supported 1.x' }],
  stdio: { expect: { tools: 7, resourceTemplates: 2, prompts: 2 } },
  lockstep: 'off',
});
`,
  );
  const hits = path.join(tmp, 'hits');
  writeFileSync(hits, '');
  const proxy = await releaseProxy(hits);
  // Resolving again against the proxy would pick the new release: the simulation is real.
  const replanned = await cli(['plan', '--json', '--config', 'matrix.config.ts'], {
    cwd: repo,
    env: { npm_config_registry: proxy, ...CONFIG_WINDOW },
  });
  expect(replanned.code, replanned.stderr).toBe(0);
  expect((JSON.parse(replanned.stdout) as { include: { version: string }[] }).include[0]!.version).toBe('1.999.0');

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...TEST_CACHE_ENV,
    // The cell job's registry is a proxy on a port of its own, which is part of npm's context (the tree cache's key):
    // a tree stored under it is never taken again and pushes a used one out of the cache (24 entries).
    MCP_MATRIX_TREE_CACHE: 'off',
    TMPDIR: tmp,
    NO_COLOR: '1',
  };
  const run = runWorkflow({
    workflow: path.join(ROOT, '.github/workflows/acceptance.yml'),
    repo,
    env,
    // npm ci as npm installs the devDependency: node_modules/mcp-matrix is this package (its action.yml, its bin).
    // The install step names the plan job's detected command (npm install here: no lockfile).
    stub: Object.fromEntries(
      ['${{ steps.pm.outputs.install }}', '${{ needs.plan.outputs.install }}'].map((step) => [
        step,
        `mkdir -p node_modules && ln -sfn ${JSON.stringify(ROOT)} node_modules/mcp-matrix`,
      ]),
    ),
    workflowEnv: { MCP_MATRIX: `${process.execPath} ${BIN}` },
    // The release is published once the plan job is done: every later job sees it.
    beforeJob: (job) => {
      if (job === 'cell') env.npm_config_registry = proxy;
    },
  });
  const merge = run.job('merge');
  const log = merge.steps.map((s) => s.log).join('\n');
  expect(run.jobs.map((j) => `${j.job}:${j.result}`)).toEqual(['plan:success', 'pack:success', 'cell:success', 'merge:success']);
  expect(log).toContain('PASSED · merged 1 piece(s)');
  expect(merge.summary).toMatch(/^# mcp-matrix: PASSED/m);
  // The cell job ran the real CLI through the action (action.yml): its outputs carry the verdict and exit code.
  const action = run.job('cell').steps.find((s) => s.id === 'run')!;
  expect(action.log).toContain('▸ mcp-matrix run (success)');
  expect(action.outputs).toEqual({
    verdict: 'passed',
    'exit-code': '0',
    results: expect.stringMatching(/\/cell-results\/attempt-1\/latest-1\/results\.json$/),
  });
  // Named by the call's key (working directory + config hash), as every artifact of the run.
  const artifact = (suffix: string) =>
    [...run.artifacts.values()].find((a) => /^mcp-matrix-root-[0-9a-f]{12}-/.test(a.name) && a.name.endsWith(suffix))!;
  const results = JSON.parse(artifact('-results').files.get('results.json')!.toString()) as {
    cells: { version: string; installSet: Record<string, string> }[];
    plan: { configHash: string };
  };
  const plan = JSON.parse(artifact('-plan').files.get('plan.json')!.toString()) as {
    configHash: string;
    include: { version: string }[];
  };
  expect(results.plan.configHash).toBe(plan.configHash);
  expect(results.cells[0]!.version).toBe(plan.include[0]!.version);
  expect(results.cells[0]!.version).not.toBe('1.999.0');
  // The cell's npm install did go through the proxy (it read the packument with the release in it).
  expect(readFileSync(hits, 'utf8')).toContain('@modelcontextprotocol/sdk');
});
