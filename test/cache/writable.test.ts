// Why a cache cannot be written, named truly: Node's recursive mkdir says ENOENT on a read-only file system,
// so the missing directories are made one at a time to find the real error. A real read-only directory (a
// read-only tmpfs, or one without write permission when not root) and a simulated full disk.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheProblem, makeCacheDir, realMkdirError } from '../../src/cache/writable.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readOnlyDir } from '../helpers/cache-damage.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('makeCacheDir', () => {
  it('makes the directory and its parents, and is fine when it is there', async () => {
    const root = await tempDir('mm-writable-');
    dirs.push(root);
    await makeCacheDir(path.join(root, 'a', 'b', 'c'));
    await makeCacheDir(path.join(root, 'a', 'b', 'c'));
    await mkdir(path.join(root, 'a', 'b', 'c', 'd'));
  });

  it('under a read-only directory: the real cause (EROFS or EACCES), not ENOENT', async () => {
    const ro = await readOnlyDir();
    expect(ro, 'this machine can make no read-only directory (root without mount)').toBeDefined();
    try {
      const error = await makeCacheDir(path.join(ro!.dir, 'mcp-matrix', 'clients')).then(
        () => undefined,
        (e: unknown) => e as NodeJS.ErrnoException,
      );
      expect(error?.code).toBe(ro!.code);
      expect(error?.path).toBe(path.join(ro!.dir, 'mcp-matrix'));
      expect(cacheProblem('the client cache', path.join(ro!.dir, 'mcp-matrix', 'clients'), error)).toMatch(
        ro!.code === 'EROFS'
          ? /^the client cache .*\/clients cannot be written: the file system is read-only \(EROFS\): EROFS: read-only file system, mkdir '/
          : /^the client cache .*\/clients cannot be written: permission denied \(EACCES\): EACCES: permission denied, mkdir '/,
      );
    } finally {
      await ro!.release();
    }
  });

  it('under a file: ENOTDIR, said as the system says it', async () => {
    const root = await tempDir('mm-writable-');
    dirs.push(root);
    await writeFile(path.join(root, 'file'), '');
    const error = await makeCacheDir(path.join(root, 'file', 'x', 'y')).catch((e: unknown) => e as NodeJS.ErrnoException);
    expect(error?.code).toBe('ENOTDIR');
    expect(cacheProblem('the Node runtime cache', '/c', error)).toMatch(
      /^the Node runtime cache \/c cannot be written: ENOTDIR: not a directory, mkdir '/,
    );
  });
});

describe('realMkdirError', () => {
  it('the error given when every directory can be made after all (a race): the original one', async () => {
    const root = await tempDir('mm-writable-');
    dirs.push(root);
    const original = new Error('first try');
    expect(await realMkdirError(path.join(root, 'p', 'q'), original)).toBe(original);
  });

  it('a full disk met while making the directory is named as one', () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, mkdir '/c/x'"), { code: 'ENOSPC' });
    expect(cacheProblem('the client cache', '/c', full)).toBe(
      "the client cache /c cannot be written: the disk is full (ENOSPC): ENOSPC: no space left on device, mkdir '/c/x'",
    );
  });
});
