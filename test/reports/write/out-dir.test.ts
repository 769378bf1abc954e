import { mkdtemp, readdir, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutDir } from '../../../src/reports/write/write.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-out-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('checkOutDir: a bad --out is named before anything runs', () => {
  it('accepts an existing directory and a path to create, creating nothing', async () => {
    expect(await checkOutDir(dir)).toBeUndefined();
    expect(await checkOutDir(path.join(dir, 'a', 'b', 'c'))).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses an existing file', async () => {
    const file = path.join(dir, 'results.txt');
    await writeFile(file, 'x');
    expect(await checkOutDir(file)).toBe(
      `${file} exists and is not a directory; pass a directory (or a path that does not exist yet) to --out`,
    );
    expect(await checkOutDir(path.join(file, 'sub'))).toBe(
      `${path.join(file, 'sub')} cannot be created: ${file} is a file, not a directory`,
    );
    await rm(file);
  });

  it.runIf(process.platform === 'linux')('refuses /proc/x and /sys/x (pseudo-filesystems) at once', async () => {
    expect(await checkOutDir('/proc/x')).toBe(
      "/proc/x is on the kernel's proc pseudo-filesystem (/proc); pass a directory on a real disk to --out",
    );
    expect(await checkOutDir('/sys/x/y')).toBe(
      "/sys/x/y is on the kernel's sysfs pseudo-filesystem (/sys); pass a directory on a real disk to --out",
    );
  });

  it.runIf(process.getuid?.() !== 0)('refuses a directory it cannot write', async () => {
    const locked = path.join(dir, 'locked');
    await import('node:fs/promises').then((fs) => fs.mkdir(locked));
    await chmod(locked, 0o500);
    expect(await checkOutDir(path.join(locked, 'out'))).toMatch(/is not writable \(its nearest existing folder .*locked is not\): EACCES/);
    await chmod(locked, 0o700);
  });
});
