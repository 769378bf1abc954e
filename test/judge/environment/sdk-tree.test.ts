// What is really installed in a cell, read from a node_modules tree laid out by hand.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSdkCopies, readVersion, resolveFrom, sdkPackageNames } from '../../../src/judge/environment/sdk-tree.js';

let root: string;
let cell: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sdk-tree-test-'));
  cell = path.join(root, 'cell');
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function pkg(dir: string, manifest: Record<string, unknown> | string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
}

const NAMES = ['@modelcontextprotocol/sdk', 'plain-sdk'];

describe('findSdkCopies', () => {
  it('finds every copy, scoped and unscoped, nested at any depth, sorted by path', async () => {
    const nm = path.join(cell, 'node_modules');
    await pkg(path.join(nm, 'zeta/node_modules/plain-sdk'), { version: '2.0.0' });
    await pkg(path.join(nm, 'plain-sdk'), { version: '1.0.0' });
    await pkg(path.join(nm, '@modelcontextprotocol/sdk'), { version: '1.24.0' });
    await pkg(path.join(nm, '@scope/srv/node_modules/@modelcontextprotocol/sdk'), { version: '1.25.0' });
    await pkg(path.join(nm, '@modelcontextprotocol/sdk/node_modules/plain-sdk'), { version: '3.0.0' });
    expect(await findSdkCopies(cell, NAMES)).toStrictEqual([
      { name: '@modelcontextprotocol/sdk', version: '1.24.0', path: 'node_modules/@modelcontextprotocol/sdk' },
      { name: 'plain-sdk', version: '3.0.0', path: 'node_modules/@modelcontextprotocol/sdk/node_modules/plain-sdk' },
      { name: '@modelcontextprotocol/sdk', version: '1.25.0', path: 'node_modules/@scope/srv/node_modules/@modelcontextprotocol/sdk' },
      { name: 'plain-sdk', version: '1.0.0', path: 'node_modules/plain-sdk' },
      { name: 'plain-sdk', version: '2.0.0', path: 'node_modules/zeta/node_modules/plain-sdk' },
    ]);
  });

  it('skips dot entries (.bin, .package-lock.json, a .pnpm store): they are not package folders', async () => {
    const nm = path.join(cell, 'node_modules');
    await pkg(path.join(nm, '.pnpm/node_modules/plain-sdk'), { version: '9.0.0' });
    await mkdir(path.join(nm, '.bin'), { recursive: true });
    await writeFile(path.join(nm, '.package-lock.json'), '{}');
    await pkg(path.join(nm, 'plain-sdk'), { version: '1.0.0' });
    expect(await findSdkCopies(cell, NAMES)).toStrictEqual([{ name: 'plain-sdk', version: '1.0.0', path: 'node_modules/plain-sdk' }]);
  });

  it('a copy without a readable version is not a copy; other packages and a stray scope file are passed over', async () => {
    const nm = path.join(cell, 'node_modules');
    await pkg(path.join(nm, 'plain-sdk'), { name: 'plain-sdk' });
    await pkg(path.join(nm, '@modelcontextprotocol/sdk'), '{ not json');
    await pkg(path.join(nm, '@modelcontextprotocol/server'), { version: '2.0.0' });
    await pkg(path.join(nm, 'other'), { version: '1.0.0' });
    await writeFile(path.join(nm, '@stray'), '');
    expect(await findSdkCopies(cell, NAMES)).toStrictEqual([]);
    // A nested copy below a package without a version is still found.
    await pkg(path.join(nm, 'plain-sdk/node_modules/@modelcontextprotocol/sdk'), { version: '1.1.0' });
    expect(await findSdkCopies(cell, NAMES)).toStrictEqual([
      { name: '@modelcontextprotocol/sdk', version: '1.1.0', path: 'node_modules/plain-sdk/node_modules/@modelcontextprotocol/sdk' },
    ]);
  });

  it('sorted by path, not in walk order: a nested copy sorts after a sibling that shares its prefix', async () => {
    const nm = path.join(cell, 'node_modules');
    await pkg(path.join(nm, 'plain-sdk'), { version: '1.0.0' });
    await pkg(path.join(nm, 'plain-sdk/node_modules/@modelcontextprotocol/sdk'), { version: '1.2.0' });
    await pkg(path.join(nm, 'plain-sdk-extra/node_modules/plain-sdk'), { version: '2.0.0' });
    expect((await findSdkCopies(cell, NAMES)).map((c) => c.path)).toStrictEqual([
      'node_modules/plain-sdk',
      'node_modules/plain-sdk-extra/node_modules/plain-sdk',
      'node_modules/plain-sdk/node_modules/@modelcontextprotocol/sdk',
    ]);
  });

  it('only node_modules folders hold copies: a copy vendored elsewhere in a package is not one Node would load by name', async () => {
    const nm = path.join(cell, 'node_modules');
    await pkg(path.join(nm, 'srv'), { version: '1.0.0' });
    await pkg(path.join(nm, 'srv/@modelcontextprotocol/sdk'), { version: '1.9.0' });
    await pkg(path.join(nm, 'srv/plain-sdk'), { version: '1.9.0' });
    expect(await findSdkCopies(cell, NAMES)).toStrictEqual([]);
  });

  it('a cell without node_modules has no copies', async () => {
    expect(await findSdkCopies(cell, NAMES)).toStrictEqual([]);
  });
});

