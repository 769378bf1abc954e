// The file manifest of a cache entry on its own: what it records, and each damage the check before use finds
// (a missing file, another size, an edit that moved the file's time, a symlink changed), and the one it
// leaves to the deep check (an edit of the same size whose time was put back).
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, symlink, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkManifest, MANIFEST, readManifest, recordManifest, sha256File, UNRECORDED, writeManifest } from '../../src/cache/manifest.js';
import { tempDir } from '../helpers/temp-dir.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** An entry: two files in a package, a marker, and a link as npm makes in node_modules/.bin. */
async function entry(): Promise<string> {
  const d = await tempDir('mm-manifest-');
  dirs.push(d);
  await mkdir(path.join(d, 'node_modules', 'pkg', 'dist'), { recursive: true });
  await mkdir(path.join(d, 'node_modules', '.bin'), { recursive: true });
  await writeFile(path.join(d, 'node_modules', 'pkg', 'package.json'), '{"name":"pkg","version":"1.0.0"}');
  await writeFile(path.join(d, 'node_modules', 'pkg', 'dist', 'index.js'), 'export const x = 1;\n');
  await symlink('../pkg/dist/index.js', path.join(d, 'node_modules', '.bin', 'pkg'));
  await writeFile(path.join(d, '.marker.json'), '{}');
  return d;
}

const file = (d: string) => path.join(d, 'node_modules', 'pkg', 'dist', 'index.js');

// A 9 MB file hashed twice: 7 s seen beside test:unit under load 27, so a hang guard well above that.
describe('recordManifest', { timeout: 60_000 }, () => {
  it('records each file (size, time, sha256) and each link (its target), sorted, without the skipped names or itself', async () => {
    const d = await entry();
    await writeManifest(d, ['.marker.json']);
    const m = await recordManifest(d, ['.marker.json']);
    expect(Object.keys(m.files)).toEqual(['node_modules/.bin/pkg', 'node_modules/pkg/dist/index.js', 'node_modules/pkg/package.json']);
    const s = await stat(file(d));
    expect(m.files['node_modules/pkg/dist/index.js']).toEqual([20, s.mtimeMs, await sha256File(file(d), 20)]);
    expect(m.files['node_modules/.bin/pkg']).toEqual({ link: '../pkg/dist/index.js' });
    expect(m.bytes).toBe(20 + 32);
    expect(m.version).toBe(1);
    expect(await readManifest(d)).toEqual(m);
    expect(await checkManifest(d)).toEqual({ intact: true, bytes: 52 });
  });

  it('hashes a file too big to read whole by streaming it, to the same sha256', async () => {
    const d = await entry();
    const big = path.join(d, 'big.bin');
    await writeFile(big, Buffer.alloc(9 * 1024 * 1024, 7));
    const m = await writeManifest(d);
    const [size, , hash] = m.files['big.bin'] as [number, number, string];
    expect(size).toBe(9 * 1024 * 1024);
    expect(hash).toBe(await sha256File(big, 0));
    await truncate(big, 100);
    expect(await checkManifest(d)).toEqual({ intact: false, reason: 'big.bin changed size (100 bytes, was 9437184)' });
  });
});

describe('checkManifest finds the damage', () => {
  it('a deleted file', async () => {
    const d = await entry();
    await writeManifest(d, ['.marker.json']);
    await unlink(file(d));
    expect(await checkManifest(d)).toEqual({ intact: false, reason: 'node_modules/pkg/dist/index.js is missing' });
  });

  it('a file of another size (truncated)', async () => {
    const d = await entry();
    await writeManifest(d);
    await truncate(file(d), 3);
    expect(await checkManifest(d)).toEqual({ intact: false, reason: 'node_modules/pkg/dist/index.js changed size (3 bytes, was 20)' });
  });

  it('an edit of the same size (its time moved): hashed, and found', async () => {
    const d = await entry();
    await writeManifest(d);
    const before = await stat(file(d));
    await writeFile(file(d), 'export const x = 2;\n');
    await utimes(file(d), before.atime, new Date(before.mtimeMs + 5000));
    expect(await checkManifest(d)).toEqual({ intact: false, reason: 'node_modules/pkg/dist/index.js changed content' });
  });

  it('a file whose time moved but whose content is the same (a copy, a touch): intact', async () => {
    const d = await entry();
    await writeManifest(d);
    await utimes(file(d), new Date(), new Date(Date.now() + 60_000));
    expect((await checkManifest(d)).intact).toBe(true);
    expect((await checkManifest(d, { deep: true })).intact).toBe(true);
  });

  it('an edit of the same size with its time put back: trusted by the fast check, found by the deep one', async () => {
    const d = await entry();
    await writeManifest(d);
    const before = await stat(file(d));
    // touch -r copies the time to the nanosecond (utimes from JavaScript loses the last digits).
    const ref = path.join(d, 'ref');
    execFileSync('cp', ['-p', file(d), ref]);
    await writeFile(file(d), 'export const x = 3;\n');
    execFileSync('touch', ['-r', ref, file(d)]);
    expect((await stat(file(d))).mtimeMs).toBe(before.mtimeMs);
    expect((await checkManifest(d)).intact).toBe(true);
    expect(await checkManifest(d, { deep: true })).toEqual({ intact: false, reason: 'node_modules/pkg/dist/index.js changed content' });
  });

  it('a link that points elsewhere, or is no longer a link; a file that became a directory', async () => {
    const d = await entry();
    await writeManifest(d);
    const link = path.join(d, 'node_modules', '.bin', 'pkg');
    await unlink(link);
    await symlink('../pkg/package.json', link);
    expect(await checkManifest(d)).toEqual({ intact: false, reason: 'node_modules/.bin/pkg links elsewhere (was ../pkg/dist/index.js)' });
    await unlink(link);
    await writeFile(link, 'x');
    expect(await checkManifest(d)).toEqual({ intact: false, reason: 'node_modules/.bin/pkg is no longer a symlink' });
    const e = await entry();
    await writeManifest(e);
    await unlink(file(e));
    await mkdir(file(e));
    expect(await checkManifest(e)).toEqual({ intact: false, reason: 'node_modules/pkg/dist/index.js is no longer a file' });
  });

  it('no manifest, or one that is not a manifest: an entry of an older mcp-matrix', async () => {
    const d = await entry();
    expect(await checkManifest(d)).toEqual({ intact: false, reason: UNRECORDED });
    for (const text of ['{', '{"version":2,"bytes":1,"files":{}}', '{"version":1,"files":{}}', '{"version":1,"bytes":1,"files":null}']) {
      await writeFile(path.join(d, MANIFEST), text);
      expect(await readManifest(d), text).toBeUndefined();
    }
    await writeFile(path.join(d, MANIFEST), '{"version":1,"bytes":0,"files":{}}');
    expect(await checkManifest(d)).toEqual({ intact: true, bytes: 0 });
    expect(JSON.parse(await readFile(path.join(d, MANIFEST), 'utf8'))).toEqual({ version: 1, bytes: 0, files: {} });
  });
});
