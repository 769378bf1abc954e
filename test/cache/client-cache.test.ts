// The per-user client cache on its own: keys, the checks an entry passes before it is used, its age limit,
// leftovers, and racing installs. The installer here writes what npm would (a lockfile and the locked
// packages); test/cells/install/client-install.integration.test.ts runs real npm installs through it.
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLIENT_MARKER,
  clientCacheDir,
  clientKey,
  boundClients,
  damageOf,
  findClient,
  inspect,
  listClients,
  markUsed,
  storeClient,
  verify,
  type CachedClient,
} from '../../src/cache/client-cache.js';
import { tempDir } from '../helpers/temp-dir.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const client: CachedClient = {
  package: '@modelcontextprotocol/client',
  version: '2.4.0',
  installSet: { '@modelcontextprotocol/client': '2.4.0', zod: '4.1.0' },
};

/** What npm leaves: package-lock.json and each locked package's manifest. */
async function fakeNpm(dir: string, versions: Record<string, string> = { '@modelcontextprotocol/client': '2.4.0', zod: '4.1.0' }) {
  const packages: Record<string, { version?: string }> = { '': {} };
  for (const [name, version] of Object.entries(versions)) {
    packages[`node_modules/${name}`] = { version };
    await mkdir(path.join(dir, 'node_modules', name), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
    await writeFile(path.join(dir, 'node_modules', name, 'index.js'), `export const name = ${JSON.stringify(name)};\n`);
  }
  await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages }));
  return undefined;
}

async function root(): Promise<string> {
  const d = await tempDir('mm-client-cache-');
  dirs.push(d);
  return d;
}

async function stored(r: string, now = () => new Date()) {
  const s = await storeClient(r, client, (d) => fakeNpm(d), now);
  if (!('entry' in s)) throw new Error('store failed');
  return s.entry;
}

describe('clientCacheDir', () => {
  it('is $MCP_MATRIX_CLIENT_CACHE, off (any case) for none, else under the user cache', () => {
    expect(clientCacheDir({ MCP_MATRIX_CLIENT_CACHE: '/x/y' }, 'linux')).toBe('/x/y');
    expect(clientCacheDir({ MCP_MATRIX_CLIENT_CACHE: 'off' }, 'linux')).toBeUndefined();
    expect(clientCacheDir({ MCP_MATRIX_CLIENT_CACHE: ' OFF ' }, 'linux')).toBeUndefined();
    expect(clientCacheDir({ XDG_CACHE_HOME: '/c' }, 'linux')).toBe('/c/mcp-matrix/clients');
    expect(clientCacheDir({ LOCALAPPDATA: 'C:\\L' }, 'win32')).toBe(path.join('C:\\L', 'mcp-matrix', 'clients'));
    // LOCALAPPDATA only on Windows; Windows without it falls back to the user cache like any platform.
    expect(clientCacheDir({ LOCALAPPDATA: '/l', XDG_CACHE_HOME: '/c' }, 'linux')).toBe('/c/mcp-matrix/clients');
    expect(clientCacheDir({ XDG_CACHE_HOME: '/c' }, 'win32')).toBe(path.join('/c', 'mcp-matrix', 'clients'));
    expect(clientCacheDir({}, 'linux')).toBe(path.join(os.homedir(), '.cache', 'mcp-matrix', 'clients'));
  });
});

describe('clientKey', () => {
  it('names the package and version, and hashes the exact install set (not its order)', () => {
    const key = clientKey(client);
    expect(key).toMatch(/^@modelcontextprotocol\+client@2\.4\.0-[0-9a-f]{12}$/);
    expect(clientKey({ ...client, installSet: { zod: '4.1.0', '@modelcontextprotocol/client': '2.4.0' } })).toBe(key);
    expect(clientKey({ ...client, installSet: { ...client.installSet, zod: '4.2.0' } })).not.toBe(key);
  });
});

