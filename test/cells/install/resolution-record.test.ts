// The reuse window's record (resolution-record.ts) and what keeps a swap from happening (package-swap.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageIdentity, readRecord, recordFile, writeRecord } from '../../../src/cells/install/resolution-record.js';
import { swapBlocker, type Staged } from '../../../src/cells/install/package-swap.js';
import { resolvedAgo } from '../../../src/reports/markdown/failures.js';
import { renderReuseLines } from '../../../src/reports/terminal.js';
import type { CellResult } from '../../../src/results/types.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'mm-record-'));
  dirs.push(d);
  return d;
}

const manifest = { name: 'pkg', version: '1.0.0', description: 'a', dependencies: { a: '^1.0.0' }, bin: { pkg: 'bin/p.js' } };

describe('packageIdentity', () => {
  it('changes with every field npm reads for the tree, its install scripts and its shrinkwrap, not with the rest', () => {
    const id = packageIdentity(manifest, undefined);
    expect(packageIdentity({ ...manifest, description: 'b', scripts: { test: 'x' } }, undefined)).toBe(id);
    for (const changed of [
      { ...manifest, dependencies: { a: '^1.0.0', b: '1' } },
      { ...manifest, optionalDependencies: { c: '1' } },
      { ...manifest, peerDependencies: { sdk: '1' } },
      { ...manifest, version: '1.0.1' },
      { ...manifest, bin: { other: 'bin/p.js' } },
      { ...manifest, engines: { node: '>=22' } },
      { ...manifest, scripts: { postinstall: 'x' } },
    ])
      expect(packageIdentity(changed, undefined)).not.toBe(id);
    expect(packageIdentity(manifest, '{}')).not.toBe(id);
    expect(packageIdentity(manifest, undefined, 'lockfile 2')).not.toBe(id);
  });

  it('is part of the record file name, with the npm context and the pins (in any order)', async () => {
    const root = await tmp();
    const a = recordFile(root, 'ctx', 'id', { x: '1', y: '2' });
    expect(recordFile(root, 'ctx', 'id', { y: '2', x: '1' })).toBe(a);
    expect(recordFile(root, 'ctx2', 'id', { x: '1', y: '2' })).not.toBe(a);
    expect(recordFile(root, 'ctx', 'id2', { x: '1', y: '2' })).not.toBe(a);
    expect(recordFile(root, 'ctx', 'id', { x: '1', y: '3' })).not.toBe(a);
  });
});

describe('readRecord', () => {
  it('is fresh only inside the window: not at its end, not from the future, not when unreadable', async () => {
    const root = await tmp();
    const file = path.join(root, 'r.json');
    expect(await readRecord(file, 600_000, 0)).toEqual({ kind: 'none' });
    const t = Date.parse('2026-12-05T12:00:00Z');
    const record = { resolvedAt: new Date(t).toISOString(), key: 'k', lockfile: '{}' };
    await writeRecord(file, record);
    expect(await readRecord(file, 600_000, t + 599_999)).toEqual({ kind: 'fresh', record, ageMs: 599_999 });
    expect(await readRecord(file, 600_000, t + 600_000)).toEqual({ kind: 'stale' });
    expect(await readRecord(file, 600_000, t - 1)).toEqual({ kind: 'stale' });
    expect(await readRecord(file, 0, t)).toEqual({ kind: 'stale' });
    await writeFile(file, '{"resolvedAt":"soon","key":"k","lockfile":"{}"}');
    expect(await readRecord(file, 600_000, t)).toEqual({ kind: 'unreadable' });
    await writeFile(file, 'not json');
    expect(await readRecord(file, 600_000, t)).toEqual({ kind: 'unreadable' });
  });
});

describe('swapBlocker', () => {
  const lock = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ packages: { '': { dependencies: {} }, 'node_modules/pkg': { version: '1.0.0' }, ...extra } });
  async function staged(m: Record<string, unknown>, files: Record<string, string> = { 'bin/p.js': '#!/usr/bin/env node\n' }) {
    const dir = path.join(await tmp(), 'package');
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), text);
    }
    return { ok: true, dir, manifest: m } as Extract<Staged, { ok: true }>;
  }

  it('lets a plain package be swapped, and names each thing only npm does', async () => {
    expect(swapBlocker(await staged(manifest), 'pkg', lock())).toBeUndefined();
    expect(swapBlocker(await staged({ ...manifest, scripts: { install: 'x' } }), 'pkg', lock())).toBe('it has an install script (install)');
    expect(swapBlocker(await staged(manifest, { 'binding.gyp': '{}' }), 'pkg', lock())).toBe('it builds with node-gyp (binding.gyp)');
    expect(swapBlocker(await staged({ ...manifest, bundleDependencies: ['a'] }), 'pkg', lock())).toBe('it bundles dependencies');
    expect(swapBlocker({ ...(await staged(manifest)), shrinkwrap: '{}' }, 'pkg', lock())).toBe('it has an npm-shrinkwrap.json');
    expect(swapBlocker(await staged({ ...manifest, directories: { bin: 'bin' } }), 'pkg', lock())).toBe(
      'its bins come from directories.bin',
    );
    expect(swapBlocker(await staged(manifest), 'other', lock())).toBe("the tarball's package is pkg, not other");
    expect(swapBlocker(await staged(manifest), 'pkg', lock({ 'node_modules/pkg/node_modules/a': {} }))).toBe(
      'npm installed dependencies inside node_modules/pkg',
    );
    expect(swapBlocker(await staged(manifest), 'pkg', '{}')).toBe('the recorded lockfile has no node_modules/pkg');
    expect(swapBlocker(await staged({ ...manifest, bin: { pkg: '../x.js' } }), 'pkg', lock())).toBe(
      'its bin pkg points outside the package',
    );
    expect(swapBlocker(await staged(manifest, { 'bin/p.js': '#!/usr/bin/env node\r\n' }), 'pkg', lock())).toBe(
      'a bin has a CRLF shebang, which npm rewrites',
    );
  });
});

describe('what a reuse within the window says', () => {
  it('gives the age in the terminal, once per cell, and in the report label', () => {
    const source = {
      source: 'reused' as const,
      lockfileSha256: 'a'.repeat(64),
      entry: 'k/e',
      resolvedAt: '2026-12-05T12:00:00.000Z',
      ageMs: 180_000,
      swapped: true,
    };
    const cells = [
      { id: 'latest-1', cell: 'latest-1', environment: { installSource: source } },
      { id: 'latest-1~node-22', cell: 'latest-1', environment: { installSource: source } },
      { id: '2.0.0', cell: '2.0.0', environment: { installSource: { source: 'npm', reason: 'no tree stored yet' } } },
    ] as unknown as CellResult[];
    expect(renderReuseLines({ cells })).toEqual(['latest-1: resolved 3 min ago (the reuse window); `--fresh` to resolve now']);
    expect(resolvedAgo(42_000)).toBe('resolved 42 s ago');
  });
});
