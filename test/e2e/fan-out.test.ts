// The CI fan-out on one machine: the acceptance workflow's own commands (scripts/acceptance-local.sh:
// plan --json → npm pack once → one single-cell run per planned cell with --tarball, each into its own
// directory → merge) must give the same table as one local run of the same cells; merge is the gate.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exec as run } from './helpers/shell.js';
import type { RunResult } from '../../src/results/types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/mcp-matrix.js');
const SCRIPT = path.join(ROOT, 'scripts/acceptance-local.sh');
const WORKFLOW = path.join(ROOT, '.github/workflows/acceptance.yml');
let tmp = os.tmpdir();

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** A private TMPDIR: the run directories of these cells stay out of other tests' sight (and go with `work`). */
const exec = (file: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<Outcome> =>
  run(file, args, cwd, { TMPDIR: tmp, ...extraEnv }, 600_000);
const cli = (args: string[], cwd: string) => exec(process.execPath, [BIN, ...args], cwd);

/** A config beside the work dir whose package is the repository's reference server: one 1.x and one 2.x cell. */
async function writeConfig(dir: string, name: string, extra = ''): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    `import { defineConfig } from ${JSON.stringify(path.join(ROOT, 'src/index.ts'))};
export default defineConfig({
  package: ${JSON.stringify(path.join(ROOT, 'fixtures/reference-server'))},
  bin: 'reference-mcp-server',
  cells: [
    { pin: 'latest@1', role: 'latest supported 1.x' },
    { pin: '2.0.0', role: 'representative 2.x' },
  ],
  stdio: { expect: { tools: 7, resourceTemplates: 2, prompts: 2 } },
  // Two cells only: the lockstep check (floor cells) has its own tests.
  lockstep: 'off',${extra}
});
`,
  );
  return file;
}

/** The table of a matrix.md, each row without its last (time) column. */
async function tableOf(outDir: string): Promise<string[]> {
  const md = await readFile(path.join(outDir, 'matrix.md'), 'utf8');
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| Pin (role)'));
  expect(start).toBeGreaterThanOrEqual(0);
  const rows: string[] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(' | ').slice(0, -1).join(' | '));
  }
  return rows;
}
const results = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as RunResult;

