// The reuse window (issue 34) against real npm and a local registry stand-in (an HTTP server in this file that
// serves packuments and tarballs, so a release can be "published" mid-test): within the window a cell reuses
// npm's resolution and its tree and swaps the tarball in with no npm run, and the result is npm's own install
// file for file and its lockfile byte for byte; everything that can change the tree ends the reuse at once, and a
// stale reuse is never used (a dependency added, a new release after the window, a changed lockfile, npm); a
// cell's tree handed back at a run's end is taken by the next swap only as the entry recorded it. One copy into a
// cell is made to fail (as on a full disk): that is the cell's failure, not a damaged entry.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { installReusing, type ReuseOutcome } from '../../../src/cells/install/reuse-install.js';
import { RECORD_PREFIX, sourceLockfiles } from '../../../src/cells/install/resolution-record.js';
import type * as TreeCache from '../../../src/cells/install/tree-cache.js';
import { listTree } from '../../../src/cells/install/tree-cache.js';
import { handBack, RETURNED } from '../../../src/cells/install/tree-return.js';
import { createCellDir } from '../../../src/cells/install/workspace.js';
import { tempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);
/** When set, the next copy of an entry into a cell fails as a full disk makes it (ENOSPC), and the flag clears. */
const copyFails = vi.hoisted(() => ({ next: false }));
vi.mock('../../../src/cells/install/tree-cache.js', async (importOriginal) => {
  const real = await importOriginal<typeof TreeCache>();
  const copyTree: typeof real.copyTree = async (entry, cellDir) => {
    if (!copyFails.next) return real.copyTree(entry, cellDir);
    copyFails.next = false;
    throw Object.assign(new Error('ENOSPC: no space left on device, copyfile'), { code: 'ENOSPC' });
  };
  return { ...real, copyTree };
});
const WINDOW = 10 * 60_000;
let work: string;
/** Each test's tree cache, in the temp dir: removed with the rest. */
const caches: string[] = [];
let npmVersion: string;
let registry: http.Server;
let base: string;
/** name → version → { manifest, tarball bytes }: what the stand-in serves; a test "publishes" by adding to it. */
const published = new Map<string, Map<string, { manifest: Record<string, unknown>; tgz: Buffer }>>();

/** A tarball as npm packs it (`package/` inside), with its sha512 in npm's integrity form. */
async function tarball(
  dir: string,
  manifest: Record<string, unknown>,
  files: Record<string, string> = {},
): Promise<{ file: string; sha512: string }> {
  const root = path.join(dir, 'package');
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), text, { mode: f.startsWith('bin/') ? 0o755 : 0o644 });
  }
  const file = path.join(dir, `${String(manifest.name)}-${String(manifest.version)}.tgz`);
  await run('tar', ['-czf', file, '-C', dir, 'package']);
  await rm(root, { recursive: true });
  return { file, sha512: `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}` };
}

async function publish(name: string, version: string, dependencies: Record<string, string> = {}): Promise<void> {
  const dir = path.join(work, 'registry', name, version);
  const manifest = { name, version, dependencies, main: 'index.js' };
  const t = await tarball(dir, manifest, { 'index.js': `module.exports = ${JSON.stringify(`${name}@${version}`)};\n` });
  if (!published.has(name)) published.set(name, new Map());
  published.get(name)!.set(version, { manifest, tgz: readFileSync(t.file) });
}

function packument(name: string): unknown {
  const versions = published.get(name)!;
  const latest = [...versions.keys()].sort().at(-1)!;
  return {
    name,
    'dist-tags': { latest },
    versions: Object.fromEntries(
      [...versions].map(([v, { manifest, tgz }]) => [
        v,
        {
          ...manifest,
          dist: {
            tarball: `${base}${name}/-/${name}-${v}.tgz`,
            integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
            shasum: createHash('sha1').update(tgz).digest('hex'),
          },
        },
      ]),
    ),
  };
}

