// The per-user client cache on its own: keys, the checks an entry passes before it is used, its age limit,
// leftovers, and racing installs. The installer here writes what npm would (a lockfile and the locked
// packages); test/cells/client-install.integration.test.ts runs real npm installs through it.
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLIENT_MARKER,
  clientCacheDir,
  clientKey,
  findClient,
  storeClient,
  verify,
  type CachedClient,
} from '../../src/cells/client-cache.js';
import { tempDir } from '../e2e/helpers/cli.js';

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