describe('storeClient and findClient', () => {
  it('a stored entry is found again, with its marker, lockfile hash and install time; nothing partial is left', async () => {
    const r = await root();
    const entry = await stored(r, () => new Date('2026-12-01T10:00:00.000Z'));
    expect(entry.installedAt).toBe('2026-12-01T10:00:00.000Z');
    expect(entry.lockfileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(await readFile(path.join(entry.dir, CLIENT_MARKER), 'utf8'))).toMatchObject({
      package: client.package,
      version: client.version,
      installSet: client.installSet,
      lockfileSha256: entry.lockfileSha256,
    });
    expect(await findClient(r, client, Date.parse('2026-12-02T00:00:00Z'))).toEqual(entry);
    expect(await readdir(path.join(r, clientKey(client)))).toEqual([path.basename(entry.dir)]);
    // Another install set is another key: no hit.
    expect(await findClient(r, { ...client, installSet: { ...client.installSet, zod: '4.2.0' } })).toBeUndefined();
  });

  it('a failed install comes back as the installer said, and leaves nothing in the cache', async () => {
    const r = await root();
    const s = await storeClient(r, client, async (d) => {
      await writeFile(path.join(d, 'package.json'), '{}');
      return { code: 'ETARGET' };
    });
    expect(s).toEqual({ failed: { code: 'ETARGET' } });
    expect(await readdir(path.join(r, clientKey(client)))).toEqual([]);
  });

  it('two racing installs each end with a complete entry; the newest is used', async () => {
    const r = await root();
    const [a, b] = await Promise.all([
      stored(r, () => new Date('2026-12-01T10:00:00.000Z')),
      stored(r, () => new Date('2026-12-01T10:00:01.000Z')),
    ]);
    expect(a.dir).not.toBe(b.dir);
    expect(await verify(a.dir, client)).toEqual(a);
    expect((await findClient(r, client, Date.parse('2026-12-01T11:00:00Z')))?.dir).toBe(b.dir);
  });
});

describe('an entry is used only while it is what it was', () => {
  it('a locked package changed on disk: not used', async () => {
    const r = await root();
    const entry = await stored(r);
    await writeFile(path.join(entry.dir, 'node_modules', 'zod', 'package.json'), JSON.stringify({ name: 'zod', version: '3.25.0' }));
    expect(await verify(entry.dir, client)).toBeUndefined();
    expect(await findClient(r, client)).toBeUndefined();
  });

  it('a file deleted from a locked package (its package.json intact): not used, and the damaged entry is removed', async () => {
    const r = await root();
    const entry = await stored(r);
    await rm(path.join(entry.dir, 'node_modules', 'zod', 'index.js'));
    expect(await verify(entry.dir, client)).toBeUndefined();
    expect(await findClient(r, client)).toBeUndefined();
    expect(existsSync(entry.dir)).toBe(false);
  });

  it('an edited file, same size, its time moved: not used', async () => {
    const r = await root();
    const entry = await stored(r);
    const file = path.join(entry.dir, 'node_modules', 'zod', 'index.js');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('zod', 'dog'));
    expect((await readFile(file, 'utf8')).length).toBe(text.length);
    expect(await verify(entry.dir, client)).toBeUndefined();
  });

  it('a locked package removed: not used', async () => {
    const r = await root();
    const entry = await stored(r);
    await rm(path.join(entry.dir, 'node_modules', '@modelcontextprotocol', 'client'), { recursive: true });
    expect(await findClient(r, client)).toBeUndefined();
  });

  it('a lockfile that is not the one installed, or no marker: not used', async () => {
    const r = await root();
    const entry = await stored(r);
    const lock = path.join(entry.dir, 'package-lock.json');
    await writeFile(lock, (await readFile(lock, 'utf8')) + '\n');
    expect(await verify(entry.dir, client)).toBeUndefined();
    const other = await stored(r);
    await rm(path.join(other.dir, CLIENT_MARKER));
    expect(await verify(other.dir, client)).toBeUndefined();
    expect(await findClient(r, client)).toBeUndefined();
  });

  it('a marker for another version is not this client', async () => {
    const r = await root();
    const entry = await stored(r);
    expect(await verify(entry.dir, { ...client, version: '2.3.0' })).toBeUndefined();
  });
});