beforeAll(async () => {
  work = await tempDir('mm-window-');
  npmVersion = (await run('npm', ['--version'])).stdout.trim();
  registry = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '/').slice(1);
    const tgz = /^([^/]+)\/-\/\1-(.+)\.tgz$/.exec(url);
    if (tgz) {
      const bytes = published.get(tgz[1]!)?.get(tgz[2]!)?.tgz;
      res.writeHead(bytes ? 200 : 404, { 'content-type': 'application/octet-stream' }).end(bytes);
    } else if (published.has(url)) {
      // Never stored by npm's cache: a release published mid-test is seen by the next resolution.
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(packument(url)));
    } else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
  await publish('mm-standin-dep', '1.0.0');
  await publish('mm-standin-sdk', '1.0.0', { 'mm-standin-dep': '^1.0.0' });
  await publish('mm-standin-extra', '1.0.0');
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => registry?.close(resolve));
  await rm(work, { recursive: true, force: true });
  await Promise.all(caches.map((c) => rm(c, { recursive: true, force: true })));
});

const SDK = { 'mm-standin-sdk': '1.0.0' };
const server = (deps: Record<string, string> = {}, scripts: Record<string, string> = {}) => ({
  name: 'mm-window-server',
  version: '1.0.0',
  bin: { 'mm-window-server': './bin/server.js' },
  dependencies: { 'mm-standin-dep': '^1.0.0', ...deps },
  peerDependencies: { 'mm-standin-sdk': '>=1.0.0' },
  scripts,
});

let n = 0;
interface Install {
  dir: string;
  out: ReuseOutcome;
}
async function install(
  t: { file: string; sha512: string },
  o: { cache: string; at: number; installSet?: Record<string, string>; window?: number; extra?: string; npm?: string; tree?: boolean },
): Promise<Install> {
  const installSet = o.installSet ?? SDK;
  const dir = await createCellDir(work, `w${++n}`, 'mm-window-server', t.file, installSet);
  const out = await installReusing(dir, {
    attempts: 1,
    timeoutMs: 120_000,
    // One npm cache for every cell of a test, so the npm context (and the records' key) is the same.
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_registry: base, npm_config_cache: path.join(o.cache, 'npm') },
    packageName: 'mm-window-server',
    npmVersion: o.npm ?? npmVersion,
    treeCache: o.tree === false ? undefined : path.join(o.cache, 'trees'),
    installSet,
    window: { ms: o.window ?? WINDOW, tarball: t, identityExtra: o.extra ?? '', now: () => o.at },
  });
  expect(out.install.kind).toBe('installed');
  return { dir, out };
}

/** The cell as npm leaves it: node_modules file by file (hash, mode, link) and the lockfile, byte for byte. */
async function snapshot(dir: string): Promise<{ files: string[]; lock: string }> {
  // npm's hidden lockfile (node_modules/.package-lock.json) is npm's own cache of the tree: a swap writes none.
  const files = (await listTree(path.join(dir, 'node_modules')))
    .filter((f) => f.path !== '.package-lock.json')
    .map((f) => ('link' in f ? `${f.path} -> ${f.link}` : `${f.path} ${f.sha256} ${f.mode.toString(8)}`));
  return { files, lock: readFileSync(path.join(dir, 'package-lock.json'), 'utf8') };
}

