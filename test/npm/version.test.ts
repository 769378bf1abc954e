import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { versionOfCli } from '../../src/npm/version.js';

// Laid out as Node's installers lay npm out: <prefix>/bin/npm → ../lib/node_modules/npm/bin/npm-cli.js.
describe("npm's version read from its package.json, only when the first npm on PATH is npm's own CLI", () => {
  let root: string;
  const dir = (...p: string[]) => path.join(root, ...p);
  async function npmAt(prefix: string, manifest: object): Promise<string> {
    const pkg = dir(prefix, 'lib', 'node_modules', 'npm');
    await mkdir(path.join(pkg, 'bin'), { recursive: true });
    await writeFile(path.join(pkg, 'bin', 'npm-cli.js'), '#!/usr/bin/env node\n');
    await chmod(path.join(pkg, 'bin', 'npm-cli.js'), 0o755);
    await writeFile(path.join(pkg, 'package.json'), JSON.stringify(manifest));
    await mkdir(dir(prefix, 'bin'), { recursive: true });
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', dir(prefix, 'bin', 'npm'));
    return dir(prefix, 'bin');
  }
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'mcp-matrix-npm-version-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("npm's own CLI first on PATH: its package.json's version; a directory without an executable npm is passed over", async () => {
    const bin = await npmAt('good', { name: 'npm', version: '10.9.8' });
    await mkdir(dir('empty'), { recursive: true });
    await mkdir(dir('plain'), { recursive: true });
    // Not executable: a spawn would not start it either.
    await writeFile(dir('plain', 'npm'), 'not a program');
    expect(await versionOfCli([dir('empty'), '', dir('plain'), bin].join(path.delimiter))).toBe('10.9.8');
  });

  it('anything else first on PATH is run, never read: a shim, a wrapper script, a package.json not npm’s', async () => {
    const good = await npmAt('later', { name: 'npm', version: '1.2.3' });
    await mkdir(dir('shim'), { recursive: true });
    await writeFile(dir('shim', 'npm'), '#!/bin/sh\nexec /usr/bin/npm "$@"\n');
    await chmod(dir('shim', 'npm'), 0o755);
    expect(await versionOfCli([dir('shim'), good].join(path.delimiter))).toBeUndefined();
    expect(await versionOfCli(await npmAt('other', { name: 'not-npm', version: '1.0.0' }))).toBeUndefined();
    expect(await versionOfCli(await npmAt('noversion', { name: 'npm' }))).toBeUndefined();
    const broken = await npmAt('broken', { name: 'npm', version: '1.0.0' });
    await writeFile(dir('broken', 'lib', 'node_modules', 'npm', 'package.json'), '{ not json');
    expect(await versionOfCli(broken)).toBeUndefined();
    expect(await versionOfCli('')).toBeUndefined();
  });

  it('an empty PATH entry is the working directory, as a spawn searches it: its npm is the first, and it is a shim', async () => {
    const good = await npmAt('after-empty', { name: 'npm', version: '4.5.6' });
    await mkdir(dir('cwd'), { recursive: true });
    await writeFile(dir('cwd', 'npm'), '#!/bin/sh\necho 0.0.1\n');
    await chmod(dir('cwd', 'npm'), 0o755);
    const was = process.cwd();
    process.chdir(dir('cwd'));
    try {
      expect(await versionOfCli(['', good].join(path.delimiter))).toBeUndefined();
      expect(await versionOfCli([good, ''].join(path.delimiter))).toBe('4.5.6');
    } finally {
      process.chdir(was);
    }
  });

  it('on Windows npm is always run: a spawn there finds npm.cmd through PATHEXT, which this search does not follow', async () => {
    expect(await versionOfCli(await npmAt('windows', { name: 'npm', version: '7.8.9' }), 'win32')).toBeUndefined();
  });
});
