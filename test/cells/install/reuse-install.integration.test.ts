// Install reuse against real npm and the registry: a reused tree is the tree npm makes, file for file (each
// file's sha256, each symlink's target, the lockfile byte for byte); the package under test always comes from
// its own tarball with its lifecycle scripts run by npm; and a damaged, missing or unwritable cache ends in
// npm's own install, never in a failed cell.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HINT_PREFIX, hintFile, installReusing, type ReuseOutcome } from '../../../src/cells/install/reuse-install.js';
import { contextKey } from '../../../src/cells/install/tree-key.js';
import { listTree, TREE_MARKER } from '../../../src/cells/install/tree-cache.js';
import { createCellDir } from '../../../src/cells/install/workspace.js';
import { tempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);
const SDK = { '@modelcontextprotocol/sdk': '1.32.2' };
const dirs: string[] = [];
let work: string;
let npmVersion: string;
/** name → tarball: two packages on the same dependencies, one with an install script. */
const tarballs: Record<string, string> = {};

afterAll(async () => {
  for (const d of dirs) {
    if (existsSync(d)) await run('chmod', ['-R', 'u+w', d]).catch(() => undefined);
    await rm(d, { recursive: true, force: true });
  }
});

async function pack(name: string, scripts: Record<string, string>): Promise<void> {
  const src = path.join(work, `src-${name}`);
  mkdirSync(path.join(src, 'bin'), { recursive: true });
  writeFileSync(
    path.join(src, 'package.json'),
    JSON.stringify({
      name,
      version: '1.0.0',
      bin: { [name]: './bin/server.js' },
      dependencies: { zod: '^3.25.0' },
      peerDependencies: { '@modelcontextprotocol/sdk': '>=1.23.0 <2' },
      scripts,
    }),
  );
  writeFileSync(path.join(src, 'bin/server.js'), '#!/usr/bin/env node\n');
  const { stdout } = await run('npm', ['pack', src, '--pack-destination', work, '--silent'], { cwd: work });
  tarballs[name] = path.join(work, stdout.trim().split('\n').pop()!);
}

beforeAll(async () => {
  work = await tempDir('mm-reuse-');
  dirs.push(work);
  npmVersion = (await run('npm', ['--version'])).stdout.trim();
  await pack('reuse-plain', {});
  // npm runs it in the package's directory: it proves the script ran in this cell, from this tarball.
  await pack('reuse-scripted', { postinstall: "node -e \"require('fs').writeFileSync('postinstall-ran', 'yes')\"" });
}, 120_000);

let n = 0;
async function install(name: string, treeCache: string | undefined): Promise<{ dir: string; out: ReuseOutcome }> {
  const dir = await createCellDir(work, `c${++n}`, name, tarballs[name]!, SDK);
  const out = await installReusing(dir, {
    attempts: 2,
    timeoutMs: 240_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    packageName: name,
    npmVersion,
    treeCache,
    installSet: SDK,
  });
  return { dir, out };
}

/** The cache's key directories (its hints are files beside them). */
const keys = (cache: string): string[] => readdirSync(cache).filter((n) => !n.startsWith(HINT_PREFIX));
const hints = (cache: string): string[] => readdirSync(cache).filter((n) => n.startsWith(HINT_PREFIX));
/** Whether the install started copying a hinted tree while npm resolved (the harness's mark for the cell). */
const prefetched = (dir: string): boolean =>
  performance.getEntriesByName(`mcp-matrix:${path.basename(dir).replace(/^cell-/, '')}:prefetch-start`).length > 0;

/** The cell as npm left it: every file's hash and every link's target under node_modules, and the lockfile. */
async function snapshot(dir: string): Promise<{ files: string[]; lock: string }> {
  const files = (await listTree(path.join(dir, 'node_modules'))).map((f) =>
    'link' in f ? `${f.path} -> ${f.link}` : `${f.path} ${f.sha256}`,
  );
  return { files, lock: readFileSync(path.join(dir, 'package-lock.json'), 'utf8') };
}

