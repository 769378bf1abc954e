// The acceptance workflow (.github/workflows/acceptance.yml) run by the local workflow runner
// (test/helpers/workflow-runner.ts: GitHub's documented job, step, expression and artifact semantics).
// The plumbing is under test here: `plan` and `run` are a stand-in (fake-mcp-matrix.mjs) that prints a
// prepared plan and writes prepared pieces; `merge`, the gate, is the real CLI. Every scenario checks the
// gate's result (the merge job, named mcp-matrix) and the message that names the cause.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { CONFIG_HASH, FOUR_CELLS, makeRun, pieceOf, type CellSpec } from '../reports/helpers/make-run.js';
import { writeFakePlan } from './fake-plan.js';
import { runWorkflow, type RunOptions, type RunRecord } from '../helpers/workflow-runner.js';
import { renderWorkflow } from '../../src/commands/init/workflow-template.js';
import { TEST_TREE_CACHE } from '../helpers/node-runtimes.js';
import { interpolate } from '../helpers/workflow-expr.js';
import { absenceContext, secretGaps } from '../../src/judge/secrets.js';
import type { SecretSpec } from '../../src/contract/config.js';

const FORK = { pull_request: { head: { repo: { fork: true, full_name: 'bob/server' } }, base: { repo: { full_name: 'acme/server' } } } };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKFLOW = path.join(ROOT, '.github/workflows/acceptance.yml');
const FAKE = path.join(ROOT, 'test/workflows/fake-mcp-matrix.mjs');
const dirs: string[] = [];

/**
 * A stand-in for `npm ci` that installs mcp-matrix as npm would for the action: node_modules/mcp-matrix with
 * its package.json (exports), this repository's action.yml, and bin/mcp-matrix.js (here the stand-in CLI).
 */
const installMcpMatrix = (at = '.') => {
  const dir = `${at}/node_modules/mcp-matrix`;
  const pkg = JSON.stringify({ name: 'mcp-matrix', exports: { './package.json': './package.json', './action.yml': './action.yml' } });
  return `mkdir -p ${dir}/bin && echo '${pkg}' > ${dir}/package.json && cp ${path.join(ROOT, 'action.yml')} ${dir}/ && ln -sf ${FAKE} ${dir}/bin/mcp-matrix.js`;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
/** The workflows' install step (acceptance.yml's names the detected command), replaced by `script`. */
const installs = (script: string) => ({
  'npm ci': script,
  '${{ steps.pm.outputs.install }}': script,
  '${{ needs.plan.outputs.install }}': script,
});

/** A repository whose `npm ci` (stubbed) links the stand-in CLI, a plan of `specs`, and each cell's piece. */
function setup(
  specs: CellSpec[],
  options: {
    tarball?: boolean;
    pieces?: (run: RunResult, id: string) => RunResult;
    subdir?: string;
    workflow?: string;
    repo?: string;
    /** Extra fields of the package's package.json (engines, packageManager). */
    manifest?: Record<string, unknown>;
  } = {},
) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-wf-'));
  dirs.push(tmp);
  // A second package of the same repository (a monorepo) shares its checkout.
  const repo = options.repo ?? path.join(tmp, 'repo');
  const pkg = path.join(repo, options.subdir ?? '.');
  const fake = path.join(tmp, 'fake');
  mkdirSync(pkg, { recursive: true });
  // A checkout's root holds .git: mcp-matrix detect's search for the lockfile stops there, as the workflow's does.
  mkdirSync(path.join(repo, '.git'), { recursive: true });
  writeFileSync(
    path.join(pkg, 'package.json'),
    `${JSON.stringify({ name: 'server', version: '1.0.0', files: ['index.js'], ...options.manifest })}\n`,
  );
  writeFileSync(path.join(pkg, 'index.js'), '\n');
  // setup-node (cache: npm) hashes the lockfile the workflow names: a package with a lockfile of its own.
  writeFileSync(path.join(pkg, 'package-lock.json'), '{"name":"server","lockfileVersion":3,"packages":{}}\n');
  writeFileSync(path.join(pkg, 'matrix.config.ts'), 'export default {};\n');
  if (options.tarball !== false) writeFileSync(path.join(pkg, 'server-1.0.0.tgz'), 'not really a tarball');
  writeFakePlan(fake, specs, { tarball: 'server-1.0.0.tgz' }, options.pieces);
  const base: RunOptions = {
    workflow: options.workflow ?? WORKFLOW,
    repo,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      MCP_MATRIX_TREE_CACHE: TEST_TREE_CACHE,
      TMPDIR: tmp,
      FAKE_DIR: fake,
      REAL_MCP_MATRIX: path.join(ROOT, 'bin/mcp-matrix.js'),
      NO_COLOR: '1',
    },
    stub: installs(installMcpMatrix()),
    // The CLI is called as the workflow's MCP_MATRIX says; here the stand-in, without npx's start-up.
    workflowEnv: { MCP_MATRIX: `node ${FAKE}` },
  };
  return { base, run: (extra: Partial<RunOptions> = {}) => runWorkflow({ ...base, ...extra, env: { ...base.env, ...extra.env } }) };
}

