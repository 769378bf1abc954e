// The local workflow runner itself (test/helpers/workflow-runner.ts), on small workflows: each point where GitHub's
// behaviour decides a gate's result (issue 33 item 10) is shown here, so a scenario that passes in the runner
// would pass on GitHub for that reason. The package-manager stand-ins with real pnpm and Yarn are in
// package-managers.integration.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runWorkflow, type RunOptions } from '../helpers/workflow-runner.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mm-wf-runner-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** A repository of `files` and a workflow of `jobs` (YAML under `jobs:`), run on a push. */
function run(jobs: string, files: Record<string, string> = {}, extra: Partial<RunOptions> = {}) {
  const dir = path.join(tmp, String(n++));
  const repo = path.join(dir, 'repo');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), text);
  }
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(dir, 'wf.yml'), `name: t\non: [push, merge_group, workflow_call]\njobs:\n${jobs}`);
  return runWorkflow({
    workflow: path.join(dir, 'wf.yml'),
    repo,
    env: { PATH: process.env.PATH ?? '', HOME: dir, TMPDIR: dir },
    ...extra,
  });
}

const SETUP_NODE = 'actions/setup-node@249970729cb0ef3589644e2896645e5dc5ba9c38';
const checkoutAndNode = (withLines: string) =>
  `  j:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v6\n      - uses: ${SETUP_NODE}\n        with:\n${withLines
    .split('\n')
    .map((l) => `          ${l}`)
    .join('\n')}\n`;

describe('steps and jobs', () => {
  test('shell: bash is bash -e -o pipefail: a failing command on the left of a pipe fails the step', () => {
    const r = run(
      `  j:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n        shell: bash\n    steps:\n      - run: false | cat\n      - run: echo never\n`,
    );
    expect(r.job('j').result).toBe('failure');
    expect(r.job('j').steps.map((s) => s.outcome)).toEqual(['failure', 'skipped']);
  });

  test('workflow commands on stderr are annotations too', () => {
    const r = run(`  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "::error title=T::on stderr" >&2\n`);
    expect(r.annotations()).toEqual(['error T: on stderr']);
  });

  test('an empty matrix fails its job, with the error GitHub gives, and the jobs after it see a failure', () => {
    const r = run(
      `  a:\n    runs-on: ubuntu-latest\n    outputs:\n      m: '{"include":[]}'\n    steps:\n      - run: 'true'\n` +
        `  b:\n    needs: a\n    runs-on: ubuntu-latest\n    strategy:\n      matrix: \${{ fromJSON(needs.a.outputs.m) }}\n    steps:\n      - run: 'true'\n` +
        `  c:\n    needs: b\n    if: always()\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "b was \${{ needs.b.result }}"\n`,
    );
    expect(r.result('b')).toBe('failure');
    expect(r.annotations()).toEqual([
      "error : Error when evaluating 'strategy' for job 'b'. Matrix vector 'include' does not contain any values",
    ]);
    expect(r.job('c').steps[0]!.log).toContain('b was failure');
  });

  test('GITHUB_PATH puts a directory first on PATH for the later steps of the job', () => {
    const r = run(
      `  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\\necho mine\\n' > "$RUNNER_TEMP/bin/tool" && chmod +x "$RUNNER_TEMP/bin/tool" && echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"\n      - run: tool\n`,
    );
    expect(r.job('j').steps[1]!.log).toBe('mine\n');
  });

  test('a step summary over 1 MiB is dropped whole, with an error on the run; the step still succeeds', () => {
    const r = run(
      `  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo small >> "$GITHUB_STEP_SUMMARY"\n      - run: head -c 1048577 /dev/zero | tr '\\0' x >> "$GITHUB_STEP_SUMMARY"\n`,
    );
    expect(r.job('j').result).toBe('success');
    expect(r.job('j').summary).toBe('small\n');
    expect(r.annotations()).toEqual([
      expect.stringMatching(/^error : \$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of 1024k, got 1024k/),
    ]);
  });

  test('the trigger list: merge_group runs a workflow that lists it; an unlisted event runs nothing', () => {
    const job = `  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: 'true'\n`;
    expect(run(job, {}, { event: { name: 'merge_group' } }).result('j')).toBe('success');
    expect(run(job, {}, { event: { name: 'pull_request' } }).triggered).toBe(false);
  });

  test('hashFiles() in an expression: the workspace files that match, empty when none', () => {
    const r = run(
      `  j:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v6\n      - run: echo "[\${{ hashFiles('**/pnpm-lock.yaml') }}] [\${{ hashFiles('**/package-lock.json') }}]"\n`,
      { 'packages/a/pnpm-lock.yaml': 'lockfileVersion: 9\n' },
    );
    expect(r.job('j').steps[1]!.log).toMatch(/^\[[0-9a-f]{64}\] \[\]\n$/);
  });
});

