// Places a cache cannot be written to, made for real: a read-only file system (a tmpfs mounted read-only,
// when this user may mount; else a directory without write permission, which stops any user but root), and
// a full disk (a tmpfs of a few hundred KB). Each says which system error a write there meets.
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface Unwritable {
  dir: string;
  /** The error code a write there meets. */
  code: 'EROFS' | 'EACCES' | 'ENOSPC';
  release(): Promise<void>;
}

function mount(dir: string, options: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function release(dir: string, mounted: boolean): Promise<void> {
  if (mounted) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  await chmod(dir, 0o755).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

/** A read-only directory; undefined when this machine allows neither (root without mount). */
export async function readOnlyDir(): Promise<Unwritable | undefined> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-ro-cache-'));
  if (mount(dir, 'ro,size=64k')) return { dir, code: 'EROFS', release: () => release(dir, true) };
  if (process.getuid?.() !== 0) {
    await chmod(dir, 0o555);
    return { dir, code: 'EACCES', release: () => release(dir, false) };
  }
  await rm(dir, { recursive: true, force: true });
  return undefined;
}

/** A file system with `kb` KB of room; undefined when this user may not mount one. */
export async function fullDisk(kb: number): Promise<Unwritable | undefined> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-full-cache-'));
  if (mount(dir, `size=${kb}k`)) return { dir, code: 'ENOSPC', release: () => release(dir, true) };
  await rm(dir, { recursive: true, force: true });
  return undefined;
}
