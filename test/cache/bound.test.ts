// The size bound of a harness cache: the limit (MCP_MATRIX_CACHE_LIMIT), which entries go (least recently
// used first, never the one just stored, never one used in the last six hours), and their removal.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cacheLimit,
  DEFAULT_CACHE_LIMIT,
  duBytes,
  entryBytes,
  evict,
  IN_USE_MS,
  parseSize,
  removeAside,
  toEvict,
  type SizedEntry,
} from '../../src/cache/bound.js';
import { writeManifest } from '../../src/cache/manifest.js';
import { tempDir } from '../helpers/temp-dir.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const HOUR = 60 * 60 * 1000;
const now = Date.parse('2026-12-01T20:00:00Z');
const e = (dir: string, bytes: number, hoursAgo: number): SizedEntry => ({ dir, bytes, lastUsedMs: now - hoursAgo * HOUR });

describe('the limit', () => {
  it('is 2 GiB by default, MCP_MATRIX_CACHE_LIMIT when set (powers of 1024), none when off', () => {
    expect(DEFAULT_CACHE_LIMIT).toBe(2 * 1024 * 1024 * 1024);
    expect(cacheLimit({})).toBe(DEFAULT_CACHE_LIMIT);
    expect(cacheLimit({ MCP_MATRIX_CACHE_LIMIT: '  ' })).toBe(DEFAULT_CACHE_LIMIT);
    expect(cacheLimit({ MCP_MATRIX_CACHE_LIMIT: '500M' })).toBe(500 * 1024 * 1024);
    expect(cacheLimit({ MCP_MATRIX_CACHE_LIMIT: ' OFF ' })).toBeUndefined();
    // Unreadable: the default, so the cache stays bounded.
    expect(cacheLimit({ MCP_MATRIX_CACHE_LIMIT: 'lots' })).toBe(DEFAULT_CACHE_LIMIT);
  });

  it('reads bytes and K, M, G, T with or without B or iB, any case', () => {
    expect(parseSize('1048576')).toBe(1048576);
    expect(parseSize('0')).toBe(0);
    expect(parseSize('1k')).toBe(1024);
    expect(parseSize('1KB')).toBe(1024);
    expect(parseSize('2 MiB')).toBe(2 * 1024 ** 2);
    expect(parseSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('1t')).toBe(1024 ** 4);
    expect(parseSize('10b')).toBe(10);
    for (const bad of ['', 'G', '-1G', '1X', '1 G B', '1.G', 'x1G', '1Gx']) expect(parseSize(bad), bad).toBeUndefined();
  });
});

describe('toEvict', () => {
  it('removes the least recently used first, until the rest fit', () => {
    const entries = [e('new', 40, 10), e('oldest', 30, 50), e('old', 30, 20)];
    expect(toEvict(entries, 100, now).map((x) => x.dir)).toEqual([]);
    expect(toEvict(entries, 99, now).map((x) => x.dir)).toEqual(['oldest']);
    expect(toEvict(entries, 70, now).map((x) => x.dir)).toEqual(['oldest']);
    expect(toEvict(entries, 69, now).map((x) => x.dir)).toEqual(['oldest', 'old']);
    expect(toEvict(entries, 0, now).map((x) => x.dir)).toEqual(['oldest', 'old', 'new']);
  });

  it('never the entry kept (just stored), never one used within six hours; the cache may then stay over', () => {
    const entries = [e('kept', 50, 100), e('busy', 50, 5.9), e('idle', 50, 6)];
    expect(IN_USE_MS).toBe(6 * HOUR);
    expect(toEvict(entries, 0, now, 'kept').map((x) => x.dir)).toEqual(['idle']);
    expect(toEvict(entries, 0, now).map((x) => x.dir)).toEqual(['kept', 'idle']);
  });
});

describe('evict and sizes', () => {
  it('removes the chosen entries from disk (through a rename aside), and nothing with no limit', async () => {
    const root = await tempDir('mm-bound-');
    dirs.push(root);
    for (const name of ['a', 'b']) {
      await mkdir(path.join(root, name, 'sub'), { recursive: true });
      await writeFile(path.join(root, name, 'sub', 'f'), 'x'.repeat(10));
    }
    const entries = [e(path.join(root, 'a'), 10, 30), e(path.join(root, 'b'), 10, 20)];
    const aside = (dir: string) => path.join(root, `.gone-${path.basename(dir)}`);
    expect(await evict(entries, undefined, aside)).toEqual([]);
    const gone = await evict(entries, 10, aside);
    expect(gone.map((x) => x.dir)).toEqual([path.join(root, 'a')]);
    expect(await readdir(root)).toEqual(['b']);
    // Already gone (another run moved it): nothing happens.
    await removeAside(path.join(root, 'a'), aside(path.join(root, 'a')));
    expect(await readdir(root)).toEqual(['b']);
  });

  it('an entry’s size is its manifest’s total, else the bytes of its files counted now', async () => {
    const root = await tempDir('mm-bound-');
    dirs.push(root);
    await mkdir(path.join(root, 'x', 'deep'), { recursive: true });
    await writeFile(path.join(root, 'x', 'deep', 'f'), 'x'.repeat(100));
    await writeFile(path.join(root, 'x', 'g'), 'y'.repeat(20));
    expect(await duBytes(path.join(root, 'x'))).toBe(120);
    expect(await entryBytes(path.join(root, 'x'))).toBe(120);
    await writeManifest(path.join(root, 'x'));
    await writeFile(path.join(root, 'x', 'g'), 'y'.repeat(30));
    expect(await entryBytes(path.join(root, 'x'))).toBe(120);
    expect(await duBytes(path.join(root, 'nothing'))).toBe(0);
    expect(existsSync(path.join(root, 'x'))).toBe(true);
  });
});
