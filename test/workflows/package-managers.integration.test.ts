// The gate in a monorepo whose lockfile is at the workspace root, for npm, pnpm and Yarn (Berry, Plug'n'Play): the
// reusable workflow called for packages/server, in the local workflow runner with its setup-node, pnpm/action-setup
// and corepack stand-ins and the real pnpm and Yarn (from the test client cache, as `mcp-matrix pack` installs
// them). The installs are real (only workspace packages: no registry), `mcp-matrix pack` is the real CLI (its
// tarball has the sibling's real range, not `workspace:^`), merge is real; plan and run are the stand-in CLI,
// itself a workspace package named mcp-matrix, so each package manager finds it as it would the real one.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensurePmTool, pmEnv } from '../../src/pack/pm-tool.js';
import type { PackageManager } from '../../src/pack/package-manager.js';
import { HARNESS_VERSION } from '../../src/version.js';
import { FOUR_CELLS } from '../reports/helpers/make-run.js';
import { TEST_CACHE_ENV, TEST_CLIENT_CACHE } from '../helpers/node-runtimes.js';
import { runWorkflow, type RunRecord } from '../helpers/workflow-runner.js';
import { writeFakePlan } from './fake-plan.js';
import { detectRepo } from '../../src/commands/init/repo.js';
import { renderWorkflow } from '../../src/commands/init/workflow-template.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKFLOW = path.join(ROOT, '.github/workflows/acceptance.yml');
const FAKE = path.join(ROOT, 'test/workflows/fake-mcp-matrix.mjs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-wf-pm-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Pm = 'npm' | 'pnpm' | 'yarn';
const TOOLS: Pick<PackageManager, 'name' | 'version' | 'yarnBerry'>[] = [
  { name: 'pnpm', version: '10.34.9', yarnBerry: false },
  { name: 'yarn', version: '4.18.1', yarnBerry: true },
  { name: 'yarn', version: '1.22.22', yarnBerry: false },
];
const tools: Record<string, string> = {};
const toolCommand: Record<string, { command: string; prefix: string[]; env: NodeJS.ProcessEnv }> = {};

beforeAll(async () => {
  for (const t of TOOLS) {
    const pm = { ...t, from: { kind: 'default' as const }, pnp: false, root: tmp };
    const tool = await ensurePmTool(pm, { runDir: tmp, cacheDir: TEST_CLIENT_CACHE });
    if (!tool.ok) throw new Error(tool.error.message);
    tools[`${t.name}@${t.version}`] = tool.value.binDir;
    toolCommand[`${t.name}@${t.version}`] = { command: tool.value.command, prefix: tool.value.prefix, env: pmEnv(tool.value) };
  }
}, 600_000);

/**
 * A git repository holding a workspace: @fx/server (in packages/server, the package under test, depending on
 * @fx/util through `workspace:^`, or a plain range for npm, which has no workspace: protocol) and the stand-in
 * CLI as the workspace package `mcp-matrix`; its lockfile written by a real install at the root, then the install's
 * output removed, as a checkout has it.
 */
function monorepo(pm: Pm): string {
  const repo = path.join(tmp, pm, 'repo');
  if (pm === 'npm') {
    const fixture = path.join(ROOT, 'fixtures/workspaces/pnpm/packages');
    cpSync(fixture, path.join(repo, 'packages'), { recursive: true });
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'fx-npm-workspace', private: true, workspaces: ['packages/*'] }));
  } else cpSync(path.join(ROOT, 'fixtures/workspaces', pm), repo, { recursive: true });
  mkdirSync(path.join(repo, '.git'));
  const cli = path.join(repo, 'packages/mcp-matrix');
  mkdirSync(cli, { recursive: true });
  writeFileSync(
    path.join(cli, 'package.json'),
    JSON.stringify({
      name: 'mcp-matrix',
      version: HARNESS_VERSION,
      type: 'module',
      bin: { 'mcp-matrix': 'bin/mcp-matrix.js', 'fx-build': 'bin/fx-build.js' },
      exports: { './package.json': './package.json', './action.yml': './action.yml' },
    }),
  );
  // Where the action starts the installed CLI (node <package>/bin/mcp-matrix.js), as the real package has it.
  mkdirSync(path.join(cli, 'bin'));
  writeFileSync(path.join(cli, 'bin/mcp-matrix.js'), `#!/usr/bin/env node\nawait import(${JSON.stringify(FAKE)});\n`);
  // A build tool the package's build script runs (as a TypeScript server runs tsc): on PATH only through the
  // package manager's own run (Yarn Plug'n'Play has no node_modules/.bin).
  writeFileSync(
    path.join(cli, 'bin/fx-build.js'),
    "#!/usr/bin/env node\nimport { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('dist', { recursive: true });\nwriteFileSync('dist/built.js', 'export {};\\n');\n",
  );
  copyFileSync(path.join(ROOT, 'action.yml'), path.join(cli, 'action.yml'));
  const server = path.join(repo, 'packages/server');
  const manifest = JSON.parse(readFileSync(path.join(server, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  if (pm === 'npm') manifest.dependencies = { '@fx/util': '^1.2.3' };
  manifest.devDependencies = { 'mcp-matrix': pm === 'npm' ? HARNESS_VERSION : 'workspace:*' };
  manifest.scripts = { build: 'fx-build' };
  writeFileSync(path.join(server, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(path.join(server, 'matrix.config.ts'), 'export default {};\n');
  const install = (command: string, args: string[], env: NodeJS.ProcessEnv) =>
    execFileSync(command, args, { cwd: repo, env: { ...env, CI: '' }, stdio: 'pipe', timeout: 120_000 });
  if (pm === 'npm') install('npm', ['install', '--offline', '--no-audit', '--no-fund'], process.env);
  else {
    const t = toolCommand[pm === 'pnpm' ? 'pnpm@10.34.9' : 'yarn@4.18.1']!;
    install(t.command, [...t.prefix, 'install', ...(pm === 'pnpm' ? ['--offline'] : ['--no-immutable'])], t.env);
  }
  for (const made of ['node_modules', 'packages/server/node_modules', 'packages/util/node_modules', '.pnp.cjs', '.pnp.loader.mjs', '.yarn'])
    rmSync(path.join(repo, made), { recursive: true, force: true });
  return repo;
}

/** The reusable workflow called for packages/server, or init's workflow for it written at the root. */
function gate(pm: Pm, repo: string, workflow = WORKFLOW): RunRecord {
  const fake = path.join(tmp, pm, 'fake');
  writeFakePlan(fake, FOUR_CELLS.slice(0, 1), { directory: '.' });
  return runWorkflow({
    workflow,
    repo,
    ...(workflow === WORKFLOW
      ? { calledBy: { job: 'mcp-matrix', workflow: 'release' }, inputs: { 'working-directory': 'packages/server' } }
      : {}),
    tools,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: path.join(tmp, pm),
      TMPDIR: path.join(tmp, pm),
      ...TEST_CACHE_ENV,
      FAKE_DIR: fake,
      REAL_MCP_MATRIX: path.join(ROOT, 'bin/mcp-matrix.js'),
      NO_COLOR: '1',
    },
  });
}

const failures = (r: RunRecord) =>
  r.jobs.flatMap((j) => [
    ...j.annotations.map((a) => `${j.job} ${a.level}: ${a.message}`),
    ...j.steps.filter((s) => s.outcome === 'failure').map((s) => `${j.job} · ${s.name}:\n${s.log}`),
  ]);

/** The packed tarball's package.json and file list, from the run's tarball artifact. */
function packed(r: RunRecord, dir: string): { dependencies?: Record<string, string>; files: string[] } {
  const tarball = [...r.artifacts.values()].find((a) => a.name.endsWith('-tarball'))!;
  const [content] = [...tarball.files.values()];
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 't.tgz'), content!);
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', path.join(dir, 't.tgz'), 'package/package.json'], { encoding: 'utf8' })) as {
    dependencies?: Record<string, string>;
  };
  return {
    ...manifest,
    files: execFileSync('tar', ['-tzf', path.join(dir, 't.tgz')], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .sort(),
  };
}

/** A workflow run with real installs (up to 186 s seen at load 20+ against the e2e project's 300 s): a hang guard. */
const GUARD = { timeout: 600_000 };

describe.each(['npm', 'pnpm', 'yarn'] as const)('a %s monorepo, its lockfile at the root', (pm) => {
  let repo = '';
  beforeAll(() => {
    repo = monorepo(pm);
  }, 300_000);

  test('the reusable workflow called for packages/server: the gate passes, the tarball packed by its own package manager', GUARD, () => {
    const r = gate(pm, repo);
    expect(
      r.jobs.map((j) => `${j.job}:${j.result}`),
      failures(r).join('\n'),
    ).toEqual(['plan:success', 'pack:success', 'cell:success', 'merge:success']);
    expect(r.job('merge').check).toBe('mcp-matrix / mcp-matrix packages/server/matrix.config.ts');
    const tarball = packed(r, path.join(tmp, pm, 'called'));
    expect(tarball.dependencies).toEqual({ '@fx/util': '^1.2.3' });
    // Built before packing, through the package manager's run.
    expect(tarball.files).toContain('package/dist/built.js');
  });

  // npm's: "init's workflow in a monorepo subpackage" in acceptance.test.ts.
  test.skipIf(pm === 'npm')("init's workflow for packages/server, written at the root: the gate passes the same way", GUARD, () => {
    const found = detectRepo(path.join(repo, 'packages/server'), false);
    if (!found.ok) throw new Error(found.error.message);
    const workflow = path.join(tmp, pm, 'init.yml');
    writeFileSync(workflow, renderWorkflow(found.value.repo));
    const r = gate(pm, repo, workflow);
    expect(
      r.jobs.filter((j) => j.job !== 'attest').map((j) => `${j.job}:${j.result}`),
      failures(r).join('\n'),
    ).toEqual(['plan:success', 'pack:success', 'cell:success', 'merge:success']);
    expect(r.job('merge').check).toBe('mcp-matrix packages/server/matrix.config.ts');
    const tarball = packed(r, path.join(tmp, pm, 'init'));
    expect(tarball.dependencies).toEqual({ '@fx/util': '^1.2.3' });
    expect(tarball.files).toContain('package/dist/built.js');
  });
});