const swapped = (i: Install) => i.out.source.source === 'reused' && i.out.source.swapped === true;
const version = (i: Install, name: string) =>
  (JSON.parse(readFileSync(path.join(i.dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const installed = (i: Install, file: string) => readFileSync(path.join(i.dir, 'node_modules', 'mm-window-server', file), 'utf8');

/** A tree cache of the test's own, removed with the rest. */
async function newCache(): Promise<string> {
  const cache = await tempDir('mm-window-cache-');
  caches.push(cache);
  return cache;
}

const t0 = Date.parse('2026-12-05T12:00:00Z');
const at = (minutes: number) => t0 + minutes * 60_000;

describe('the reuse window (real npm, a local registry stand-in)', () => {
  it("swaps an edited tarball onto the reused tree: npm's own install file for file, its lockfile byte for byte", async () => {
    const cache = await newCache();
    const v1 = await tarball(path.join(work, 'edit-1'), server(), { 'bin/server.js': '#!/usr/bin/env node\n// one\n' });
    const first = await install(v1, { cache, at: at(0) });
    expect(first.out.source).toMatchObject({ source: 'npm' });
    expect(readdirSync(path.join(cache, 'trees')).filter((f) => f.startsWith(RECORD_PREFIX))).toHaveLength(1);

    // The edit loop: one file changed, the manifest the same; 3 minutes later.
    const edited = await tarball(path.join(work, 'edit-2'), server(), { 'bin/server.js': '#!/usr/bin/env node\n// two\n' });
    const swap = await install(edited, { cache, at: at(3) });
    expect(swapped(swap)).toBe(true);
    expect(swap.out.source).toMatchObject({ resolvedAt: new Date(at(0)).toISOString(), ageMs: 3 * 60_000 });
    expect(installed(swap, 'bin/server.js')).toContain('// two');
    // What npm itself makes of the same tarball on the same pins (no cache at all).
    const npm = await install(edited, { cache, at: at(3), tree: false });
    expect(npm.out.source).toMatchObject({ source: 'npm' });
    expect(await snapshot(swap.dir)).toEqual(await snapshot(npm.dir));
    const lock = JSON.parse((await snapshot(swap.dir)).lock) as { packages: Record<string, { integrity?: string }> };
    expect(lock.packages['node_modules/mm-window-server']!.integrity).toBe(edited.sha512);

    // The run ends: the swapped cell's tree goes back to the cache, and the next edit's cell takes it (no copy).
    const reference = await snapshot(npm.dir);
    expect(await handBack(swap.dir, swap.out.returnable!)).toBe(true);
    expect(readdirSync(path.join(cache, 'trees', RETURNED))).toHaveLength(1);
    const onReturned = await install(edited, { cache, at: at(4) });
    expect(swapped(onReturned)).toBe(true);
    expect(readdirSync(path.join(cache, 'trees', RETURNED, onReturned.out.returnable!.key))).toEqual([]);
    expect(await snapshot(onReturned.dir)).toEqual(reference);

    // A tree a server wrote into (a file beside a dependency's) goes back but is never taken: the entry is copied.
    writeFileSync(path.join(onReturned.dir, 'node_modules', 'mm-standin-dep', 'written-by-the-server'), 'x');
    expect(await handBack(onReturned.dir, onReturned.out.returnable!)).toBe(true);
    const onCopy = await install(edited, { cache, at: at(5) });
    expect(swapped(onCopy)).toBe(true);
    expect(readdirSync(path.join(onCopy.dir, '.mcp-matrix')).filter((f) => f.startsWith('returned-'))).toHaveLength(1);
    expect(await snapshot(onCopy.dir)).toEqual(reference);
  }, 240_000);

  it('never reuses a stale resolution: a dependency added, a new release after the window, a changed lockfile or npm', async () => {
    const cache = await newCache();
    const v1 = await tarball(path.join(work, 'stale-1'), server(), { 'bin/server.js': '#!/usr/bin/env node\n' });
    const lockA = path.join(work, 'stale-src');
    mkdirSync(lockA, { recursive: true });
    writeFileSync(path.join(lockA, 'package-lock.json'), '{"lockfileVersion":3,"a":1}');
    const extraA = await sourceLockfiles(lockA);
    await install(v1, { cache, at: at(0), extra: extraA });
    expect(swapped(await install(v1, { cache, at: at(1), extra: extraA }))).toBe(true);

    // A dependency added to package.json: npm resolves it, at once.
    const added = await tarball(path.join(work, 'stale-2'), server({ 'mm-standin-extra': '^1.0.0' }), {
      'bin/server.js': '#!/usr/bin/env node\n',
    });
    const withExtra = await install(added, { cache, at: at(2), extra: extraA });
    expect(withExtra.out.source).not.toHaveProperty('resolvedAt');
    expect(version(withExtra, 'mm-standin-extra')).toBe('1.0.0');

    // The source directory's lockfile changed.
    writeFileSync(path.join(lockA, 'package-lock.json'), '{"lockfileVersion":3,"a":2}');
    const extraB = await sourceLockfiles(lockA);
    expect(extraB).not.toBe(extraA);
    expect((await install(v1, { cache, at: at(2), extra: extraB })).out.source).not.toHaveProperty('resolvedAt');

    // Another npm; the window turned off.
    expect((await install(v1, { cache, at: at(2), extra: extraA, npm: `${npmVersion}-other` })).out.source).not.toHaveProperty(
      'resolvedAt',
    );
    expect((await install(v1, { cache, at: at(2), extra: extraA, window: 0 })).out.source).not.toHaveProperty('resolvedAt');

    // A new release of the SDK and of its dependency, published after the first resolution.
    await publish('mm-standin-dep', '1.1.0');
    await publish('mm-standin-sdk', '1.1.0', { 'mm-standin-dep': '^1.0.0' });
    // Within the window the recorded resolution is reused, and says how old it is (the decision: bounded, and said).
    const within = await install(v1, { cache, at: at(9), extra: extraA });
    expect(within.out.source).toMatchObject({ swapped: true, ageMs: 9 * 60_000 });
    expect(version(within, 'mm-standin-dep')).toBe('1.0.0');
    // The plan pins the new SDK release: another install set, resolved at once.
    const newSdk = await install(v1, { cache, at: at(9), extra: extraA, installSet: { 'mm-standin-sdk': '1.1.0' } });
    expect(newSdk.out.source).not.toHaveProperty('resolvedAt');
    expect(version(newSdk, 'mm-standin-sdk')).toBe('1.1.0');
    // After the window: npm resolves now and the new dependency release is installed.
    const after = await install(v1, { cache, at: at(10), extra: extraA });
    expect(after.out.source).not.toHaveProperty('resolvedAt');
    expect(version(after, 'mm-standin-dep')).toBe('1.1.0');
    // A record from the future (a clock set back) is not trusted either.
    expect((await install(v1, { cache, at: at(-5), extra: extraA })).out.source).not.toHaveProperty('resolvedAt');
  }, 360_000);

  it("a copy that fails on the cell's side (its disk) leaves the entry: only a copy that differs drops it", async () => {
    const cache = await newCache();
    const t = await tarball(path.join(work, 'copy-fails'), server(), { 'bin/server.js': '#!/usr/bin/env node\n' });
    const first = await install(t, { cache, at: at(0) });
    expect(first.out.source).toMatchObject({ source: 'npm' });
    const trees = path.join(cache, 'trees');
    const entries = () =>
      readdirSync(trees)
        .filter((k) => !k.startsWith('.') && !k.startsWith(RECORD_PREFIX))
        .flatMap((k) => readdirSync(path.join(trees, k)).map((e) => `${k}/${e}`));
    const stored = entries();
    expect(stored).toHaveLength(1);
    // The swap's copy of the entry into the cell fails as on a full disk (the next copy is the real one).
    copyFails.next = true;
    const failed = await install(t, { cache, at: at(1) });
    expect(copyFails.next).toBe(false);
    // The entry is the one stored, still whole: npm's resolution then finds it and the cell takes a copy of it.
    expect(entries()).toEqual(stored);
    expect(failed.out.source).toMatchObject({ source: 'reused', entry: stored[0] });
  }, 240_000);

  it('a package with an install script goes through npm, its script run in every cell', async () => {
    const cache = await newCache();
    const scripted = await tarball(
      path.join(work, 'scripted'),
      server({}, { postinstall: "node -e \"require('fs').writeFileSync('postinstall-ran', 'yes')\"" }),
      { 'bin/server.js': '#!/usr/bin/env node\n' },
    );
    await install(scripted, { cache, at: at(0) });
    const again = await install(scripted, { cache, at: at(1) });
    expect(again.out.source).not.toHaveProperty('resolvedAt');
    expect(installed(again, 'postinstall-ran')).toBe('yes');
  }, 240_000);
});