describe('age and leftovers', () => {
  it('an entry older than a week is not used (a fresh install follows); one older than two weeks is removed', async () => {
    const r = await root();
    const week = await stored(r, () => new Date('2026-11-23T00:00:00.000Z'));
    const now = Date.parse('2026-12-01T00:00:00Z');
    expect(await findClient(r, client, now)).toBeUndefined();
    expect(existsSync(week.dir)).toBe(true);
    expect(await findClient(r, client, Date.parse('2026-12-08T00:00:00Z'))).toBeUndefined();
    expect(existsSync(week.dir)).toBe(false);
  });

  it('a partial install older than six hours is removed; a younger one (a run installing now) is left alone', async () => {
    const r = await root();
    const keyDir = path.join(r, clientKey(client));
    await mkdir(path.join(keyDir, '.partial-old'), { recursive: true });
    await mkdir(path.join(keyDir, '.partial-young'), { recursive: true });
    const old = new Date(Date.now() - 7 * 60 * 60 * 1000);
    await utimes(path.join(keyDir, '.partial-old'), old, old);
    expect(await findClient(r, client)).toBeUndefined();
    expect((await readdir(keyDir)).sort()).toEqual(['.partial-young']);
  });
});

describe('what an entry is checked for, each damage named', () => {
  /** Rewrites a file in place to the same size and puts its time back: the file manifest sees nothing. */
  async function sameSizeEdit(file: string, from: string, to: string) {
    const before = await stat(file);
    const text = await readFile(file, 'utf8');
    expect(to.length).toBe(from.length);
    expect(text).toContain(from);
    await writeFile(file, text.replace(from, to));
    await utimes(file, before.atime, before.mtime);
  }
  const marker = async (dir: string, change: (m: Record<string, unknown>) => void) => {
    const file = path.join(dir, CLIENT_MARKER);
    const m = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    change(m);
    await writeFile(file, JSON.stringify(m));
  };

  it('the lockfile hash catches a lockfile edited to the same size with its time put back', async () => {
    const entry = await stored(await root());
    await sameSizeEdit(path.join(entry.dir, 'package-lock.json'), '"4.1.0"', '"4.1.9"');
    expect(await inspect(entry.dir, client)).toEqual({ damage: 'package-lock.json is not the one installed' });
  });

  it('a locked package at another version (its manifest edited to the same size, time put back) is named with both versions', async () => {
    const entry = await stored(await root());
    await sameSizeEdit(path.join(entry.dir, 'node_modules', 'zod', 'package.json'), '"4.1.0"', '"4.1.9"');
    expect(await inspect(entry.dir, client)).toEqual({ damage: 'node_modules/zod is 4.1.9, locked at 4.1.0' });
  });

  it('the marker must name this package, version and install set (in any order), with a real install time', async () => {
    const r = await root();
    const entry = await stored(r);
    expect(await inspect(entry.dir, { ...client, installSet: { zod: '4.1.0', '@modelcontextprotocol/client': '2.4.0' } })).toEqual({
      entry,
    });
    expect(await inspect(entry.dir, { ...client, package: '@modelcontextprotocol/sdk' })).toEqual({
      damage: 'its marker names @modelcontextprotocol/client@2.4.0',
    });
    expect(await inspect(entry.dir, { ...client, installSet: { ...client.installSet, zod: '4.2.0' } })).toEqual({
      damage: 'its marker names another install set',
    });
    // 2026 as a number: Date.parse reads it as a year, but a marker's time is an ISO string.
    for (const installedAt of [undefined, 'yesterday', 2026]) {
      const other = await stored(r);
      await marker(other.dir, (m) => (installedAt === undefined ? delete m.installedAt : (m.installedAt = installedAt)));
      expect(await inspect(other.dir, client)).toEqual({ damage: 'its marker has no install time' });
    }
  });

  it('a lockfile without packages is damage; the root, linked and unversioned entries are not looked up', async () => {
    const r = await root();
    const noPackages = await storeClient(r, client, (d) =>
      writeFile(path.join(d, 'package-lock.json'), '{"lockfileVersion":3}').then(() => undefined),
    );
    if (!('entry' in noPackages)) throw new Error('store failed');
    expect(await inspect(noPackages.entry.dir, client)).toEqual({ damage: 'package-lock.json lists no packages' });
    const odd = await storeClient(r, client, async (d) => {
      await fakeNpm(d);
      const lock = JSON.parse(await readFile(path.join(d, 'package-lock.json'), 'utf8')) as { packages: Record<string, object> };
      // None of these has a package.json in the entry: looking one up would read as damage.
      lock.packages[''] = { name: 'client-install', version: '0.0.0' };
      lock.packages['node_modules/linked'] = { version: '1.0.0', link: true };
      lock.packages['node_modules/optional-missing'] = { optional: true };
      await writeFile(path.join(d, 'package-lock.json'), JSON.stringify(lock));
      return undefined;
    });
    if (!('entry' in odd)) throw new Error('store failed');
    expect(await inspect(odd.entry.dir, client)).toEqual({ entry: odd.entry });
  });

  it('findClient tells onDamage which entry and why, and removes it', async () => {
    const r = await root();
    const entry = await stored(r);
    await sameSizeEdit(path.join(entry.dir, 'package-lock.json'), '"4.1.0"', '"4.1.9"');
    const heard: [string, string][] = [];
    expect(await findClient(r, client, Date.now(), (dir, why) => heard.push([dir, why]))).toBeUndefined();
    expect(heard).toEqual([[entry.dir, 'package-lock.json is not the one installed']]);
    expect(existsSync(entry.dir)).toBe(false);
  });
});

