// The entry directories every harness cache shares: a dead run's partial swept (a live one's kept), a complete
// entry's name, and when an entry was last used (its marker, else the directory).
import { existsSync } from 'node:fs';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryName, lastUsedMs, PARTIAL, STALE_PARTIAL_MS, sweepIfStale, touchMarker } from '../../src/cache/entry-dirs.js';
import { tempDir } from '../helpers/temp-dir.js';

let root = '';
beforeAll(async () => void (root = await tempDir('mm-entry-dirs-')));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('sweepIfStale', () => {
  it('removes a partial older than STALE_PARTIAL_MS and keeps one exactly that old; a missing one is no error', async () => {
    const old = path.join(root, `${PARTIAL}old`);
    const edge = path.join(root, `${PARTIAL}edge`);
    await mkdir(old);
    await mkdir(edge);
    const { mtimeMs } = await stat(edge);
    const then = new Date(mtimeMs - STALE_PARTIAL_MS - 1000);
    await utimes(old, then, then);
    await sweepIfStale(old, mtimeMs);
    await sweepIfStale(edge, mtimeMs + STALE_PARTIAL_MS);
    await sweepIfStale(path.join(root, 'absent'), mtimeMs);
    expect([existsSync(old), existsSync(edge)]).toEqual([false, true]);
  });
});

describe('entryName', () => {
  it('is the time it was stored, file-name safe, then the partial’s unique suffix', () => {
    expect(entryName('2026-12-01T23:10:00.123Z', `/c/k/${PARTIAL}AbC123`)).toBe('2026-12-01T23-10-00-123Z-AbC123');
  });
});

describe('lastUsedMs and touchMarker', () => {
  it('is the marker’s time, touched on use; without a marker the directory’s; without either 0', async () => {
    const dir = path.join(root, 'entry');
    await mkdir(dir);
    await writeFile(path.join(dir, '.marker'), '{}');
    const at = new Date('2026-01-02T03:04:05Z');
    await touchMarker(dir, '.marker', at);
    expect(await lastUsedMs(dir, '.marker')).toBe(at.getTime());
    expect(await lastUsedMs(dir, '.none')).toBe((await stat(dir)).mtimeMs);
    expect(await lastUsedMs(path.join(root, 'absent'), '.marker')).toBe(0);
    await touchMarker(path.join(root, 'absent'), '.marker');
  });
});
