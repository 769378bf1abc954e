// The tree cache on a small hand-made tree (no npm): a stored entry leaves out the package under test and
// npm's hidden lockfile, a copy is real and checked file by file (an edited, added or missing file, or a
// changed link, is refused and the copy removed), and old entries go least recently used first.
import { existsSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cell, removeTemps, temp } from '../../helpers/hand-made-tree.js';
import {
  copyTree,
  findTree,
  listTree,
  storeTree,
  TREE_MARKER,
  TREE_MAX_ENTRIES,
  treeCacheDir,
} from '../../../src/cells/install/tree-cache.js';

afterAll(removeTemps);

describe('tree cache', () => {
  it('stores the tree less the package under test, and copies it back as real files, checked', async () => {
    const root = await temp();
    const from = await cell();
    const entry = await storeTree(root, 'ctx-key', from, ['pkg', '.bin/pkg']);
    expect(await findTree(root, 'ctx-key')).toBe(entry);
    expect((await listTree(path.join(entry, 'node_modules'))).map((f) => f.path)).toEqual([
      '.bin/dep',
      'dep/lib/index.js',
      'dep/package.json',
    ]);
    const to = await temp();
    expect(await copyTree(entry, to)).toBeUndefined();
    expect(await listTree(path.join(to, 'node_modules'))).toEqual(await listTree(path.join(entry, 'node_modules')));
    const a = statSync(path.join(to, 'node_modules/dep/package.json'));
    const b = statSync(path.join(entry, 'node_modules/dep/package.json'));
    expect(a.ino).not.toBe(b.ino);
    expect(a.nlink).toBe(1);
    expect(statSync(path.join(to, 'node_modules/dep/lib/index.js')).mode & 0o777).toBe(0o755);
  });

  it.each([
    [
      'an edited file',
      (nm: string) => writeFileSync(path.join(nm, 'dep/package.json'), '{"name":"dep","version":"1.0.1"}'),
      /dep\/package\.json differs/,
    ],
    ['an added file', (nm: string) => writeFileSync(path.join(nm, 'dep/extra.js'), ''), /dep\/extra\.js is not in the recorded tree/],
    ['a deleted file', (nm: string) => rm(path.join(nm, 'dep/lib/index.js')), /dep\/lib\/index\.js is missing/],
    [
      'a changed link',
      async (nm: string) => {
        await rm(path.join(nm, '.bin/dep'));
        symlinkSync('../dep/package.json', path.join(nm, '.bin/dep'));
      },
      /\.bin\/dep differs/,
    ],
  ])('refuses %s in the entry and removes the copy', async (_what, damage, why) => {
    const root = await temp();
    const entry = await storeTree(root, 'ctx-key', await cell(), ['pkg', '.bin/pkg']);
    await damage(path.join(entry, 'node_modules'));
    const to = await temp();
    expect(await copyTree(entry, to)).toMatch(why);
    expect(existsSync(path.join(to, 'node_modules'))).toBe(false);
  });

  it('an entry without its marker is incomplete: not found, and removed', async () => {
    const root = await temp();
    const entry = await storeTree(root, 'ctx-key', await cell(), ['pkg']);
    await rm(path.join(entry, TREE_MARKER));
    expect(await findTree(root, 'ctx-key')).toBeUndefined();
    expect(existsSync(entry)).toBe(false);
  });

  // 25 trees stored and checked: 5 s seen in a loaded CI, so a hang guard well above that.
  it(`keeps ${TREE_MAX_ENTRIES} entries, dropping the least recently used`, { timeout: 60_000 }, async () => {
    const root = await temp();
    const from = await cell();
    const first = await storeTree(root, 'ctx-0', from, ['pkg']);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path.join(first, TREE_MARKER), old, old);
    for (let i = 1; i <= TREE_MAX_ENTRIES; i++) {
      const e = await storeTree(root, `ctx-${i}`, from, ['pkg']);
      const t = new Date(Date.now() - 30_000 + i * 100);
      utimesSync(path.join(e, TREE_MARKER), t, t);
    }
    expect(existsSync(first)).toBe(false);
    const left = readdirSync(root).flatMap((k) => readdirSync(path.join(root, k)));
    expect(left).toHaveLength(TREE_MAX_ENTRIES);
  });

  it('lives at $MCP_MATRIX_TREE_CACHE, off turns it off, else under XDG_CACHE_HOME', () => {
    expect(treeCacheDir({ MCP_MATRIX_TREE_CACHE: 'off' })).toBeUndefined();
    expect(treeCacheDir({ MCP_MATRIX_TREE_CACHE: '/x/trees' })).toBe('/x/trees');
    expect(treeCacheDir({ XDG_CACHE_HOME: '/c' }, 'linux')).toBe('/c/mcp-matrix/trees');
  });
});