describe('age limits, to the millisecond', () => {
  const WEEK = 7 * 24 * 60 * 60 * 1000;
  const at = '2026-12-01T00:00:00.000Z';
  const t = Date.parse(at);

  it('used from the moment it is installed until just before a week; not used from the future', async () => {
    const r = await root();
    const entry = await stored(r, () => new Date(at));
    expect(await findClient(r, client, t)).toEqual(entry);
    expect(await findClient(r, client, t + WEEK - 1)).toEqual(entry);
    expect(await findClient(r, client, t + WEEK)).toBeUndefined();
    expect(await findClient(r, client, t - 1)).toBeUndefined();
    expect(existsSync(entry.dir)).toBe(true);
  });

  it('removed at exactly two weeks, kept just before', async () => {
    const r = await root();
    const entry = await stored(r, () => new Date(at));
    expect(await findClient(r, client, t + 2 * WEEK - 1)).toBeUndefined();
    expect(existsSync(entry.dir)).toBe(true);
    expect(await findClient(r, client, t + 2 * WEEK)).toBeUndefined();
    expect(existsSync(entry.dir)).toBe(false);
  });

  it('a partial install is left alone up to six hours to the millisecond, and a minute-old one certainly', async () => {
    const r = await root();
    const keyDir = path.join(r, clientKey(client));
    const partial = path.join(keyDir, '.partial-run');
    await mkdir(partial, { recursive: true });
    const { mtimeMs } = await stat(partial);
    await findClient(r, client, mtimeMs + 60_000);
    await findClient(r, client, mtimeMs + 6 * 60 * 60 * 1000);
    expect(existsSync(partial)).toBe(true);
    await findClient(r, client, mtimeMs + 6 * 60 * 60 * 1000 + 1);
    expect(existsSync(partial)).toBe(false);
  });

  it('storeClient stamps the install time now by default, and names the entry by it without : or .', async () => {
    const r = await root();
    const before = Date.now();
    const s = await storeClient(r, client, (d) => fakeNpm(d));
    if (!('entry' in s)) throw new Error('store failed');
    expect(Date.parse(s.entry.installedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(s.entry.installedAt)).toBeLessThanOrEqual(Date.now());
    const stamp = s.entry.installedAt.replace(/[:.]/g, '-');
    expect(path.basename(s.entry.dir)).toMatch(new RegExp(`^${stamp}-[A-Za-z0-9]{6}$`));
  });
});

describe('use, listing and the size bound', () => {
  it('the entry found is marked as used now (its marker’s time)', async () => {
    const r = await root();
    const entry = await stored(r);
    const long = new Date('2026-01-01T00:00:00Z');
    await utimes(path.join(entry.dir, CLIENT_MARKER), long, long);
    const before = Date.now();
    expect(await findClient(r, client)).toEqual(entry);
    expect((await stat(path.join(entry.dir, CLIENT_MARKER))).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
    await markUsed(entry.dir, long);
    expect((await stat(path.join(entry.dir, CLIENT_MARKER))).mtimeMs).toBe(long.getTime());
  });

  it('lists every complete entry of every key with what its marker says and when it was used; partials and a missing cache are none', async () => {
    expect(await listClients(path.join(await root(), 'none'))).toEqual([]);
    // A stray file at the cache's top (not a key directory) is passed over.
    const strayRoot = await root();
    await writeFile(path.join(strayRoot, 'README'), 'not a key');
    expect(await listClients(strayRoot)).toEqual([]);
    const r = await root();
    const entry = await stored(r, () => new Date('2026-12-01T10:00:00.000Z'));
    const other = { ...client, version: '2.3.0', installSet: { '@modelcontextprotocol/client': '2.3.0' } };
    const s = await storeClient(
      r,
      other,
      (d) => fakeNpm(d, { '@modelcontextprotocol/client': '2.3.0' }),
      () => new Date('2026-12-01T11:00:00.000Z'),
    );
    if (!('entry' in s)) throw new Error('store failed');
    await mkdir(path.join(r, clientKey(client), '.partial-run'));
    const used = new Date('2026-11-30T00:00:00Z');
    await utimes(path.join(entry.dir, CLIENT_MARKER), used, used);
    // An entry whose marker is gone: listed by its directory's time, without what a marker says.
    const bare = await stored(r);
    await rm(path.join(bare.dir, CLIENT_MARKER));
    const dirTime = (await stat(bare.dir)).mtimeMs;
    const listed = (await listClients(r)).sort((a, b) => a.dir.localeCompare(b.dir));
    const expected = [
      {
        dir: entry.dir,
        key: clientKey(client),
        package: client.package,
        version: '2.4.0',
        installedAt: '2026-12-01T10:00:00.000Z',
        lastUsedMs: used.getTime(),
      },
      { dir: bare.dir, key: clientKey(client), lastUsedMs: dirTime },
      { dir: s.entry.dir, key: clientKey(other), package: client.package, version: '2.3.0', installedAt: '2026-12-01T11:00:00.000Z' },
    ].sort((a, b) => a.dir.localeCompare(b.dir));
    expect(listed).toHaveLength(3);
    for (const [i, want] of expected.entries()) {
      expect(listed[i]).toMatchObject(want);
      expect(listed[i]!.bytes).toBeGreaterThan(0);
      if (want.dir === bare.dir) expect(Object.keys(listed[i]!).sort()).toEqual(['bytes', 'dir', 'key', 'lastUsedMs']);
    }
  });

  it('over the limit, the least recently used entry that is neither kept nor in use goes, and is named', async () => {
    const r = await root();
    const old = await stored(r);
    const kept = await stored(r);
    const long = new Date(Date.now() - 24 * 60 * 60 * 1000);
    for (const e of [old, kept]) await utimes(path.join(e.dir, CLIENT_MARKER), long, long);
    expect(await boundClients(r, kept.dir, 1)).toEqual([old.dir]);
    expect(existsSync(old.dir)).toBe(false);
    expect(existsSync(kept.dir)).toBe(true);
    expect(await boundClients(r, kept.dir, undefined)).toEqual([]);
  });
});

describe('damageOf (mcp-matrix cache verify): the entry against its own marker, every file hashed', () => {
  it('an intact entry has no damage; one without a readable marker names it; an entry whose marker has no install set is another set', async () => {
    const r = await root();
    const entry = await stored(r);
    expect(await damageOf(entry.dir)).toBeUndefined();
    const file = path.join(entry.dir, CLIENT_MARKER);
    const marker = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...marker, installSet: undefined }));
    expect(await damageOf(entry.dir)).toBeUndefined();
    await writeFile(file, '{ not json');
    expect(await damageOf(entry.dir)).toBe(`no readable ${CLIENT_MARKER}`);
    await rm(file);
    expect(await damageOf(entry.dir)).toBe(`no readable ${CLIENT_MARKER}`);
  });

  it('a same-size edit with its time put back passes the quick check before use, not the deep one', async () => {
    const r = await root();
    // Whole-second times, which utimes sets back exactly (the manifest records the time to the sub-millisecond).
    const t = new Date('2026-01-01T00:00:00Z');
    const s = await storeClient(r, client, async (d) => {
      await fakeNpm(d);
      await utimes(path.join(d, 'node_modules', 'zod', 'index.js'), t, t);
      return undefined;
    });
    if (!('entry' in s)) throw new Error('store failed');
    const js = path.join(s.entry.dir, 'node_modules', 'zod', 'index.js');
    await writeFile(js, (await readFile(js, 'utf8')).replace('zod', 'dog'));
    await utimes(js, t, t);
    expect(await inspect(s.entry.dir, client)).toEqual({ entry: s.entry });
    expect(await inspect(s.entry.dir, client, true)).toEqual({ damage: 'node_modules/zod/index.js changed content' });
    expect(await damageOf(s.entry.dir)).toBe('node_modules/zod/index.js changed content');
  });
});