describe('readVersion', () => {
  it('reads package.json version; undefined without one, or without the file', async () => {
    await pkg(path.join(cell, 'a'), { version: '1.2.3' });
    await pkg(path.join(cell, 'b'), { name: 'b' });
    expect(await readVersion(path.join(cell, 'a'))).toBe('1.2.3');
    expect(await readVersion(path.join(cell, 'b'))).toBeUndefined();
    expect(await readVersion(path.join(cell, 'none'))).toBeUndefined();
  });
});

describe('resolveFrom', () => {
  it('takes the nearest node_modules/<name> walking up, up to and including the cell', async () => {
    const from = path.join(cell, 'node_modules/srv/lib');
    await mkdir(from, { recursive: true });
    await pkg(path.join(cell, 'node_modules/plain-sdk'), { version: '1.0.0' });
    expect(resolveFrom(from, 'plain-sdk', cell)).toBe(path.join(cell, 'node_modules/plain-sdk'));
    await pkg(path.join(cell, 'node_modules/srv/node_modules/plain-sdk'), { version: '2.0.0' });
    expect(resolveFrom(from, 'plain-sdk', cell)).toBe(path.join(cell, 'node_modules/srv/node_modules/plain-sdk'));
  });

  it('a folder without package.json is not a package', async () => {
    await mkdir(path.join(cell, 'node_modules/plain-sdk'), { recursive: true });
    expect(resolveFrom(cell, 'plain-sdk', cell)).toBeUndefined();
  });

  it('stops at the cell: a copy above it is not the cell’s', async () => {
    await pkg(path.join(root, 'node_modules/plain-sdk'), { version: '1.0.0' });
    const from = path.join(cell, 'node_modules/srv');
    await mkdir(from, { recursive: true });
    expect(resolveFrom(from, 'plain-sdk', cell)).toBeUndefined();
    expect(resolveFrom(from, 'plain-sdk', `${cell}/`)).toBeUndefined();
    // Outside any cell it walks on, and stops at the filesystem root.
    expect(resolveFrom(from, 'plain-sdk', '/no/such/cell')).toBe(path.join(root, 'node_modules/plain-sdk'));
    expect(resolveFrom(from, 'mcp-matrix-no-such-package', '/no/such/cell')).toBeUndefined();
  });
});

describe('sdkPackageNames', () => {
  it('every pinned name and companion of every major, once, sorted', () => {
    expect(
      sdkPackageNames({
        '2': {
          pinned: ['@m/server', '@m/client'],
          companions: [
            { name: '@m/node', peerOf: '@m/server' },
            { name: '@m/client', peerOf: '@m/server' },
          ],
        },
        '1': { pinned: ['@m/sdk'] },
      }),
    ).toStrictEqual(['@m/client', '@m/node', '@m/sdk', '@m/server']);
  });
});