describe('acceptance-local.sh mirrors the acceptance workflow', () => {
  test('every mcp-matrix command of the workflow is a line of the script, and back', async () => {
    const workflow = (await readFile(WORKFLOW, 'utf8')).split('\n').map((l) => l.trim());
    const script = (await readFile(SCRIPT, 'utf8'))
      .split('\n')
      .filter((l) => l.endsWith('# = acceptance.yml'))
      .map((l) =>
        l
          .replace(/# = acceptance\.yml$/, '')
          .replace(/\s*\|\| (exit \$\?|failed=1)\s*$/, '')
          .trim(),
      );
    expect(script.length).toBeGreaterThanOrEqual(4);
    for (const line of script) expect(workflow, `script line not in the workflow: ${line}`).toContain(line);
    // The plan job's version check (workflow vs installed CLI) and its package-manager detection (before the install,
    // then `detect`) have no local counterpart: one machine, one CLI, the package already installed.
    const commands = workflow.filter(
      (l) =>
        /\$MCP_MATRIX |npm pack|GITHUB_OUTPUT"$/.test(l) &&
        !/^(#|-|name:)/.test(l) &&
        !l.includes('--version') &&
        !l.includes('$MCP_MATRIX detect'),
    );
    // plan, its outputs, pack, merge (the cell's run is the action's: checked below).
    expect(commands.length).toBeGreaterThanOrEqual(4);
    for (const line of commands) expect(script, `workflow line not in the script: ${line}`).toContain(line);
    // The cell job runs the action (action.yml): the script's run line passes what the job gives its inputs.
    const run = (await readFile(SCRIPT, 'utf8')).split('\n').find((l) => l.endsWith('# = action.yml'))!;
    for (const [input, flag] of [
      ['plan: plan.json', '--plan plan.json'],
      ['config: ${{ env.CONFIG }}', '--config "$CONFIG"'],
      ['cell: ${{ matrix.id }}', '--cell "$CELL"'],
      ['tarball: package-tarball/*.tgz', '--tarball "$(ls package-tarball/*.tgz)"'],
      ['out: cell-results/attempt-${{ github.run_attempt }}/${{ matrix.id }}', '--out "cell-results/attempt-$GITHUB_RUN_ATTEMPT/$CELL"'],
    ]) {
      expect(workflow, input).toContain(input);
      expect(run, flag).toContain(flag);
    }
  });
});

describe('CI fan-out and fan-in', () => {
  let work: string;
  let config: string;
  let script: Outcome;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'mm-fanout-'));
    tmp = path.join(work, 'tmp');
    await mkdir(tmp);
    config = await writeConfig(work, 'matrix.config.ts');
    script = await exec('bash', [SCRIPT], work, { CONFIG: config, MCP_MATRIX: `${process.execPath} ${BIN}`, PROGRESS: 'silent' });
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('plan → pack once → two single-cell runs → merge: exit 0, the table of one local run', async () => {
    expect(script.stderr).not.toContain('mcp-matrix:');
    expect(script.code).toBe(0);

    const plan = JSON.parse(await readFile(path.join(work, 'plan.json'), 'utf8')) as {
      include: { id: string; major: number }[];
      configHash: string;
    };
    expect(plan.include.map((c) => `${c.id}:${c.major}`)).toEqual(['latest-1:1', '2.0.0:2']);
    const tarballs = await readdir(path.join(work, 'package-tarball'));
    expect(tarballs).toEqual(['reference-mcp-server-1.0.0.tgz']);

    const pieces = await Promise.all(plan.include.map((c) => results(path.join(work, 'cell-results', 'attempt-1', c.id, 'results.json'))));
    expect(pieces.map((p) => p.cells.map((c) => c.id))).toEqual([['latest-1'], ['2.0.0']]);
    expect(new Set(pieces.map((p) => p.plan.tarball.sha512)).size).toBe(1);
    const merged = await results(path.join(work, 'matrix-results', 'results.json'));
    expect(merged.verdict).toBe('passed');
    expect(merged.plan.configHash).toBe(plan.configHash);

    // One local run of the same two cells (packing by itself, as on a laptop).
    const local = await cli(['run', '--config', config, '--out', path.join(work, 'local'), '--progress', 'silent'], work);
    expect(local.code).toBe(0);
    expect((await results(path.join(work, 'local', 'results.json'))).plan.configHash).toBe(plan.configHash);
    const fanned = await tableOf(path.join(work, 'matrix-results'));
    expect(fanned).toHaveLength(4);
    expect(fanned).toEqual(await tableOf(path.join(work, 'local')));
  });

  test('merge with one piece removed: exit 1, names the missing cell', async () => {
    const r = await cli(['merge', 'cell-results/attempt-1/latest-1/results.json', '--out', 'partial'], work);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cell 2\.0\.0 \(pin 2\.0\.0\) has no evidence/);
    // Against the frozen plan, with no piece at all: every planned cell is named.
    const none = await cli(['merge', '--plan', 'plan.json', 'no-such-dir', '--out', 'none'], work);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/cell latest-1 \(pin latest@1\) has no evidence/);
    expect(none.stderr).toMatch(/cell 2\.0\.0 \(pin 2\.0\.0\) has no evidence/);
  });

  test('merge with a piece of another plan (other config hash): exit 1, names it', async () => {
    const other = await writeConfig(work, 'other.config.ts', '\n  leaks: { graceMs: 9_000 },');
    const tarball = path.join(work, 'package-tarball', 'reference-mcp-server-1.0.0.tgz');
    const run = await cli(
      ['run', '--config', other, '--cell', '2.0.0', '--tarball', tarball, '--out', 'other/2.0.0', '--progress', 'silent'],
      work,
    );
    expect(run.code).toBe(0);
    const r = await cli(['merge', 'cell-results/attempt-1/latest-1/results.json', 'other/2.0.0/results.json', '--out', 'mixed'], work);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('other/2.0.0/results.json: belongs to another plan');
    const planned = await cli(['merge', '--plan', 'plan.json', 'cell-results/attempt-1/latest-1', 'other/2.0.0', '--out', 'mixed2'], work);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(/other\/2\.0\.0\/results\.json: belongs to another plan \(configHash \w+, but plan\.json has \w+\)/);
    // A cell job given the frozen plan of another config refuses at once (exit 2), before any install.
    const frozen = await cli(
      ['run', '--plan', 'plan.json', '--config', other, '--cell', '2.0.0', '--tarball', tarball, '--out', 'x'],
      work,
    );
    expect(frozen.code).toBe(2);
    expect(frozen.stderr).toMatch(/--plan: the config .*other\.config\.ts is not the one the plan was made from/);
  });
});