describe('installReusing (real npm)', () => {
  let cache: string;
  let fresh: { files: string[]; lock: string };

  beforeAll(async () => {
    cache = path.join(work, 'trees');
    const plain = await install('reuse-scripted', undefined);
    expect(plain.out.install.kind).toBe('installed');
    expect(plain.out.source).toEqual({ source: 'npm', reason: 'reuse is off' });
    fresh = await snapshot(plain.dir);
  }, 300_000);

  it('stores on the first install and reuses on the next: the reused tree is the fresh npm tree, file for file', async () => {
    const first = await install('reuse-plain', cache);
    expect(first.out.install.kind).toBe('installed');
    expect(first.out.source).toEqual({ source: 'npm', reason: 'no tree stored yet' });
    expect(keys(cache)).toHaveLength(1);
    // The key of the tree this package on these pins used, for the next such cell to start copying early.
    expect(hints(cache)).toHaveLength(1);
    expect(readFileSync(path.join(cache, hints(cache)[0]!), 'utf8')).toBe(keys(cache)[0]);

    // Another package on the same dependencies: npm resolves the same tree, so it is reused; the package
    // under test is this tarball, and npm ran its postinstall in the cell.
    const reused = await install('reuse-scripted', cache);
    expect(reused.out.install.kind).toBe('installed');
    expect(reused.out.source.source, JSON.stringify(reused.out.source)).toBe('reused');
    const got = await snapshot(reused.dir);
    expect(readFileSync(path.join(reused.dir, 'node_modules/reuse-scripted/postinstall-ran'), 'utf8')).toBe('yes');
    expect(got.files.length).toBeGreaterThan(500);
    expect(got.files).toEqual(fresh.files);
    // The tarball's path is the same file here, so npm's lockfile is byte for byte the fresh one.
    expect(got.lock).toBe(fresh.lock);
    if (reused.out.source.source === 'reused') {
      const sha = (await import('node:crypto')).createHash('sha256').update(got.lock).digest('hex');
      expect(reused.out.source.lockfileSha256).toBe(sha);
    }
    // No inode shared with the cache: writing in the cell leaves the entry alone (the next reuse checks every file).
    const entry = path.join(cache, (reused.out.source as { entry: string }).entry);
    writeFileSync(path.join(reused.dir, 'node_modules/zod/package.json'), 'written by a server');
    expect(readFileSync(path.join(entry, 'node_modules/zod/package.json'), 'utf8')).not.toBe('written by a server');
    expect(prefetched(reused.dir), 'no hint for this package yet').toBe(false);
  }, 600_000);

  it('the tree a cell of the same package and pins used last is copied while npm resolves: the same tree, file for file', async () => {
    const again = await install('reuse-scripted', cache);
    expect(prefetched(again.dir)).toBe(true);
    expect(again.out.source.source, JSON.stringify(again.out.source)).toBe('reused');
    expect(await snapshot(again.dir)).toEqual(fresh);
    expect(readFileSync(path.join(again.dir, 'node_modules/reuse-scripted/postinstall-ran'), 'utf8')).toBe('yes');
    expect(existsSync(path.join(again.dir, '.mcp-matrix', 'tree')), 'the staging place is gone').toBe(false);
  }, 600_000);

  it('a hint naming another complete entry: its copy is thrown away and the entry npm resolved is reused', async () => {
    const [key] = keys(cache);
    const hint = hintFile(cache, contextKey(npmVersion, { ...process.env, npm_config_update_notifier: 'false' }), 'reuse-scripted', SDK);
    expect(readFileSync(hint, 'utf8')).toBe(key);
    // Another complete entry (its marker names its own key), and the hint of reuse-scripted pointed at it.
    const other = `${key!.split('-')[0]}-${'0'.repeat(20)}`;
    cpSync(path.join(cache, key!), path.join(cache, other), { recursive: true, verbatimSymlinks: true });
    const [name] = readdirSync(path.join(cache, other));
    const markerFile = path.join(cache, other, name!, TREE_MARKER);
    writeFileSync(markerFile, JSON.stringify({ ...JSON.parse(readFileSync(markerFile, 'utf8')), key: other }));
    writeFileSync(hint, other);
    try {
      const r = await install('reuse-scripted', cache);
      expect(prefetched(r.dir)).toBe(true);
      expect(r.out.source).toMatchObject({ source: 'reused', entry: expect.stringMatching(new RegExp(`^${key}/`)) });
      expect(await snapshot(r.dir)).toEqual(fresh);
      expect(existsSync(path.join(r.dir, '.mcp-matrix', 'tree'))).toBe(false);
      // The hint names the entry npm's resolution named again.
      expect(readFileSync(hint, 'utf8')).toBe(key);
    } finally {
      await rm(path.join(cache, other), { recursive: true, force: true });
    }
  }, 600_000);

  it('a damaged entry (a file deleted) is detected, removed, and the cell gets npm’s own install', async () => {
    const [key] = keys(cache);
    const [entry] = readdirSync(path.join(cache, key!));
    unlinkSync(path.join(cache, key!, entry!, 'node_modules/zod/package.json'));
    const healed = await install('reuse-scripted', cache);
    // The damaged entry is the hinted one: its copy, made while npm resolved, is checked all the same.
    expect(prefetched(healed.dir)).toBe(true);
    expect(healed.out.install.kind).toBe('installed');
    expect(healed.out.source).toEqual({
      source: 'npm',
      reason: 'the stored tree was damaged (node_modules/zod/package.json is missing); removed',
    });
    expect((await snapshot(healed.dir)).files).toEqual(fresh.files);
    expect(existsSync(path.join(cache, key!, entry!))).toBe(false);
  }, 600_000);

  it('a cache that cannot be written (a file where its directory should be) still installs with npm', async () => {
    // A file in the root's path refuses every write, even root's (a read-only mode would not stop root).
    writeFileSync(path.join(work, 'not-a-dir'), '');
    const r = await install('reuse-plain', path.join(work, 'not-a-dir', 'trees'));
    expect(r.out.install.kind).toBe('installed');
    expect(r.out.source).toEqual({ source: 'npm', reason: 'no tree stored yet' });
    expect(existsSync(path.join(r.dir, 'node_modules/reuse-plain/bin/server.js'))).toBe(true);
    // One line for the run's warnings, naming the real cause.
    expect(r.out.cacheNote).toEqual({
      cache: path.join(work, 'not-a-dir', 'trees'),
      message: expect.stringMatching(
        /^the tree cache .*not-a-dir\/trees cannot be written: .*ENOTDIR.*; every cell is a plain npm install$/,
      ),
    });
  }, 600_000);
});