test('a stub replaces a step by its text, or by the command of a step that runs one variable', () => {
  const r = run(
    `  j:\n    runs-on: ubuntu-latest\n    env:\n      INSTALL: npm ci\n    steps:\n      - run: npm ci\n      - run: $INSTALL\n`,
    {},
    { stub: { 'npm ci': 'echo stubbed' } },
  );
  expect(r.job('j').steps.map((s) => s.log)).toEqual(['stubbed\n', 'stubbed\n']);
});

describe('actions/setup-node (v6.5.0, from its source)', () => {
  test('node-version-file is read from the workspace: package.json engines.node (a range, as written)', () => {
    const r = run(checkoutAndNode('node-version-file: packages/server/package.json'), {
      'packages/server/package.json': '{"engines":{"node":">=20.19"}}',
    });
    expect(r.job('j').result).toBe('success');
    expect(r.job('j').steps[1]!.log).toContain('Resolved packages/server/package.json as >=20.19');
  });

  test('node-version-file that does not exist fails the step; both inputs given warn and node-version wins', () => {
    const missing = run(checkoutAndNode('node-version-file: package.json'));
    expect(missing.job('j').result).toBe('failure');
    expect(missing.annotations()).toEqual([
      expect.stringMatching(/^error : The specified node version file at: .*\/package\.json does not exist$/),
    ]);
    const both = run(checkoutAndNode('node-version: 22\nnode-version-file: .nvmrc'), { '.nvmrc': '20\n' });
    expect(both.annotations()).toEqual([
      'warning : Both node-version and node-version-file inputs are specified, only node-version will be used',
    ]);
    expect(both.job('j').steps[1]!.log).toContain('node 22');
  });

  test('cache-dependency-path that matches nothing fails: "Some specified paths were not resolved"', () => {
    // The layout docs/github.md shows: a package in packages/server, its workspace's lockfile at the root.
    const files = { 'package-lock.json': '{}', 'packages/server/package.json': '{}' };
    const r = run(checkoutAndNode('node-version: 22\ncache: npm\ncache-dependency-path: packages/server/package-lock.json'), files);
    expect(r.job('j').result).toBe('failure');
    expect(r.annotations()).toEqual(['error : Some specified paths were not resolved, unable to cache dependencies.']);
    expect(run(checkoutAndNode('node-version: 22\ncache: npm\ncache-dependency-path: package-lock.json'), files).result('j')).toBe(
      'success',
    );
  });

  test('cache without cache-dependency-path looks in the workspace root only', () => {
    const r = run(checkoutAndNode('node-version: 22\ncache: npm'), { 'packages/server/package-lock.json': '{}' });
    expect(r.annotations()).toEqual([
      expect.stringMatching(
        /^error : Dependencies lock file is not found in .*\. Supported file patterns: package-lock\.json,npm-shrinkwrap\.json,yarn\.lock$/,
      ),
    ]);
  });

  test('cache: pnpm needs pnpm on PATH already (pnpm/action-setup first)', () => {
    const r = run(
      checkoutAndNode('node-version: 22\ncache: pnpm'),
      { 'pnpm-lock.yaml': '' },
      { env: { PATH: '/usr/bin:/bin', HOME: tmp, TMPDIR: tmp } },
    );
    expect(r.annotations()).toEqual([expect.stringMatching(/^error : Unable to locate executable file: pnpm\./)]);
  });

  test("package.json's packageManager npm turns caching on by itself (package-manager-cache)", () => {
    const r = run(checkoutAndNode('node-version: 22'), { 'package.json': '{"packageManager":"npm@10.9.0"}' });
    expect(r.annotations()).toEqual([expect.stringMatching(/^error : Dependencies lock file is not found in /)]);
  });
});

