import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeDetection, detectPackageManager, parsePackageManagerField } from '../../src/pack/package-manager.js';
import { detectOutputs, nodeFloor } from '../../src/commands/detect.js';
import { pmPackage, PNPM_VERSION, YARN_BERRY_VERSION, YARN_CLASSIC_VERSION } from '../../src/pack/pm-tool.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A scratch tree: `outer/` (above the git root) and `outer/repo/` (the git root), files relative to outer. */
function tree(files: Record<string, string>): { outer: string; repo: string } {
  const outer = mkdtempSync(path.join(os.tmpdir(), 'mm-pm-'));
  roots.push(outer);
  const repo = path.join(outer, 'repo');
  mkdirSync(path.join(repo, '.git'), { recursive: true });
  mkdirSync(path.join(repo, 'packages', 'server'), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(outer, file)), { recursive: true });
    writeFileSync(path.join(outer, file), text);
  }
  return { outer, repo };
}

const detect = (dir: string) => {
  const found = detectPackageManager(dir);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
};

describe('detectPackageManager', () => {
  it('takes packageManager first, from the nearest package.json that has one, and that manager’s nearest lockfile', () => {
    const { repo } = tree({
      'repo/package.json': JSON.stringify({ private: true, packageManager: 'pnpm@9.15.0+sha512.abcdef' }),
      'repo/pnpm-lock.yaml': 'lockfileVersion: 9.0\n',
      'repo/packages/server/package.json': JSON.stringify({ name: 's' }),
      // a stray npm lockfile nearer the package does not outvote the field
      'repo/packages/server/package-lock.json': '{}',
    });
    const pm = detect(path.join(repo, 'packages', 'server'));
    expect(pm).toMatchObject({ name: 'pnpm', version: '9.15.0', lockfile: path.join(repo, 'pnpm-lock.yaml'), root: repo });
    expect(pm.from).toEqual({ kind: 'packageManager', file: path.join(repo, 'package.json') });
    expect(describeDetection(pm)).toBe('pnpm@9.15.0 (packageManager in package.json)');
  });

  it('without the field, takes the nearest lockfile up to the git root', () => {
    const { repo } = tree({ 'repo/pnpm-lock.yaml': '', 'repo/packages/server/package-lock.json': '{}' });
    expect(detect(path.join(repo, 'packages', 'server'))).toMatchObject({
      name: 'npm',
      lockfile: path.join(repo, 'packages/server/package-lock.json'),
    });
    const { repo: root } = tree({ 'repo/pnpm-lock.yaml': '' });
    const pm = detect(path.join(root, 'packages', 'server'));
    expect(pm).toMatchObject({ name: 'pnpm', lockfile: path.join(root, 'pnpm-lock.yaml'), yarnBerry: false, pnp: false });
    expect(pm.version).toBeUndefined();
    expect(describeDetection(pm)).toBe('pnpm (pnpm-lock.yaml)');
  });

  it('never looks above the git root; npm when nothing says', () => {
    const { repo } = tree({ 'pnpm-lock.yaml': '', 'package.json': JSON.stringify({ packageManager: 'yarn@4.0.0' }) });
    const pm = detect(path.join(repo, 'packages', 'server'));
    expect(pm).toMatchObject({ name: 'npm', from: { kind: 'default' } });
    expect(pm.lockfile).toBeUndefined();
  });

  it('tells Yarn classic from Berry, and Plug’n’Play from node-modules', () => {
    const classic = tree({ 'repo/yarn.lock': '# yarn lockfile v1\n' }).repo;
    expect(detect(classic)).toMatchObject({ name: 'yarn', yarnBerry: false, pnp: false });
    const berryLock = tree({ 'repo/yarn.lock': '__metadata:\n  version: 8\n' }).repo;
    expect(detect(berryLock)).toMatchObject({ name: 'yarn', yarnBerry: true, pnp: true });
    const linked = tree({ 'repo/yarn.lock': '', 'repo/.yarnrc.yml': 'nodeLinker: node-modules\n' }).repo;
    expect(detect(linked)).toMatchObject({ name: 'yarn', yarnBerry: true, pnp: false });
    const field = tree({
      'repo/package.json': JSON.stringify({ packageManager: 'yarn@4.18.1' }),
      'repo/.yarnrc.yml': 'nodeLinker: "pnp"\n',
    }).repo;
    expect(detect(path.join(field, 'packages', 'server'))).toMatchObject({ name: 'yarn', version: '4.18.1', yarnBerry: true, pnp: true });
    const one = tree({ 'repo/package.json': JSON.stringify({ packageManager: 'yarn@1.22.22' }) }).repo;
    expect(detect(one)).toMatchObject({ name: 'yarn', yarnBerry: false, pnp: false });
  });

  it('refuses a packageManager corepack could not read, naming the file', () => {
    const { repo } = tree({ 'repo/package.json': JSON.stringify({ packageManager: 'pnpm@latest' }) });
    const found = detectPackageManager(repo);
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.error.kind).toBe('usage');
      expect(found.error.message).toContain(path.join(repo, 'package.json'));
      expect(found.error.message).toContain('"pnpm@latest"');
    }
  });
});

