// A pnpm and a Yarn Berry workspace package with a `workspace:^` dependency, packed by packDirectory with its
// own package manager (the pinned pnpm / Yarn, installed once per machine into the test client cache): the
// tarball names the real range, and npm installs it. Packed with npm, the same package keeps `workspace:^`
// and npm refuses it (the check below on npm's refusal keeps that claim honest).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint, packDirectory } from '../../src/pack/pack.js';
import { detectPackageManager } from '../../src/pack/package-manager.js';
import { ensurePmTool, pmEnv } from '../../src/pack/pm-tool.js';
import { run } from '../../src/process/exec.js';
import { TEST_CLIENT_CACHE } from '../helpers/node-runtimes.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/workspaces');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'mm-pack-ws-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The fixture in a git root of its own, installed by its package manager (no registry: only workspace packages). */
async function workspace(pm: 'pnpm' | 'yarn'): Promise<string> {
  const root = path.join(scratch, pm);
  cpSync(path.join(FIXTURES, pm), root, { recursive: true });
  mkdirSync(path.join(root, '.git'));
  const detected = detectPackageManager(root);
  if (!detected.ok) throw new Error(detected.error.message);
  const tool = await ensurePmTool(detected.value, { runDir: scratch, cacheDir: TEST_CLIENT_CACHE });
  if (!tool.ok) throw new Error(tool.error.message);
  // Yarn Berry makes installs immutable when CI is set; this set-up install writes the scratch lockfile itself.
  const args = pm === 'pnpm' ? ['install', '--offline'] : ['install', '--no-immutable'];
  const out = await run(tool.value.command, [...tool.value.prefix, ...args], { cwd: root, env: pmEnv(tool.value), timeoutMs: 120_000 });
  if (!out.ok) throw new Error(`${pm} install: ${out.stderr || out.stdout}`);
  return root;
}

async function manifestIn(tarball: string): Promise<{ dependencies?: Record<string, string> }> {
  const out = await run('tar', ['-xzOf', tarball, 'package/package.json'], { timeoutMs: 30_000 });
  if (!out.ok) throw new Error(out.stderr);
  return JSON.parse(out.stdout) as { dependencies?: Record<string, string> };
}

/** A real npm install of the tarballs into a fresh directory (the sibling's tarball stands in for the registry). */
async function npmInstall(name: string, tarballs: string[]) {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  return {
    dir,
    out: await run('npm', ['install', '--no-audit', '--no-fund', '--offline', '--loglevel=error', ...tarballs], {
      cwd: dir,
      timeoutMs: 120_000,
    }),
  };
}

describe.each(['pnpm', 'yarn'] as const)('a %s workspace package', (pm) => {
  it(`is packed by ${pm} with its workspace: range made real, and npm installs the tarball`, async () => {
    const root = await workspace(pm);
    const out = path.join(scratch, `${pm}-out`);
    mkdirSync(out);
    const server = await packDirectory(path.join(root, 'packages', 'server'), out, undefined, { cacheDir: TEST_CLIENT_CACHE });
    const util = await packDirectory(path.join(root, 'packages', 'util'), out, undefined, { cacheDir: TEST_CLIENT_CACHE });
    if (!server.ok || !util.ok) throw new Error(JSON.stringify([server, util]));
    expect(path.basename(server.value.file)).toBe('fx-server-0.1.0.tgz');
    // The recorded size and sha512 are the file's.
    expect(await fingerprint(server.value.file)).toEqual({ ok: true, value: server.value });
    expect(server.value.size).toBe(readFileSync(server.value.file).length);
    expect((await manifestIn(server.value.file)).dependencies).toEqual({ '@fx/util': '^1.2.3' });
    const installed = await npmInstall(`${pm}-consumer`, [util.value.file, server.value.file]);
    expect(installed.out.stderr).toBe('');
    expect(installed.out.ok).toBe(true);
    const loaded = await run(process.execPath, ['--input-type=module', '-e', "console.log((await import('@fx/server')).default)"], {
      cwd: installed.dir,
      timeoutMs: 30_000,
    });
    expect(loaded.stdout.trim()).toBe('util');
  });
});

it('npm pack of the same package keeps workspace:^, and npm refuses to install it', async () => {
  const dir = path.join(scratch, 'npm-packed');
  cpSync(path.join(FIXTURES, 'pnpm', 'packages', 'server'), dir, { recursive: true });
  const packed = await run('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], { cwd: dir, timeoutMs: 60_000 });
  expect(packed.ok).toBe(true);
  const tarball = path.join(scratch, 'fx-server-0.1.0.tgz');
  expect((await manifestIn(tarball)).dependencies).toEqual({ '@fx/util': 'workspace:^' });
  const installed = await npmInstall('npm-consumer', [tarball]);
  expect(installed.out.ok).toBe(false);
  expect(installed.out.stderr).toContain('EUNSUPPORTEDPROTOCOL');
});

it('names the package manager and its version when it cannot be installed', async () => {
  const root = path.join(scratch, 'no-such-pnpm');
  mkdirSync(path.join(root, '.git'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', packageManager: 'pnpm@0.0.1' }));
  const packed = await packDirectory(root, root, undefined, { cacheDir: path.join(scratch, 'empty-cache'), attempts: 1 });
  expect(packed.ok).toBe(false);
  if (!packed.ok) {
    expect(packed.error.kind).toBe('usage');
    expect(packed.error.message).toMatch(
      /^pnpm is needed to pack this package \(pnpm@0\.0\.1 \(packageManager in package\.json\)\), but pnpm@0\.0\.1 could not be installed from the npm registry: npm install \(ETARGET\)/,
    );
  }
});