const gate = (r: RunRecord) => r.job('merge');
/** The artifacts of one call: their names carry the plan job's key (working directory + config hash). */
const KEY = `root-${CONFIG_HASH.slice(0, 12)}`;
const mergeLog = (r: RunRecord) => gate(r).steps.find((s) => s.name === 'mcp-matrix merge')?.log ?? '';
const cells = (n: number): CellSpec[] =>
  Array.from({ length: n }, (_, i) => ({ ...FOUR_CELLS[i % 4]!, id: i < 4 ? FOUR_CELLS[i]!.id : `${FOUR_CELLS[i % 4]!.id}-${i}` }));

describe('the acceptance workflow, run locally with GitHub semantics', () => {
  test.each([1, 2, 4])('%i variant(s): every cell job, one merge, the gate passes', (n) => {
    const wf = setup(cells(n));
    const r = wf.run();
    expect(r.jobs.filter((j) => j.job === 'cell').map((j) => j.result)).toEqual(Array(n).fill('success'));
    expect(gate(r).result, mergeLog(r)).toBe('success');
    expect(mergeLog(r)).toContain(`PASSED · merged ${n} piece(s)`);
    expect(gate(r).summary).toMatch(/^# mcp-matrix: PASSED/m);
    // Each cell ran through the action (action.yml's composite steps): its outputs carry the verdict and exit code.
    for (const cell of r.jobs.filter((j) => j.job === 'cell')) {
      const step = cell.steps.find((s) => s.id === 'run')!;
      expect(step.log).toContain('▸ mcp-matrix run (success)');
      expect(step.log).toContain('summary: left to merge');
      expect(step.outputs).toEqual({
        verdict: 'passed',
        'exit-code': '0',
        results: expect.stringMatching(new RegExp(`/cell-results/attempt-1/${String(cell.matrix?.id)}/results\\.json$`)),
      });
    }
  });

  test('a failed cell: the gate fails and the annotation names the variant and the phase', () => {
    const wf = setup(cells(2), {
      pieces: (_r, id) =>
        id === 'v1-latest'
          ? pieceOf(
              makeRun([cells(2)[0]!, { ...cells(2)[1]!, phases: { http: { verdict: 'failed', message: 'no 401 without a token' } } }]),
              id,
              '2026-08-25T10:00:00.000Z',
              '2026-08-25T10:01:00.000Z',
            )
          : _r,
    });
    const r = wf.run();
    expect(r.job('cell', 'v1-latest').result).toBe('failure');
    // The action's outputs say so, its reports are written whatever the verdict, and it ends with the exit code.
    const step = r.job('cell', 'v1-latest').steps.find((s) => s.id === 'run')!;
    expect(step.outputs).toMatchObject({ verdict: 'failed', 'exit-code': '1' });
    expect(step.outcome).toBe('failure');
    expect(step.log).toMatch(/▸ mcp-matrix run \(success\)[\s\S]*▸ the run's exit code \(failure\)/);
    expect(r.job('cell', 'v1-floor').steps.find((s) => s.id === 'run')!.outputs).toMatchObject({ verdict: 'passed', 'exit-code': '0' });
    expect(gate(r).result).toBe('failure');
    expect(gate(r).annotations.some((a) => a.level === 'warning' && a.title === 'mcp-matrix cell job failure')).toBe(true);
    expect(r.annotations()).toContainEqual(expect.stringMatching(/^error mcp-matrix v1-latest · http failed: .*no 401 without a token/));
  });

  test('a cancelled cell: merge names the cancelled job, then the variant without evidence, as annotations', () => {
    const r = setup(cells(2)).run({ cancel: (job, m) => job === 'cell' && m?.id === 'v1-floor' });
    expect(r.job('cell', 'v1-floor').result).toBe('cancelled');
    expect(gate(r).result).toBe('failure');
    expect(gate(r).steps[0]!.log).toContain("the cell job's result is cancelled");
    expect(r.annotations()).toContainEqual(
      expect.stringMatching(/^error mcp-matrix merge: cell v1-floor \(pin 1\.24\.0\) has no evidence/),
    );
    expect(gate(r).summary).toContain('cell v1-floor (pin 1.24.0) has no evidence');
  });

  test('skipped cells (the pack job failed): merge names pack as the cause, not missing results', () => {
    const r = setup(cells(2), { tarball: false }).run();
    expect(r.result('pack')).toBe('failure');
    expect(r.result('cell')).toBe('skipped');
    expect(gate(r).result).toBe('failure');
    expect(r.annotations()).toContainEqual(
      "error mcp-matrix pack job failure: the pack job's result is failure: no tarball, so no cell could install the package.",
    );
    expect(gate(r).steps.find((s) => s.name === 'mcp-matrix merge')?.outcome).toBe('skipped');
  });

  test('mcp-matrix not installed where the action runs: exit 2, and the annotation says what to add', () => {
    const r = setup(cells(1)).run({
      stub: installs(`${installMcpMatrix()} && rm node_modules/mcp-matrix/package.json`),
    });
    const cell = r.job('cell', 'v1-floor');
    expect(cell.result).toBe('failure');
    expect(cell.steps.find((s) => s.id === 'run')!.outputs).toEqual({ verdict: '', 'exit-code': '2', results: '' });
    expect(cell.annotations).toContainEqual(
      expect.objectContaining({ title: 'mcp-matrix not installed', message: expect.stringContaining('add it as a devDependency') }),
    );
  });

  test('the action alone (one job, no plan): a failing cell fails the job with its exit code, reports uploaded, outputs readable after', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-wf-action-'));
    dirs.push(tmp);
    const workflow = path.join(tmp, 'one-job.yml');
    writeFileSync(
      workflow,
      `name: one job
on: push
jobs:
  matrix:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
      - run: npm ci
      - run: |
          mkdir -p "$GITHUB_WORKSPACE/.mcp-matrix-action"
          node -e 'require("fs").copyFileSync(require.resolve("mcp-matrix/action.yml"), process.argv[1])' "$GITHUB_WORKSPACE/.mcp-matrix-action/action.yml"
      - id: matrix
        uses: ./.mcp-matrix-action
        with:
          cell: v1-latest
          tarball: server-*.tgz
      - id: after
        if: always()
        env:
          VERDICT: \${{ steps.matrix.outputs.verdict }}
          CODE: \${{ steps.matrix.outputs.exit-code }}
        run: echo "the action said $VERDICT, exit $CODE"
`,
    );
    const failing = cells(2).map((c) =>
      c.id === 'v1-latest' ? { ...c, phases: { http: { verdict: 'failed' as const, message: 'no 401' } } } : c,
    );
    const r = setup(failing, { workflow, pieces: (_p, id) => pieceOf(makeRun(failing), id, _p.startedAt, _p.finishedAt) }).run();
    const job = r.job('matrix');
    expect(job.result).toBe('failure');
    const action = job.steps.find((s) => s.id === 'matrix')!;
    expect(action.outputs).toMatchObject({ verdict: 'failed', 'exit-code': '1' });
    expect(action.log).toContain('summary: written here');
    expect(action.log).toMatch(/▸ actions\/upload-artifact@[0-9a-f]{40} \(success\)/);
    expect(action.log).toContain("▸ the run's exit code (failure)");
    expect(job.steps.find((s) => s.id === 'after')?.log).toContain('the action said failed, exit 1');
    // The action alone names its artifact by its job (two jobs using it in one run never collide).
    expect([...r.artifacts.keys()]).toEqual(['mcp-matrix-results-matrix-0']);
    expect([...r.artifacts.get('mcp-matrix-results-matrix-0')!.files.keys()]).toEqual(['results.json']);
  });

  test('a failed plan: merge says no cell ran', () => {
    const r = setup(cells(1)).run({ env: { FAKE_PLAN_EXIT: '2' } });
    expect(r.result('plan')).toBe('failure');
    expect(r.result('cell')).toBe('skipped');
    expect(r.annotations()).toContainEqual(expect.stringMatching(/^error mcp-matrix plan job failure: .*no cell ran/));
  });

  test('re-run failed jobs: only the dead cell runs again, its piece joins the first attempt’s others', () => {
    const wf = setup(cells(4));
    const first = wf.run({ env: { FAKE_DIE: 'v2-rep' } });
    expect(first.job('cell', 'v2-rep').result).toBe('failure');
    expect(gate(first).result).toBe('failure');
    expect(mergeLog(first)).toContain('cell v2-rep (pin 2.0.0) has no evidence');
    const second = wf.run({ rerunFailedOf: first });
    expect(second.attempt).toBe(2);
    expect(second.jobs.filter((j) => j.job === 'cell' && j.attempt === 2).map((j) => j.matrix?.id)).toEqual(['v2-rep']);
    expect(gate(second).result, mergeLog(second)).toBe('success');
    expect(mergeLog(second)).toContain('PASSED · merged 4 piece(s)');
  });

  test('re-run failed jobs: a re-run piece replaces the old attempt’s, never mixes', () => {
    const failing = (r: RunResult, id: string) =>
      id === 'v1-floor'
        ? pieceOf(makeRun([{ ...cells(1)[0]!, phases: { stdio: { verdict: 'failed', message: 'flaky' } } }]), id, r.startedAt, r.finishedAt)
        : r;
    const wf = setup(cells(2), { pieces: failing });
    const first = wf.run();
    expect(gate(first).result).toBe('failure');
    // The server is fixed (or the flake gone): attempt 2's piece of v1-floor passes.
    writeFileSync(
      path.join(wf.base.env.FAKE_DIR!, 'pieces', 'v1-floor.json'),
      JSON.stringify(pieceOf(makeRun(cells(2)), 'v1-floor', '2026-08-25T11:00:00.000Z', '2026-08-25T11:01:00.000Z')),
    );
    const second = wf.run({ rerunFailedOf: first });
    expect(mergeLog(second)).toMatch(/attempt-1\/v1-floor\/results\.json: replaced by .*attempt-2\/v1-floor\/results\.json/);
    expect(gate(second).result, mergeLog(second)).toBe('success');
  });

  test('re-run all jobs: a cell that dies before writing never passes on the first attempt’s piece', () => {
    const wf = setup(cells(2));
    const first = wf.run();
    expect(gate(first).result).toBe('success');
    const second = wf.run({ rerunAllOf: first, env: { FAKE_DIE: 'v1-latest' } });
    expect(second.attempt).toBe(2);
    expect(gate(second).result).toBe('failure');
    expect(mergeLog(second)).toContain('attempt-1/v1-latest/results.json: from attempt 1, before the plan of attempt 2');
    expect(mergeLog(second)).toContain('cell v1-latest (pin latest@1) has no evidence');
  });

  test('a piece of another plan (a cell that resolved against the registry again) is refused, naming plan.json', () => {
    const r = setup(cells(2), {
      pieces: (p, id) => (id === 'v1-latest' ? { ...p, plan: { ...p.plan, configHash: 'f'.repeat(64) } } : p),
    }).run();
    expect(gate(r).result).toBe('failure');
    expect(r.annotations()).toContainEqual(
      expect.stringMatching(/^error mcp-matrix merge: .*v1-latest\/results\.json: belongs to another plan .* but plan\.json has/),
    );
  });

  test.each(['not-measured', 'fail'] as const)(
    "a fork's pull request without secrets, secretsOnFork %s: the action says which are absent; the gate follows the policy",
    (policy) => {
      // Each cell's piece as the harness writes it on a fork's run (its own secretGaps), stdio measured, http not.
      const spec: SecretSpec = { name: 'API_TOKEN', phases: ['http'], whenAbsent: 'not-measured' };
      const gap = secretGaps([spec], absenceContext({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request' }, FORK), policy).get(
        'http',
      )!;
      const specs = cells(2).map((c) => ({ ...c, phases: { http: gap } }));
      const wf = setup(specs, { pieces: (p, id) => pieceOf(makeRun(specs), id, p.startedAt, p.finishedAt) });
      const fork = wf.run({
        event: { name: 'pull_request', ref: 'refs/pull/7/merge', payload: FORK },
        inputs: { 'secret-env': 'API_TOKEN', 'server-env': 'LOG_LEVEL=debug' },
        secrets: {},
        env: { FAKE_ENV_PROBE: 'API_TOKEN LOG_LEVEL MCP_MATRIX_SECRETS' },
      });
      const cell = fork.job('cell', 'v1-floor');
      expect(cell.annotations).toContainEqual(
        expect.objectContaining({
          level: 'warning',
          message: expect.stringMatching(/^secret\(s\) absent: API_TOKEN; this run comes from a fork or Dependabot/),
        }),
      );
      expect(cell.summary).toContain('secret(s) absent: API_TOKEN');
      const run = cell.steps.find((s) => s.name.startsWith('mcp-matrix run'))!.log;
      expect(run).toContain('env LOG_LEVEL: 1 line(s)');
      expect(run).toContain('env MCP_MATRIX_SECRETS: unset');
      if (policy === 'not-measured') {
        expect(gate(fork).result, mergeLog(fork)).toBe('success');
        // Loud and plain: one warning before any other, and the summary's first line after the title.
        expect(gate(fork).annotations[0]).toMatchObject({
          level: 'warning',
          title: 'mcp-matrix: not measured (no secrets)',
          message: expect.stringMatching(/^NOT MEASURED for lack of secrets: http in 2 of 2 cell\(s\)/),
        });
        const summary = gate(fork).summary;
        expect(summary).toMatch(/^# mcp-matrix: PASSED/m);
        expect(summary.indexOf('> **NOT MEASURED for lack of secrets: http')).toBeGreaterThan(0);
        expect(summary.indexOf('> **NOT MEASURED for lack of secrets: http')).toBeLessThan(summary.indexOf('| Pin'));
      } else {
        expect(gate(fork).result).toBe('failure');
        expect(mergeLog(fork)).toContain('NOT-MEASURED · merged 2 piece(s)');
      }
    },
  );

  test("a deleted fork's pull request (head.repo null) and Dependabot are forks, named as such; a push without secrets: inherit is an error", () => {
    const wf = setup(cells(1));
    for (const event of [
      { name: 'pull_request', payload: { pull_request: { head: { repo: null } } } },
      { name: 'push', actor: 'dependabot[bot]' },
    ]) {
      const r = wf.run({ event, inputs: { 'secret-env': 'API_TOKEN' }, secrets: {} });
      expect(r.job('cell', 'v1-floor').annotations[0]).toMatchObject({ level: 'warning', title: 'mcp-matrix secrets absent' });
      expect(r.job('cell', 'v1-floor').result).toBe('success');
    }
    // The same caller without `secrets: inherit` on a push: a mistake, an error, and the job fails saying so.
    const push = wf.run({ inputs: { 'secret-env': 'API_TOKEN' }, secrets: {} });
    expect(push.job('cell', 'v1-floor').annotations[0]).toMatchObject({
      level: 'error',
      message: expect.stringContaining('add secrets: inherit'),
    });
    expect(push.job('cell', 'v1-floor').result).toBe('failure');
  });

  test("the action's fork rule is the harness's (absenceContext) on every kind of event", () => {
    const rule = /FROM_FORK: \$\{\{ (.*) \}\}/.exec(readFileSync(path.join(ROOT, 'action.yml'), 'utf8'))![1]!;
    const events: [string, string, Record<string, unknown>][] = [
      [
        'pull_request',
        'bob',
        { pull_request: { head: { repo: { fork: true, full_name: 'bob/s' } }, base: { repo: { full_name: 'acme/s' } } } },
      ],
      [
        'pull_request',
        'bob',
        { pull_request: { head: { repo: { fork: false, full_name: 'bob/s' } }, base: { repo: { full_name: 'acme/s' } } } },
      ],
      ['pull_request_target', 'bob', { pull_request: { head: { repo: null }, base: { repo: { full_name: 'acme/s' } } } }],
      [
        'pull_request',
        'alice',
        { pull_request: { head: { repo: { fork: false, full_name: 'acme/s' } }, base: { repo: { full_name: 'acme/s' } } } },
      ],
      ['push', 'alice', {}],
      ['merge_group', 'alice', { merge_group: {} }],
      ['push', 'dependabot[bot]', {}],
      [
        'pull_request',
        'dependabot[bot]',
        { pull_request: { head: { repo: { fork: false, full_name: 'acme/s' } }, base: { repo: { full_name: 'acme/s' } } } },
      ],
    ];
    for (const [name, actor, payload] of events) {
      const ours = absenceContext({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: name, GITHUB_ACTOR: actor }, payload) !== '';
      const scope = {
        contexts: { github: { event_name: name, actor, event: payload } },
        status: { success: true, failure: false, cancelled: false },
      };
      expect(`${name} ${actor} ${JSON.stringify(payload)}: ${String(interpolate(`\${{ ${rule} }}`, scope))}`).toBe(
        `${name} ${actor} ${JSON.stringify(payload)}: ${String(ours)}`,
      );
    }
  });

  test('a multi-line secret reaches the run step alone and whole, masked line by line', () => {
    const secret = 'line-one-SECRET\nline-two-SECRET\nEOF\nAPI_TOKEN=evil';
    const r = setup(cells(1)).run({
      inputs: { 'secret-env': 'API_TOKEN' },
      secrets: { API_TOKEN: secret },
      env: { FAKE_ENV_PROBE: 'API_TOKEN' },
    });
    const cell = r.job('cell', 'v1-floor');
    expect(cell.result).toBe('success');
    expect(cell.steps.find((s) => s.name.startsWith('mcp-matrix run'))?.log).toContain('env API_TOKEN: 4 line(s)');
    const all = r.jobs.flatMap((j) => j.steps.map((s) => s.log)).join('\n');
    expect(all).not.toContain('SECRET');
    // Only the action's run step had it: no GITHUB_ENV entry, so no other step (npm ci, the upload) saw it.
    expect(
      cell.steps
        .filter((s) => !s.name.startsWith('mcp-matrix run'))
        .map((s) => s.log)
        .join('\n'),
    ).not.toContain('API_TOKEN=');
  });

  test("init's workflow in a monorepo subpackage (written at the git root, working-directory set): 1 variant passes", () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-wf-init-'));
    dirs.push(tmp);
    const workflow = path.join(tmp, 'mcp-matrix-packages-server.yml');
    writeFileSync(
      workflow,
      renderWorkflow({ workingDirectory: 'packages/server', pm: 'npm', yarnBerry: false, lockfile: 'package-lock.json', engines: true }),
    );
    const wf = setup(cells(1), { subdir: 'packages/server', workflow });
    writeFileSync(path.join(wf.base.repo, 'package-lock.json'), '{}');
    // npm ci runs at the root (the lockfile's directory); npx finds the CLI from the package's directory.
    const link = `ln -sf ${FAKE} node_modules/.bin/mcp-matrix`;
    const r = wf.run({
      stub: {
        // The action's package is hoisted to the workspace root, as npm workspaces install it.
        'npm ci': `mkdir -p node_modules/.bin packages/server/node_modules/.bin && ${link} && (cd packages/server && ${link}) && ${installMcpMatrix()}`,
        'npm run build --if-present': 'true',
      },
    });
    const failed = r.jobs.flatMap((j) => j.steps.filter((s) => s.outcome === 'failure').map((s) => `${j.job} · ${s.name}: ${s.log}`));
    expect(
      r.jobs.map((j) => `${j.job}:${j.result}`),
      failed.join('\n'),
    ).toEqual(['plan:success', 'pack:success', 'cell:success', 'merge:success', 'attest:skipped']);
    const key = `packages-server-${CONFIG_HASH.slice(0, 12)}`;
    expect([...r.artifacts.get(`mcp-matrix-${key}-tarball`)!.files.keys()]).toEqual(['server-1.0.0.tgz']);
    // Through the action, found in the workspace root's node_modules (hoisted), run in the subpackage.
    expect(r.job('cell').steps.find((s) => s.name.includes('./.mcp-matrix-action'))?.outputs).toMatchObject({
      verdict: 'passed',
      'exit-code': '0',
      results: expect.stringMatching(/\/packages\/server\/cell-results\/attempt-1\/v1-floor\/results\.json$/),
    });
    expect([...r.artifacts.get(`mcp-matrix-${key}-cell-v1-floor-attempt-1`)!.files.keys()]).toEqual(['attempt-1/v1-floor/results.json']);
    expect(gate(r).check).toBe('mcp-matrix packages/server/matrix.config.ts');
    expect(
      gate(r)
        .steps.map((s) => s.log)
        .join('\n'),
    ).toContain('PASSED · merged 1 piece(s)');
  });

  test('two calls in one run (two packages of a monorepo), one passing, one failing: each gates on its own pieces, under its own check', () => {
    const failing = cells(1).map((c) => ({ ...c, phases: { stdio: { verdict: 'failed' as const, message: 'boom' } } }));
    const a = setup(cells(2), { subdir: 'packages/a' });
    const b = setup(failing, {
      subdir: 'packages/b',
      repo: a.base.repo,
      pieces: (p, id) => pieceOf(makeRun(failing), id, p.startedAt, p.finishedAt),
    });
    const artifacts: RunOptions['artifacts'] = new Map();
    // Two caller workflows whose calling jobs are both `mcp-matrix`; GitHub runs the calls side by side: here b's
    // jobs all run while a's cells are done and a's merge has not started, in one artifact store.
    let second: RunRecord | undefined;
    const first = a.run({
      artifacts,
      calledBy: { job: 'mcp-matrix', workflow: 'release a' },
      inputs: { 'working-directory': 'packages/a' },
      stub: installs(installMcpMatrix()),
      beforeJob: (job) => {
        if (job === 'merge' && !second)
          second = b.run({
            artifacts,
            calledBy: { job: 'mcp-matrix', workflow: 'release b' },
            inputs: { 'working-directory': 'packages/b' },
          });
      },
    });
    const failed = first.jobs.flatMap((j) => j.steps.filter((s) => s.outcome === 'failure').map((s) => `${j.job} · ${s.name}: ${s.log}`));
    expect(gate(first).result, failed.join('\n')).toBe('success');
    expect(mergeLog(first)).toContain('PASSED · merged 2 piece(s)');
    expect(gate(second!).result).toBe('failure');
    expect(second!.annotations()).toContainEqual(expect.stringMatching(/^error mcp-matrix v1-floor · stdio failed: .*boom/));
    // One required check per package.
    expect([gate(first).check, gate(second!).check]).toEqual([
      'mcp-matrix / mcp-matrix packages/a/matrix.config.ts',
      'mcp-matrix / mcp-matrix packages/b/matrix.config.ts',
    ]);
    expect(first.concurrency).not.toBe(second!.concurrency);
  });

  test("init's workflows of two subpackages: two distinct check names", () => {
    const names = ['packages/a', 'packages/b'].map((wd) => {
      const text = renderWorkflow({ workingDirectory: wd, pm: 'npm', yarnBerry: false, lockfile: 'package-lock.json', engines: false });
      return /\n {2}merge:\n {4}name: (.*)\n/.exec(text)?.[1];
    });
    expect(names).toEqual(['mcp-matrix packages/a/matrix.config.ts', 'mcp-matrix packages/b/matrix.config.ts']);
  });

  test('a merge queue (merge_group event): the workflow runs and reports the required check', () => {
    const r = setup(cells(1)).run({
      event: { name: 'merge_group', ref: 'refs/heads/gh-readonly-queue/main/pr-7-0123', payload: { merge_group: {} } },
    });
    expect(r.triggered).toBe(true);
    expect(gate(r).result, mergeLog(r)).toBe('success');
    expect(gate(r).check).toBe('mcp-matrix ./matrix.config.ts');
    expect([...r.artifacts.keys()].sort()).toEqual([
      `mcp-matrix-${KEY}-cell-v1-floor-attempt-1`,
      `mcp-matrix-${KEY}-plan`,
      `mcp-matrix-${KEY}-results`,
      `mcp-matrix-${KEY}-tarball`,
    ]);
  });

  test("an oversized summary: merge keeps it under GitHub's 1 MiB, so the gate's summary is shown, naming the artifact", () => {
    // Two failing cells whose messages alone exceed 1 MiB: GitHub drops a larger step summary whole (the runner too).
    const big = cells(2).map((c) => ({ ...c, phases: { stdio: { verdict: 'failed' as const, message: 'x'.repeat(600 * 1024) } } }));
    const r = setup(big, { pieces: (p, id) => pieceOf(makeRun(big), id, p.startedAt, p.finishedAt) }).run();
    expect(gate(r).result).toBe('failure');
    expect(r.annotations().filter((a) => a.includes('$GITHUB_STEP_SUMMARY upload aborted'))).toEqual([]);
    expect(gate(r).summary).toMatch(/^# mcp-matrix: FAILED/m);
    expect(gate(r).summary).toContain('The summary is cut here');
    expect(gate(r).summary).toMatch(/The whole report is matrix\.md in the run's artifacts/);
  });

  test('Node from the floor of engines.node (mcp-matrix detect), one input per setup-node; the node-version input wins', () => {
    const wf = setup(cells(1), { manifest: { engines: { node: '>=22.12 <23 || >=24' } } });
    const r = wf.run();
    expect(gate(r).result, mergeLog(r)).toBe('success');
    expect(r.job('plan').outputs['node-version']).toBe('22.12.0');
    const setupNode = (job: string) => r.job(job).steps.find((s) => s.name.startsWith('actions/setup-node@'))!.log;
    expect(setupNode('plan')).toContain('node lts/*');
    for (const job of ['pack', 'cell', 'merge']) expect(setupNode(job), job).toContain('node 22.12.0');
    const pinned = wf.run({ inputs: { 'node-version': '24.11.1' } });
    expect(pinned.job('plan').outputs['node-version']).toBe('24.11.1');
  });

  test('pnpm-lock.yaml without a packageManager field or the pnpm-version input: one error naming both, the plan job stops', () => {
    const wf = setup(cells(1), { subdir: 'packages/server' });
    rmSync(path.join(wf.base.repo, 'packages/server/package-lock.json'));
    writeFileSync(path.join(wf.base.repo, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    const r = wf.run({ inputs: { 'working-directory': 'packages/server' } });
    expect(r.result('plan')).toBe('failure');
    expect(r.job('plan').annotations).toEqual([
      expect.objectContaining({
        level: 'error',
        title: 'mcp-matrix pnpm version',
        message:
          'pnpm-lock.yaml says pnpm, but no pnpm version is given: set "packageManager": "pnpm@<version>" in package.json, or the workflow input pnpm-version',
      }),
    ]);
    expect(
      r
        .job('plan')
        .steps.filter((s) => s.outcome !== 'skipped')
        .map((s) => s.name),
    ).toEqual([expect.stringMatching(/^actions\/checkout@/), 'the package manager and its lockfile']);
  });

  test('a lockfile at the monorepo root: the plan job finds it from the package, installs there, and detect agrees', () => {
    const wf = setup(cells(1), { subdir: 'packages/server' });
    rmSync(path.join(wf.base.repo, 'packages/server/package-lock.json'));
    writeFileSync(path.join(wf.base.repo, 'package-lock.json'), '{"name":"root","lockfileVersion":3,"packages":{}}\n');
    const r = wf.run({ inputs: { 'working-directory': 'packages/server' } });
    expect(gate(r).result, mergeLog(r)).toBe('success');
    expect(r.job('plan').outputs).toMatchObject({
      'package-manager': 'npm',
      lockfile: 'package-lock.json',
      'lockfile-dir': '.',
      install: 'npm ci',
      cli: 'npx --no-install mcp-matrix',
    });
    expect(r.job('plan').steps.find((s) => s.id === 'detect')!.outcome).toBe('success');
  });

  describe('attest.yml after the gate: the tested tarball signed with the gate statement', () => {
    const ATTEST = path.join(ROOT, '.github/workflows/attest.yml');
    const TARBALL = 'not really a tarball';
    const GRANTS = { contents: 'read', actions: 'read', 'id-token': 'write', attestations: 'write' } as const;
    /** A passing gate whose pieces record the tarball the pack job uploads (name and sha512, as a real run does). */
    const gated = () => {
      const sri = `sha512-${createHash('sha512').update(TARBALL).digest('base64')}`;
      const wf = setup(cells(2), {
        pieces: (p) => ({ ...p, plan: { ...p.plan, tarball: { file: 'server-1.0.0.tgz', size: TARBALL.length, sha512: sri } } }),
      });
      const artifacts: RunOptions['artifacts'] = new Map();
      const r = wf.run({ artifacts, calledBy: { job: 'mcp-matrix', workflow: 'release' } });
      expect(gate(r).result, mergeLog(r)).toBe('success');
      const attest = (extra: Partial<RunOptions> = {}) =>
        wf.run({
          workflow: ATTEST,
          artifacts,
          calledBy: { job: 'attest', workflow: 'release', permissions: GRANTS },
          inputs: { key: r.job('plan').outputs.key! },
          ...extra,
        });
      return { artifacts, attest, key: r.job('plan').outputs.key! };
    };
    // One gate for both tests (the second swaps its tarball after the first has signed it).
    let once: ReturnType<typeof gated> | undefined;
    const gatedOnce = () => (once ??= gated());

    test('the caller grants id-token and attestations: the tarball, by its sha256, with the gate predicate (verdict passed)', () => {
      const { attest } = gatedOnce();
      const r = attest();
      expect(
        r.job('attest').result,
        r
          .job('attest')
          .steps.map((s) => s.log)
          .join('\n'),
      ).toBe('success');
      expect(r.job('attest').check).toBe('attest / mcp-matrix attest');
      expect(r.attestations).toEqual([
        expect.objectContaining({
          subjects: [{ name: 'server-1.0.0.tgz', digest: { sha256: createHash('sha256').update(TARBALL).digest('hex') } }],
          predicateType: 'urn:mcp-matrix:gate:v1',
          predicate: expect.objectContaining({ verdict: 'passed', exitCode: 0, planHash: CONFIG_HASH }) as unknown,
        }),
      ]);
    });

    test('a tarball other than the tested one is refused, naming both; a caller without id-token cannot start it', () => {
      const { artifacts, attest, key } = gatedOnce();
      const tarball = artifacts.get(`mcp-matrix-${key}-tarball`)!;
      artifacts.set(tarball.name, { ...tarball, files: new Map([['server-1.0.0.tgz', Buffer.from('another tarball')]]) });
      const swapped = attest();
      expect(swapped.job('attest').result).toBe('failure');
      expect(swapped.job('attest').annotations).toEqual([
        expect.objectContaining({
          level: 'error',
          title: 'mcp-matrix attest',
          message: expect.stringMatching(
            /^package-tarball\/server-1\.0\.0\.tgz is not the tarball the gate tested \(server-1\.0\.0\.tgz, sha512 /,
          ),
        }),
      ]);
      expect(swapped.attestations).toEqual([]);
      const unsigned = attest({ calledBy: { job: 'attest', workflow: 'release', permissions: { contents: 'read', actions: 'read' } } });
      expect(unsigned.startupFailure).toMatch(/^The nested job 'attest' is requesting '(id-token|attestations): write'/);
    });
  });

  test('an event the workflow does not list runs nothing', () => {
    const r = setup(cells(1)).run({ event: { name: 'issue_comment' } });
    expect(r.triggered).toBe(false);
    expect(r.jobs).toEqual([]);
  });
});
