import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineCause } from '../../src/npm/machine-cause.js';

/** Why this machine cannot give a test a 3 MB tmpfs, or undefined: Linux and root are needed. */
const noSmallDisk =
  process.platform !== 'linux' ? 'tmpfs mounts are Linux only' : process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : undefined;

/** Mounts a 3 MB tmpfs; a reason instead when the mount is refused (a container without the capability). */
function mountSmallDisk(): { mount: string } | { skip: string } {
  const mount = execFileSync('mktemp', ['-d', path.join(os.tmpdir(), 'mm-npm-small-XXXXXX')], { encoding: 'utf8' }).trim();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mount], { stdio: 'ignore' });
    return { mount };
  } catch (error) {
    execFileSync('rmdir', [mount]);
    return { skip: `mount -t tmpfs failed here (${(error as Error).message.split('\n')[0]})` };
  }
}

describe('machineCause: the machine, not the package', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mm-install-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('ENOSPC from npm itself', async () => {
    const cause = await machineCause('ENOSPC', 'npm error code ENOSPC\nnpm error path /x/y', '', path.join(dir, 'cell'));
    expect(cause).toBe('the disk is full (ENOSPC on /x/y): npm install could not complete');
  });

  it("EACCES on the harness's own directory", async () => {
    const cell = path.join(dir, 'cell-a');
    const stderr = `npm error code EACCES\nnpm error path ${cell}/node_modules/x`;
    expect(await machineCause('EACCES', stderr, '', cell)).toBe(
      `permission denied (EACCES on ${cell}/node_modules/x (the harness's own directory)): npm install could not complete`,
    );
  });

  it('EJSONPARSE after a full disk: the cause is in the debug log', async () => {
    const log = path.join(dir, 'debug-0.log');
    await writeFile(log, '100 warn tar TAR_ENTRY_ERROR ENOSPC: no space left on device, write\n101 error code EJSONPARSE\n');
    const stderr = `npm error code EJSONPARSE\nnpm error JSON.parse Invalid package.json\nnpm error A complete log of this run can be found in: ${log}`;
    expect(await machineCause('EJSONPARSE', stderr, '', path.join(dir, 'cell'))).toBe(
      `the disk is full (ENOSPC, found in npm's debug log ${log}): npm install failed with EJSONPARSE because of it`,
    );
  });

  it('EMFILE anywhere in the output', async () => {
    expect(await machineCause('UNKNOWN', 'npm error EMFILE: too many open files, open /a', '', path.join(dir, 'cell'))).toMatch(
      /^too many open files \(the per-process limit, ulimit -n\) \(EMFILE, found in npm's output\)/,
    );
  });

  // npm says nothing of the disk (a truncated package.json read as EJSONPARSE): the free space left names it.
  it.skipIf(noSmallDisk !== undefined)(
    `a failure npm does not blame on the disk, on a disk with under 16 MB free (a 3 MB tmpfs)${noSmallDisk ? ` — skipped: ${noSmallDisk}` : ''}`,
    async (ctx) => {
      const small = mountSmallDisk();
      if ('skip' in small) return ctx.skip(small.skip);
      try {
        const cell = path.join(small.mount, 'cell-latest-1');
        await mkdir(cell);
        const stderr = 'npm error code EJSONPARSE\nnpm error JSON.parse Invalid package.json: JSONParseError: Unexpected end of JSON input';
        expect(await machineCause('EJSONPARSE', stderr, '', cell)).toMatch(
          new RegExp(
            `^the disk is full \\(only [0-3]\\.\\d MB free where the cell lives, ${small.mount}\\): npm install failed with EJSONPARSE because of it$`,
          ),
        );
        // The same failure on a disk with room stays the package's.
        expect(await machineCause('EJSONPARSE', stderr, '', dir)).toBeUndefined();
      } finally {
        execFileSync('umount', [small.mount]);
        await rm(small.mount, { recursive: true, force: true });
      }
    },
  );

  it('a deterministic failure on a disk with room stays the package’s', async () => {
    expect(
      await machineCause('ERESOLVE', 'npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree', '', dir),
    ).toBeUndefined();
  });
});
