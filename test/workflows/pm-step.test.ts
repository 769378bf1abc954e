// acceptance.yml's `pm` step detects the package manager inline, before the install (the caller's mcp-matrix is not
// installed yet, and a called workflow has none of this repository's files): it must agree with the harness's own
// detection (src/pack/package-manager.ts through `mcp-matrix detect`) on every layout, or pack uses another manager.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { detectOutputs } from '../../src/commands/detect.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const workflow = parse(readFileSync(path.join(ROOT, '.github/workflows/acceptance.yml'), 'utf8')) as {
  jobs: { plan: { steps: { id?: string; run?: string }[] } };
};
const script = /node -e '([\s\S]*)'\s*$/.exec(workflow.jobs.plan.steps.find((s) => s.id === 'pm')!.run!)![1]!;

const scratch = mkdtempSync(path.join(os.tmpdir(), 'mm-pm-parity-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A repository (a git root) with `files`; the package under test at `dir`. */
function repo(name: string, files: Record<string, string>): string {
  const root = path.join(scratch, name);
  mkdirSync(path.join(root, '.git'), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

/** The step's outputs, run as the runner runs it (GITHUB_WORKSPACE the checkout, WORKDIR the input). */
function inline(root: string, workdir: string, pnpmVersion = ''): Record<string, string> {
  const out = path.join(root, '.github-output');
  writeFileSync(out, '');
  try {
    execFileSync(process.execPath, ['-e', script], {
      env: { PATH: process.env.PATH, GITHUB_WORKSPACE: root, WORKDIR: workdir, GITHUB_OUTPUT: out, PNPM_VERSION: pnpmVersion },
      stdio: 'pipe',
    });
  } catch (error) {
    return { error: String((error as { stdout?: Buffer }).stdout ?? error) };
  }
  return Object.fromEntries(
    readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

function harness(root: string, workdir: string, pnpmVersion?: string): Record<string, string> {
  const lines = detectOutputs(path.join(root, workdir), pnpmVersion);
  if (!lines.ok) return { error: lines.error.message };
  return Object.fromEntries(lines.value.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

const pkg = (extra: object = {}) => JSON.stringify({ name: 'srv', version: '1.0.0', ...extra });
const LAYOUTS: [string, Record<string, string>, string][] = [
  ['npm, package-lock.json', { 'package.json': pkg(), 'package-lock.json': '{}' }, '.'],
  ['npm, no lockfile', { 'package.json': pkg() }, '.'],
  ['npm-shrinkwrap.json', { 'package.json': pkg(), 'npm-shrinkwrap.json': '{}' }, '.'],
  [
    'pnpm by its field',
    { 'package.json': pkg({ packageManager: 'pnpm@10.34.9+sha512.ab' }), 'pnpm-lock.yaml': 'lockfileVersion: 9.0\n' },
    '.',
  ],
  ['yarn berry by its field', { 'package.json': pkg({ packageManager: 'yarn@4.18.1' }), 'yarn.lock': '__metadata:\n' }, '.'],
  ['yarn 1 by its lockfile', { 'package.json': pkg(), 'yarn.lock': '# yarn lockfile v1\n' }, '.'],
  ['yarn berry by .yarnrc.yml', { 'package.json': pkg(), 'yarn.lock': '# x\n', '.yarnrc.yml': 'nodeLinker: node-modules\n' }, '.'],
  [
    'monorepo: the field at the root, the lockfile at the root',
    {
      'package.json': JSON.stringify({ private: true, packageManager: 'pnpm@9.15.0' }),
      'pnpm-lock.yaml': 'lockfileVersion: 9.0\n',
      'packages/server/package.json': pkg(),
    },
    'packages/server',
  ],
  [
    "monorepo: a stray npm lockfile in the package does not outvote the root's field",
    {
      'package.json': JSON.stringify({ private: true, packageManager: 'yarn@4.18.1' }),
      'yarn.lock': '__metadata:\n',
      'packages/server/package.json': pkg(),
      'packages/server/package-lock.json': '{}',
    },
    'packages/server',
  ],
  [
    'monorepo: the nearest lockfile without a field',
    { 'package-lock.json': '{}', 'packages/server/package.json': pkg(), 'packages/server/pnpm-lock.yaml': 'x: 1\n' },
    'packages/server',
  ],
  ['pnpm-lock.yaml without a version anywhere', { 'package.json': pkg(), 'pnpm-lock.yaml': 'x: 1\n' }, '.'],
  ['a packageManager field that is not a version', { 'package.json': pkg({ packageManager: 'pnpm@latest' }) }, '.'],
];

describe("acceptance.yml's inline package-manager step and src/pack/package-manager.ts", () => {
  it.each(LAYOUTS)('agree: %s', (name, files, workdir) => {
    const root = repo(name.replace(/\W+/g, '-'), files);
    const a = inline(root, workdir);
    const b = harness(root, workdir);
    if (b.error) {
      expect(a.error, `the step must stop where detect does (${b.error})`).toMatch(/::error/);
      return;
    }
    expect(a.error).toBeUndefined();
    expect({ pm: a['package-manager'], lockfile: a.lockfile, pnpm: a['pnpm-version'] }).toEqual({
      pm: b['package-manager'],
      lockfile: b.lockfile,
      pnpm: b['pnpm-version'],
    });
    // Berry is what picks the immutable install.
    if (b['package-manager'] === 'yarn')
      expect(a.install).toBe(b['yarn-berry'] === 'true' ? 'yarn install --immutable' : 'yarn install --frozen-lockfile');
    if (b.lockfile) expect(a['lockfile-dir']).toBe(b['lockfile-dir']);
  });

  it('without a lockfile the install demands none (pnpm and Yarn 2+ would refuse in CI), as npm install does', () => {
    const install = (files: Record<string, string>) =>
      inline(repo(`nolock-${Object.keys(files).length}-${Math.random()}`, files), '.').install;
    expect(install({ 'package.json': pkg() })).toBe('npm install');
    expect(install({ 'package.json': pkg({ packageManager: 'pnpm@10.34.9' }) })).toBe('pnpm install --no-frozen-lockfile');
    expect(install({ 'package.json': pkg({ packageManager: 'yarn@4.18.1' }) })).toBe('yarn install --no-immutable');
    expect(install({ 'package.json': pkg({ packageManager: 'yarn@1.22.22' }) })).toBe('yarn install');
    expect(install({ 'package.json': pkg({ packageManager: 'pnpm@10.34.9' }), 'pnpm-lock.yaml': 'x: 1\n' })).toBe(
      'pnpm install --frozen-lockfile',
    );
  });

  it('the pnpm-version input is used as detect uses --pnpm-version', () => {
    const root = repo('pnpm-input', { 'package.json': pkg(), 'pnpm-lock.yaml': 'x: 1\n' });
    expect(inline(root, '.', '10.34.9')['pnpm-version']).toBe(harness(root, '.', '10.34.9')['pnpm-version']);
  });
});
