// A cell's tree handed back to the tree cache and taken by the next cell, on a small hand-made tree (no npm): it is
// taken only when it is exactly the entry's tree (every file's hash and mode, every link, every directory), else it
// is moved into the cell that found it and the entry is copied as before; one tree is kept per key.
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cell, removeTemps, temp } from '../../helpers/hand-made-tree.js';
import { listTree, storeTree } from '../../../src/cells/install/tree-cache.js';
import { claimReturned, handBack, RETURNED, type Returnable } from '../../../src/cells/install/tree-return.js';

afterAll(removeTemps);

const DROP = ['pkg', '.bin/pkg'];

/** An entry stored from one cell, and a second cell of the same tree whose run has ended. */
async function setup(): Promise<{ root: string; entry: string; tree: Returnable; used: string }> {
  const root = await temp();
  const entry = await storeTree(root, 'ctx-key', await cell(), DROP);
  return { root, entry, tree: { root, key: 'ctx-key', drop: DROP }, used: await cell() };
}

const returned = (root: string, key = 'ctx-key') => readdirSync(path.join(root, RETURNED, key));

describe('a tree handed back', () => {
  it('goes back less the package under test and is taken by the next cell as the entry recorded it', async () => {
    const { root, entry, tree, used } = await setup();
    expect(await handBack(used, tree)).toBe(true);
    expect(existsSync(path.join(used, 'node_modules'))).toBe(false);
    expect(returned(root)).toHaveLength(1);
    const next = await temp();
    expect(await claimReturned(root, 'ctx-key', entry, next)).toBe(true);
    expect(await listTree(path.join(next, 'node_modules'))).toEqual(await listTree(path.join(entry, 'node_modules')));
    expect(returned(root)).toEqual([]);
    // Taken once: a second cell finds none and copies the entry.
    expect(await claimReturned(root, 'ctx-key', entry, await temp())).toBe(false);
  });

  it.each([
    ['a file edited', (nm: string) => writeFileSync(path.join(nm, 'dep/package.json'), '{"name":"dep","version":"9.9.9"}')],
    ['a file added', (nm: string) => writeFileSync(path.join(nm, 'dep/lib/cache.json'), '{}')],
    ['an empty directory made', (nm: string) => mkdirSync(path.join(nm, '.cache'))],
    ['a file removed', (nm: string) => rmSync(path.join(nm, 'dep/lib/index.js'))],
    ['a mode changed', (nm: string) => chmodSync(path.join(nm, 'dep/lib/index.js'), 0o644)],
    [
      'a link retargeted',
      (nm: string) => {
        unlinkSync(path.join(nm, '.bin/dep'));
        symlinkSync('../dep/package.json', path.join(nm, '.bin/dep'));
      },
    ],
  ])('is never taken with %s: it goes with the cell that found it', async (_what, change) => {
    const { root, entry, tree, used } = await setup();
    change(path.join(used, 'node_modules'));
    expect(await handBack(used, tree)).toBe(true);
    const next = await temp();
    expect(await claimReturned(root, 'ctx-key', entry, next)).toBe(false);
    expect(existsSync(path.join(next, 'node_modules'))).toBe(false);
    expect(readdirSync(path.join(next, '.mcp-matrix')).filter((n) => n.startsWith('returned-'))).toHaveLength(1);
    expect(returned(root)).toEqual([]);
  });

  it('keeps one tree per key, the newest, and takes none of another key', async () => {
    const { root, entry, tree } = await setup();
    expect(await handBack(await cell(), tree)).toBe(true);
    expect(await handBack(await cell(), tree)).toBe(true);
    expect(returned(root)).toHaveLength(1);
    expect(await handBack(await cell(), { ...tree, key: 'other-key' })).toBe(true);
    expect(returned(root, 'other-key')).toHaveLength(1);
    expect(await claimReturned(root, 'third-key', entry, await temp())).toBe(false);
    expect(returned(root)).toHaveLength(1);
  });
});