describe('parsePackageManagerField', () => {
  it('reads corepack’s form and nothing else', () => {
    expect(parsePackageManagerField('pnpm@10.34.9')).toEqual({ name: 'pnpm', version: '10.34.9' });
    expect(parsePackageManagerField('yarn@4.0.0-rc.1+sha224.abc')).toEqual({ name: 'yarn', version: '4.0.0-rc.1' });
    expect(parsePackageManagerField('bun@1.0.0')).toBeUndefined();
    expect(parsePackageManagerField('pnpm@^9')).toBeUndefined();
  });
});

describe('pmPackage', () => {
  it('is the registry package of that manager, at the field’s version or the pinned one', () => {
    expect(pmPackage({ name: 'pnpm', yarnBerry: false })).toMatchObject({ package: 'pnpm', version: PNPM_VERSION, bin: 'pnpm' });
    expect(pmPackage({ name: 'pnpm', version: '9.15.0', yarnBerry: false }).installSet).toEqual({ pnpm: '9.15.0' });
    expect(pmPackage({ name: 'yarn', yarnBerry: true })).toMatchObject({ package: '@yarnpkg/cli-dist', version: YARN_BERRY_VERSION });
    expect(pmPackage({ name: 'yarn', yarnBerry: false })).toMatchObject({ package: 'yarn', version: YARN_CLASSIC_VERSION });
  });
});

describe('detectOutputs (mcp-matrix detect)', () => {
  it('prints the outputs the workflows read, the lockfile relative to the repository root', () => {
    const { repo } = tree({ 'repo/package.json': JSON.stringify({ packageManager: 'pnpm@10.34.9' }), 'repo/pnpm-lock.yaml': '' });
    expect(detectOutputs(path.join(repo, 'packages', 'server'))).toEqual({
      ok: true,
      value: [
        'package-manager=pnpm',
        'lockfile=pnpm-lock.yaml',
        'lockfile-dir=.',
        'pnpm-version=10.34.9',
        'yarn-berry=false',
        'pnp=false',
        'node-version=',
      ],
    });
  });

  it("node-version: the floor of the package's engines.node, never below the harness's own; '' without one", () => {
    const { repo } = tree({});
    const dir = path.join(repo, 'packages', 'server');
    const floor = (node: unknown) => {
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify(node === undefined ? {} : { engines: { node } }));
      return nodeFloor(dir);
    };
    expect(floor('>=22.12')).toBe('22.12.0');
    expect(floor('^22.11 || >=24')).toBe('22.11.0');
    // Below the harness's floor (>=20.19): the harness's, which the range admits.
    expect(floor('>=18')).toBe('20.19.0');
    // A range the harness's floor is outside of: still the harness's, since the CLI cannot start on 18 (a Node axis
    // in the config runs the server on the Node it declares).
    expect(floor('^18')).toBe('20.19.0');
    expect(floor(undefined)).toBe('');
    expect(floor('not a range')).toBe('');
    expect(floor(22)).toBe('');
    expect(detectOutputs(dir)).toMatchObject({ ok: true, value: expect.arrayContaining(['node-version=']) as unknown });
  });

  it('pnpm without a version in packageManager: the input gives it, else a usage error naming both', () => {
    const { repo } = tree({ 'repo/packages/server/pnpm-lock.yaml': '' });
    const dir = path.join(repo, 'packages', 'server');
    expect(detectOutputs(dir, '9.15.0')).toMatchObject({
      ok: true,
      value: expect.arrayContaining(['pnpm-version=9.15.0', 'lockfile-dir=packages/server']) as unknown,
    });
    const none = detectOutputs(dir);
    expect(none.ok).toBe(false);
    if (!none.ok)
      expect(none.error.message).toMatch(
        /packages\/server\/pnpm-lock\.yaml says pnpm, but no pnpm version is given: set "packageManager": "pnpm@<version>".*pnpm-version input/,
      );
  });
});