describe('pnpm/action-setup (v4.0.0, from its source)', () => {
  const PNPM = 'pnpm/action-setup@fe02b34f77f8bc703788d5817da081398fad5dd2';
  const job = (withLines = '') =>
    `  j:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v6\n      - uses: ${PNPM}\n${withLines ? `        with:\n          ${withLines}\n` : ''}`;

  test('no version input and no packageManager in the workspace root package.json: "No pnpm version is specified"', () => {
    // A packageManager in the package's own directory is not read: the action reads package_json_file from the root.
    const r = run(job(), { 'package.json': '{}', 'packages/server/package.json': '{"packageManager":"pnpm@10.34.9"}' });
    expect(r.job('j').result).toBe('failure');
    expect(r.job('j').annotations[0]!.message).toBe(`Error: No pnpm version is specified.
Please specify it by one of the following ways:
  - in the GitHub Action config with the key "version"
  - in the package.json with the key "packageManager"`);
  });

  test('a version input that differs from packageManager (its +sha part included) fails', () => {
    const r = run(job('version: 10.34.9'), { 'package.json': '{"packageManager":"pnpm@10.34.9+sha512.abc"}' });
    expect(r.job('j').annotations[0]!.message).toMatch(
      /^Error: Multiple versions of pnpm specified:\n {2}- version 10\.34\.9 in the GitHub Action config/,
    );
  });

  test('without that version among the runner tools, it says so instead of passing', () => {
    const r = run(job(), { 'package.json': '{"packageManager":"pnpm@9.0.0"}' });
    expect(r.job('j').steps[1]!.log).toBe('the local runner has no pnpm 9.0.0 (RunOptions.tools): the action would install pnpm@9.0.0');
  });
});

describe('permissions and the attest stand-in (actions/attest v4.1.0, from its source)', () => {
  const ATTEST = 'actions/attest-build-provenance@a2bbfa25375fe432b6a289bc6b6cd05ecd0c4c32';
  const job = (permissions: string) =>
    `  j:\n    runs-on: ubuntu-latest\n${permissions}    steps:\n      - uses: actions/checkout@v6\n      - uses: ${ATTEST}\n        with:\n          subject-path: out/*.tgz\n          predicate-type: urn:x\n          predicate-path: p.json\n`;
  const files = { 'out/a-1.0.0.tgz': 'tarball', 'p.json': '{"verdict":"passed"}' };

  test('with id-token and attestations write: the statement of the file sha256 and the predicate is recorded', () => {
    const r = run(job('    permissions:\n      id-token: write\n      attestations: write\n      contents: read\n'), files);
    expect(r.job('j').result).toBe('success');
    expect(r.attestations).toEqual([
      {
        job: 'j',
        subjects: [{ name: 'a-1.0.0.tgz', digest: { sha256: 'db4b4d0d1cb480bf9aeea253771c00febe627f236765fa37d6a5614f079a3aa0' } }],
        predicateType: 'urn:x',
        predicate: { verdict: 'passed' },
      },
    ]);
  });

  test('without id-token: write it fails as the action does; a called workflow asking for more than its caller never starts', () => {
    const r = run(job(''), files);
    expect(r.annotations()).toEqual(['error : missing "id-token" permission. Please add "permissions: id-token: write" to your workflow.']);
    const called = run(job('    permissions:\n      id-token: write\n'), files, {
      calledBy: { job: 'gate', workflow: 'release', permissions: { contents: 'read' } },
    });
    expect(called.jobs).toEqual([]);
    expect(called.startupFailure).toBe("The nested job 'j' is requesting 'id-token: write', but is only allowed 'id-token: none'.");
  });
});
