// A client installed apart from any server, for real: the exact client package, the driver shipped into it
// (so the driver's bare imports resolve to that client), a client that cannot be installed named as such, and
// the per-user client cache: the first run installs an entry, the next one reuses it without npm. A damaged
// entry (a file deleted, a file edited) is replaced, also when two runs race on it; a cache that cannot be
// written (read-only, a full disk) gives way to the run's own directory with one note naming the cause.
import { existsSync, realpathSync } from 'node:fs';
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientKey } from '../../../src/cache/client-cache.js';
import { clientDir, installClient } from '../../../src/cells/install/client-install.js';
import type { PlannedClient } from '../../../src/plan/clients.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { fullDisk, readOnlyDir } from '../../helpers/cache-damage.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const client = (version: string): PlannedClient => ({
  id: `client-${version}`,
  pin: version,
  major: 1,
  version,
  package: '@modelcontextprotocol/sdk',
  installSet: { '@modelcontextprotocol/sdk': version },
});

describe('installClient', () => {
  it('cache off: installs the client under <runDir>/clients/<id>/ with the driver in it, resolving that client', async () => {
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    const r = await installClient(runDir, client('1.0.0'), { attempts: 2, timeoutMs: 240_000, cacheDir: undefined });
    expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
    if (!r.ok) return;
    expect(r.value.dir).toBe(clientDir(runDir, { id: 'client-1.0.0' }));
    expect(r.value.dir).toBe(path.join(runDir, 'clients', 'client-1.0.0'));
    // Shipped from the harness's driver program (its manifest makes its files ES modules there).
    const driverDir = path.dirname(r.value.driver.entry);
    expect(driverDir).toBe(path.join(r.value.dir, '.mcp-matrix', 'driver'));
    expect(existsSync(path.join(driverDir, 'package.json'))).toBe(true);
    // What a bare import from the shipped driver resolves to: the client's install, at the pinned version.
    const fromDriver = createRequire(r.value.driver.entry);
    const own = path.join(r.value.dir, 'node_modules', '@modelcontextprotocol', 'sdk');
    expect(fromDriver.resolve('@modelcontextprotocol/sdk/client/index.js').startsWith(own + path.sep)).toBe(true);
    expect(JSON.parse(await readFile(path.join(own, 'package.json'), 'utf8')).version).toBe('1.0.0');
    expect(r.value.ref).toMatchObject({ source: 'run', lockfileSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(r.value.ref.cacheEntry).toBeUndefined();
  }, 300_000);

  it('with a cache: the first run installs an entry, the next run reuses it (no npm), and its driver resolves that entry', async () => {
    const [cache, run1, run2] = await Promise.all([
      tempDir('mm-client-cache-'),
      tempDir('mm-client-install-'),
      tempDir('mm-client-install-'),
    ]);
    dirs.push(cache, run1, run2);
    // The run's install slots: an npm install takes one, a cache hit none.
    let slots = 0;
    const slot = <T>(task: () => Promise<T>): Promise<T> => (slots++, task());
    const first = await installClient(run1, client('1.0.0'), { attempts: 2, timeoutMs: 240_000, cacheDir: cache, slot });
    expect(first.ok, first.ok ? '' : first.error.message).toBe(true);
    if (!first.ok) return;
    expect(first.value.ref.source).toBe('installed');
    // npm ran (a second attempt is npm's retry after a registry hiccup, not the cache's doing).
    expect(first.value.attempts).toBeGreaterThanOrEqual(1);
    expect(first.value.ref.cacheEntry).toMatch(/^@modelcontextprotocol\+sdk@1\.0\.0-[0-9a-f]{12}\/[^/]+$/);
    const entry = path.join(cache, first.value.ref.cacheEntry!);
    expect(path.dirname(entry)).toBe(
      path.join(
        cache,
        clientKey({ package: '@modelcontextprotocol/sdk', version: '1.0.0', installSet: { '@modelcontextprotocol/sdk': '1.0.0' } }),
      ),
    );
    expect(slots).toBe(1);
    const second = await installClient(run2, client('1.0.0'), { attempts: 2, timeoutMs: 240_000, cacheDir: cache, slot });
    expect(slots).toBe(1);
    expect(second.ok, second.ok ? '' : second.error.message).toBe(true);
    if (!second.ok) return;
    // Reused: same entry and lockfile, no npm run (0 attempts).
    expect(second.value.ref).toEqual({ ...first.value.ref, source: 'cache' });
    expect(second.value.attempts).toBe(0);
    expect(second.value.dir).toBe(path.join(run2, 'clients', 'client-1.0.0'));
    // The run's driver resolves the client in the entry (through the run's node_modules link), at the pinned version.
    const resolved = createRequire(second.value.driver.entry).resolve('@modelcontextprotocol/sdk/client/index.js');
    expect(resolved.startsWith(realpathSync(path.join(entry, 'node_modules', '@modelcontextprotocol', 'sdk')) + path.sep)).toBe(true);
    expect(path.dirname(second.value.driver.entry)).toBe(path.join(run2, 'clients', 'client-1.0.0', '.mcp-matrix', 'driver'));
    // Removing a run's directory leaves the entry whole.
    await rm(run1, { recursive: true, force: true });
    expect(existsSync(path.join(entry, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'))).toBe(true);
  }, 300_000);

  it('a client that cannot be installed is infrastructure, naming the client, its directory and npm’s code', async () => {
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    const r = await installClient(runDir, client('1.0.999'), { attempts: 1, timeoutMs: 240_000, cacheDir: undefined });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('infrastructure');
    expect(r.error.message).toMatch(
      new RegExp(
        `^the client @modelcontextprotocol/sdk@1\\.0\\.999 \\(1\\.0\\.999\\) could not be installed into ${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/clients/client-1\\.0\\.999: npm install \\(ETARGET\\)`,
      ),
    );
  }, 300_000);

  it('with a cache: a client that cannot be installed names the cache, and leaves no entry or partial in it', async () => {
    const [cache, runDir] = await Promise.all([tempDir('mm-client-cache-'), tempDir('mm-client-install-')]);
    dirs.push(cache, runDir);
    const r = await installClient(runDir, client('1.0.999'), { attempts: 1, timeoutMs: 240_000, cacheDir: cache });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('infrastructure');
    expect(r.error.message).toMatch(
      new RegExp(
        `^the client @modelcontextprotocol/sdk@1\\.0\\.999 \\(1\\.0\\.999\\) could not be installed into the client cache ${cache.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: npm install \\(ETARGET\\)`,
      ),
    );
    const keyDir = path.join(
      cache,
      clientKey({ package: '@modelcontextprotocol/sdk', version: '1.0.999', installSet: { '@modelcontextprotocol/sdk': '1.0.999' } }),
    );
    expect(await readdir(keyDir)).toEqual([]);
  }, 300_000);
});

describe('a damaged client cache heals and never stops a run', () => {
  const sdk = (entry: string) => path.join(entry, 'node_modules', '@modelcontextprotocol', 'sdk');
  const options = (cacheDir: string) => ({ attempts: 2, timeoutMs: 240_000, cacheDir });

  /** What the driver loads: the client module resolves from the run's install and its file is there. */
  async function loads(install: { driver: { entry: string } }): Promise<boolean> {
    const file = createRequire(install.driver.entry).resolve('@modelcontextprotocol/sdk/client/index.js');
    return (await stat(file)).size > 0;
  }

  it('a file deleted from an entry, then an edited file: each detected before use and replaced, the run says so', async () => {
    const [cache, run1, run2, run3] = await Promise.all([
      tempDir('mm-client-cache-'),
      tempDir('mm-client-install-'),
      tempDir('mm-client-install-'),
      tempDir('mm-client-install-'),
    ]);
    dirs.push(cache, run1, run2, run3);
    const first = await installClient(run1, client('1.0.0'), options(cache));
    if (!first.ok) throw new Error(first.error.message);
    const entry = path.join(cache, first.value.ref.cacheEntry!);
    // The file the driver imports first, deleted: the entry still passes the lockfile and version checks.
    const index = path.join(sdk(entry), 'dist', 'client', 'index.js');
    await rm(index);
    const second = await installClient(run2, client('1.0.0'), options(cache));
    if (!second.ok) throw new Error(second.error.message);
    expect(second.value.ref.source).toBe('installed');
    expect(second.value.ref.cacheEntry).not.toBe(first.value.ref.cacheEntry);
    expect(second.value.cacheNotes.map((n) => n.message)).toEqual([
      `the client cache entry ${first.value.ref.cacheEntry} in ${cache} was damaged (node_modules/@modelcontextprotocol/sdk/dist/client/index.js is missing): it was removed, and @modelcontextprotocol/sdk@1.0.0 installed again`,
    ]);
    expect(existsSync(entry)).toBe(false);
    expect(await loads(second.value)).toBe(true);
    // An edit of the same size (a byte changed), its time moved as an editor moves it.
    const edited = path.join(sdk(path.join(cache, second.value.ref.cacheEntry!)), 'dist', 'client', 'index.js');
    const text = await readFile(edited, 'utf8');
    await writeFile(edited, text.replace('export', 'EXPORT'));
    const later = new Date(Date.now() + 2000);
    await utimes(edited, later, later);
    const third = await installClient(run3, client('1.0.0'), options(cache));
    if (!third.ok) throw new Error(third.error.message);
    expect(third.value.ref.source).toBe('installed');
    expect(third.value.cacheNotes.map((n) => n.message)).toEqual([
      expect.stringContaining('was damaged (node_modules/@modelcontextprotocol/sdk/dist/client/index.js changed content)'),
    ]);
    expect(await loads(third.value)).toBe(true);
  }, 600_000);

  it('two runs racing on one damaged entry: both get a whole client, and the cache ends with whole entries only', async () => {
    const [cache, run0, runA, runB] = await Promise.all([
      tempDir('mm-client-cache-'),
      tempDir('mm-client-install-'),
      tempDir('mm-client-install-'),
      tempDir('mm-client-install-'),
    ]);
    dirs.push(cache, run0, runA, runB);
    const first = await installClient(run0, client('1.0.0'), options(cache));
    if (!first.ok) throw new Error(first.error.message);
    await rm(path.join(sdk(path.join(cache, first.value.ref.cacheEntry!)), 'dist', 'client', 'index.js'));
    const [a, b] = await Promise.all([
      installClient(runA, client('1.0.0'), options(cache)),
      installClient(runB, client('1.0.0'), options(cache)),
    ]);
    if (!a.ok || !b.ok) throw new Error(`${a.ok ? '' : a.error.message} ${b.ok ? '' : b.error.message}`);
    expect(await loads(a.value)).toBe(true);
    expect(await loads(b.value)).toBe(true);
    const keyDir = path.dirname(path.join(cache, first.value.ref.cacheEntry!));
    const left = await readdir(keyDir);
    expect(left.filter((n) => n.startsWith('.partial-'))).toEqual([]);
    expect(left).not.toContain(path.basename(first.value.ref.cacheEntry!));
    for (const name of left) expect(existsSync(path.join(keyDir, name, '.mcp-matrix-client.json'))).toBe(true);
  }, 600_000);

  it('a read-only cache: the client is installed into the run, with one note naming the real cause', async () => {
    const ro = await readOnlyDir();
    expect(ro, 'this machine can make no read-only directory (root without mount)').toBeDefined();
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    try {
      const cache = path.join(ro!.dir, 'mcp-matrix', 'clients');
      const r = await installClient(runDir, client('1.0.0'), options(cache));
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.ref.source).toBe('run');
      expect(r.value.dir).toBe(path.join(runDir, 'clients', 'client-1.0.0'));
      expect(await loads(r.value)).toBe(true);
      const cause = ro!.code === 'EROFS' ? 'the file system is read-only \\(EROFS\\)' : 'permission denied \\(EACCES\\)';
      expect(r.value.cacheNotes).toEqual([
        {
          cache,
          message: expect.stringMatching(
            new RegExp(`^the client cache ${cache} cannot be written: ${cause}: .*mkdir '${ro!.dir}/mcp-matrix'; `),
          ),
        },
      ]);
    } finally {
      await ro!.release();
    }
  }, 300_000);

  it.runIf(process.getuid?.() === 0)(
    'a full cache disk (a 256 KB tmpfs): the client is installed into the run, the note names the full disk',
    async () => {
      const disk = await fullDisk(256);
      expect(disk, 'root could not mount a tmpfs').toBeDefined();
      const runDir = await tempDir('mm-client-install-');
      dirs.push(runDir);
      try {
        const r = await installClient(runDir, client('1.0.0'), options(disk!.dir));
        if (!r.ok) throw new Error(r.error.message);
        expect(r.value.ref.source).toBe('run');
        expect(await loads(r.value)).toBe(true);
        expect(r.value.cacheNotes).toHaveLength(1);
        expect(r.value.cacheNotes[0]!.message).toMatch(new RegExp(`^the client cache ${disk!.dir} cannot be written: the disk is full`));
        // Nothing half-installed is left in the cache.
        const [key] = await readdir(disk!.dir);
        expect(await readdir(path.join(disk!.dir, key!))).toEqual([]);
      } finally {
        await disk!.release();
      }
    },
    300_000,
  );
});
