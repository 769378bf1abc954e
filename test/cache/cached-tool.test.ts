// A tool's install through the client cache, with an installer that writes what npm would: a hit, a new
// entry, a damaged entry replaced (and said), and a cache that cannot be written giving way to the run's own
// directory with one note naming the cause: a full disk met by the file system (simulated at the fs layer),
// a full disk met by npm inside the cache, a read-only cache (real). An install npm itself refuses is not
// the cache's fault: it stays a failure.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { CachedClient } from '../../src/cache/client-cache.js';
import type { InstallOutcome } from '../../src/npm/install.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readOnlyDir } from '../helpers/cache-damage.js';

// The fs layer: a test may make the next mkdtemp fail as a full disk does.
const full = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    mkdtemp: async (prefix: string) => {
      if (full.on) throw Object.assign(new Error(`ENOSPC: no space left on device, mkdtemp '${prefix}XXXXXX'`), { code: 'ENOSPC' });
      return real.mkdtemp(prefix);
    },
  };
});
const { installThroughCache } = await import('../../src/cache/cached-tool.js');

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
afterEach(() => void (full.on = false));

const tool: CachedClient = { package: 'pkg', version: '1.0.0', installSet: { pkg: '1.0.0' } };

let installs = 0;
async function fakeNpm(dir: string): Promise<InstallOutcome> {
  installs++;
  await mkdir(path.join(dir, 'node_modules', 'pkg'), { recursive: true });
  await writeFile(path.join(dir, 'node_modules', 'pkg', 'package.json'), JSON.stringify({ name: 'pkg', version: '1.0.0' }));
  await writeFile(path.join(dir, 'node_modules', 'pkg', 'index.js'), 'export {};\n');
  const packages = { '': {}, 'node_modules/pkg': { version: '1.0.0' } };
  await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages }));
  return { kind: 'installed', attempts: 1, durationMs: 1 };
}

async function root(): Promise<string> {
  const d = await tempDir('mm-cached-tool-');
  dirs.push(d);
  return d;
}

describe('installThroughCache', () => {
  it('installs an entry once, then hits it; a damaged entry is removed, said once, and installed again', async () => {
    const r = await root();
    installs = 0;
    const first = await installThroughCache(r, tool, fakeNpm);
    expect(first).toMatchObject({ kind: 'entry', source: 'installed', attempts: 1, notes: [] });
    const hit = await installThroughCache(r, tool, fakeNpm);
    expect(hit).toMatchObject({ kind: 'entry', source: 'cache', attempts: 0, notes: [] });
    expect(installs).toBe(1);
    if (first.kind !== 'entry') return;
    await rm(path.join(first.entry.dir, 'node_modules', 'pkg', 'index.js'));
    const healed = await installThroughCache(r, tool, fakeNpm);
    expect(healed).toMatchObject({ kind: 'entry', source: 'installed' });
    expect(installs).toBe(2);
    expect(healed.notes).toEqual([
      {
        cache: first.entry.dir,
        message: `the client cache entry ${path.relative(r, first.entry.dir)} in ${r} was damaged (node_modules/pkg/index.js is missing): it was removed, and pkg@1.0.0 installed again`,
      },
    ]);
    const keyDir = path.dirname(first.entry.dir);
    expect(await readdir(keyDir)).toEqual([path.basename((healed as { entry: { dir: string } }).entry.dir)]);
  });

  it('an entry of an older mcp-matrix (no manifest) is replaced without a note', async () => {
    const r = await root();
    const first = await installThroughCache(r, tool, fakeNpm);
    if (first.kind !== 'entry') throw new Error('no entry');
    await rm(path.join(first.entry.dir, '.mcp-matrix-files.json'));
    const again = await installThroughCache(r, tool, fakeNpm);
    expect(again).toMatchObject({ kind: 'entry', source: 'installed', notes: [] });
  });

  it('a full disk met by the file system (ENOSPC at mkdtemp): unwritable, one note naming it', async () => {
    const r = await root();
    full.on = true;
    const out = await installThroughCache(r, tool, fakeNpm);
    expect(out.kind).toBe('unwritable');
    expect(out.notes).toHaveLength(1);
    expect(out.notes[0]!.cache).toBe(r);
    expect(out.notes[0]!.message).toMatch(
      new RegExp(
        `^the client cache ${r} cannot be written: the disk is full \\(ENOSPC\\): ENOSPC: no space left on device, mkdtemp .*; the harness's tools \\(clients, the conformance suite\\) are installed into the run's own directory instead$`,
      ),
    );
  });

  it('a full disk met by npm inside the cache: unwritable, naming npm’s cause; nothing left in the cache', async () => {
    const r = await root();
    const out = await installThroughCache(r, tool, async () => ({
      kind: 'not-measured',
      attempts: 1,
      durationMs: 1,
      code: 'ENOSPC',
      message: 'nospc',
      cause: 'the disk is full (ENOSPC): npm install could not complete',
    }));
    expect(out).toEqual({
      kind: 'unwritable',
      notes: [
        {
          cache: r,
          message: `the client cache ${r} cannot be written: the disk is full (ENOSPC): npm install could not complete; the harness's tools (clients, the conformance suite) are installed into the run's own directory instead`,
        },
      ],
    });
    const [key] = await readdir(r);
    expect(await readdir(path.join(r, key!))).toEqual([]);
  });

  it('npm refusing the install (no such version, a network that failed): a failure, not a fallback', async () => {
    const r = await root();
    const refused: InstallOutcome = { kind: 'failed', attempts: 1, durationMs: 1, code: 'ETARGET', message: 'No matching version' };
    expect(await installThroughCache(r, tool, async () => refused)).toEqual({ kind: 'failed', install: refused, notes: [] });
    const offline: InstallOutcome = { kind: 'not-measured', attempts: 2, durationMs: 1, code: 'ECONNREFUSED', message: 'refused' };
    expect(await installThroughCache(r, tool, async () => offline)).toEqual({ kind: 'failed', install: offline, notes: [] });
  });

  it('a read-only cache: unwritable, one note naming the real cause', async () => {
    const ro = await readOnlyDir();
    expect(ro, 'this machine can make no read-only directory (root without mount)').toBeDefined();
    try {
      const r = path.join(ro!.dir, 'clients');
      const out = await installThroughCache(r, tool, fakeNpm);
      expect(out.kind).toBe('unwritable');
      expect(out.notes.map((n) => n.message)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^the client cache ${r} cannot be written: ${ro!.code === 'EROFS' ? 'the file system is read-only \\(EROFS\\)' : 'permission denied \\(EACCES\\)'}: `,
          ),
        ),
      ]);
    } finally {
      await ro!.release();
    }
  });
});
