// `mcp-matrix cache` on real caches made in temp dirs: a client cache filled through storeClient (an installer
// that writes what npm would) and a Node runtime cache with one release, recorded as an install records it.
// list shows locations, entries and sizes; verify finds a damaged entry, removes it and exits 1; clear empties;
// an off cache and bad words are said as such.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { writeManifest } from '../../src/cache/manifest.js';
import { storeClient, type CachedClient } from '../../src/cache/client-cache.js';
import { storeTree } from '../../src/cells/install/tree-cache.js';
import { handBack, RETURNED } from '../../src/cells/install/tree-return.js';
import { cacheCommand, size } from '../../src/commands/cache.js';
import { transpileCache } from '../../src/config/transpile-cache.js';
import type { Logger } from '../../src/logger.js';
import { tempDir } from '../helpers/temp-dir.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function capture(): { log: Logger; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const log: Logger = {
    info: (l) => void out.push(l),
    warn: (l) => void err.push(`warning: ${l}`),
    error: (l) => void err.push(l),
    out: new PassThrough(),
    err: new PassThrough(),
  };
  return { log, out, err };
}

const client: CachedClient = { package: 'pkg', version: '1.0.0', installSet: { pkg: '1.0.0' } };

async function caches(): Promise<{ env: NodeJS.ProcessEnv; clients: string; node: string; entry: string; runtime: string }> {
  const base = await tempDir('mm-cache-cmd-');
  dirs.push(base);
  const clients = path.join(base, 'clients');
  const node = path.join(base, 'node');
  const stored = await storeClient(clients, client, async (dir) => {
    await mkdir(path.join(dir, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'pkg', 'package.json'), JSON.stringify({ name: 'pkg', version: '1.0.0' }));
    await writeFile(path.join(dir, 'node_modules', 'pkg', 'index.js'), 'x'.repeat(2000));
    await writeFile(
      path.join(dir, 'package-lock.json'),
      JSON.stringify({ packages: { '': {}, 'node_modules/pkg': { version: '1.0.0' } } }),
    );
    return undefined;
  });
  if (!('entry' in stored)) throw new Error('not stored');
  const runtime = path.join(node, `22.0.0-${process.platform}-${process.arch}`);
  await mkdir(path.join(runtime, 'bin'), { recursive: true });
  await writeFile(path.join(runtime, 'bin', 'node'), 'n'.repeat(5000));
  await writeManifest(runtime, ['.mcp-matrix-runtime.json']);
  await writeFile(path.join(runtime, '.mcp-matrix-runtime.json'), JSON.stringify({ version: '22.0.0' }));
  const env = {
    MCP_MATRIX_CLIENT_CACHE: clients,
    MCP_MATRIX_NODE_CACHE: node,
    MCP_MATRIX_TREE_CACHE: 'off',
    MCP_MATRIX_CONFIG_CACHE: 'off',
    MCP_MATRIX_PNPM_STORE: 'off',
    MCP_MATRIX_YARN_CACHE: 'off',
  };
  return { env, clients, node, entry: stored.entry.dir, runtime };
}

describe('mcp-matrix cache', () => {
  it('list: each cache’s location, variable, entries with their size, and the limit; an off cache says so', async () => {
    const c = await caches();
    const { log, out, err } = capture();
    expect(await cacheCommand(undefined, [], { env: { ...c.env, MCP_MATRIX_CACHE_LIMIT: '500M' } }, log)).toBe(0);
    expect(err).toEqual([]);
    expect(out[0]).toBe(
      `clients: ${c.clients} (MCP_MATRIX_CLIENT_CACHE) · client variants' clients, the conformance suite, and pnpm or Yarn for packing (pnpm also for strict legs)`,
    );
    expect(out[1]).toMatch(/^ {2}1 entry, 2\.\d KB \(limit 500\.0 MB\)$/);
    expect(out[2]).toMatch(
      new RegExp(`^ {2}pkg@1\\.0\\.0 +2\\.\\d KB {2}used \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d {2}${path.relative(c.clients, c.entry)}$`),
    );
    expect(out[3]).toBe(`node: ${c.node} (MCP_MATRIX_NODE_CACHE) · Node runtimes of node-axis variants and the conformance suite`);
    expect(out[4]).toBe('  1 entry, 4.9 KB (limit 500.0 MB)');
    expect(out[5]).toMatch(/^ {2}Node 22\.0\.0 +4\.9 KB {2}used .* {2}22\.0\.0-/);
    expect(out[6]).toBe('trees: off (MCP_MATRIX_TREE_CACHE=off)');
    expect(out[7]).toBe('pnpm: off (MCP_MATRIX_PNPM_STORE=off)');
    expect(out[8]).toBe('yarn: off (MCP_MATRIX_YARN_CACHE=off)');
    expect(out[9]).toBe('configs: off (MCP_MATRIX_CONFIG_CACHE=off)');
    expect(out).toHaveLength(10);
  });

  it('verify: intact entries pass (exit 0); a deleted file and an edited one are found, removed, exit 1', async () => {
    const c = await caches();
    const ok = capture();
    expect(await cacheCommand('verify', [], { env: c.env }, ok.log)).toBe(0);
    expect(ok.out.filter((l) => l.endsWith('  intact'))).toHaveLength(2);
    await rm(path.join(c.entry, 'node_modules', 'pkg', 'index.js'));
    await writeFile(path.join(c.runtime, 'bin', 'node'), 'N'.repeat(5000));
    const bad = capture();
    expect(await cacheCommand('verify', [], { env: c.env }, bad.log)).toBe(1);
    expect(bad.err).toEqual([
      expect.stringMatching(/ {2}DAMAGED \(node_modules\/pkg\/index\.js is missing\): removed; the next run installs it again$/),
      expect.stringMatching(/ {2}DAMAGED \(bin\/node changed content\): removed; the next run installs it again$/),
    ]);
    expect(existsSync(c.entry)).toBe(false);
    expect(existsSync(c.runtime)).toBe(false);
    // Nothing left aside.
    expect(await readdir(c.node)).toEqual([]);
  });

  it('verify: a tree of the install-reuse cache, against the files its marker recorded', async () => {
    const base = await tempDir('mm-cache-cmd-');
    dirs.push(base);
    const cell = path.join(base, 'cell');
    await mkdir(path.join(cell, 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(cell, 'node_modules', 'dep', 'index.js'), 'export {};\n');
    const trees = path.join(base, 'trees');
    const entry = await storeTree(trees, 'k'.repeat(64), cell, []);
    const env = { MCP_MATRIX_CLIENT_CACHE: 'off', MCP_MATRIX_NODE_CACHE: path.join(base, 'node'), MCP_MATRIX_TREE_CACHE: trees };
    const ok = capture();
    expect(await cacheCommand('verify', ['trees'], { env }, ok.log)).toBe(0);
    expect(ok.out.at(-1)).toMatch(/^ {2}tree kkkkkkkkkkkk .* {2}intact$/);
    await writeFile(path.join(entry, 'node_modules', 'dep', 'extra.js'), '');
    const bad = capture();
    expect(await cacheCommand('verify', ['trees'], { env }, bad.log)).toBe(1);
    expect(bad.err).toEqual([expect.stringMatching(/DAMAGED \(node_modules\/dep\/extra\.js is not in the recorded tree\): removed/)]);
    expect(existsSync(entry)).toBe(false);
  });

  it("list and verify: a cell's tree handed back, against its key's entry as the next swap checks it", async () => {
    const base = await tempDir('mm-cache-cmd-');
    dirs.push(base);
    const cell = async (name: string) => {
      const dir = path.join(base, name);
      await mkdir(path.join(dir, 'node_modules', 'dep'), { recursive: true });
      await writeFile(path.join(dir, 'node_modules', 'dep', 'index.js'), 'export {};\n');
      return dir;
    };
    const trees = path.join(base, 'trees');
    const key = 'k'.repeat(64);
    await storeTree(trees, key, await cell('stored'), []);
    expect(await handBack(await cell('used'), { root: trees, key, drop: [] })).toBe(true);
    const env = { MCP_MATRIX_CLIENT_CACHE: 'off', MCP_MATRIX_NODE_CACHE: path.join(base, 'node'), MCP_MATRIX_TREE_CACHE: trees };
    const listed = capture();
    expect(await cacheCommand('list', ['trees'], { env }, listed.log)).toBe(0);
    expect(listed.out).toContainEqual(
      expect.stringMatching(/^ {2}handed-back tree kkkkkkkkkkkk .* \.returned\/k{64}\/\d{15}-[0-9a-f]{8}$/),
    );
    const ok = capture();
    expect(await cacheCommand('verify', ['trees'], { env }, ok.log)).toBe(0);
    expect(ok.out).toContainEqual(expect.stringMatching(/^ {2}handed-back tree kkkkkkkkkkkk .* {2}intact$/));
    const [name] = await readdir(path.join(trees, RETURNED, key));
    await mkdir(path.join(trees, RETURNED, key, name!, 'dep', '.cache'));
    const bad = capture();
    expect(await cacheCommand('verify', ['trees'], { env }, bad.log)).toBe(1);
    expect(bad.err).toEqual([expect.stringMatching(/DAMAGED \(node_modules\/dep\/\.cache\/ is not in the recorded tree\): removed/)]);
    expect(await readdir(path.join(trees, RETURNED, key))).toEqual([]);
  });

  it('clear: only the caches named, everything in them', async () => {
    const c = await caches();
    const { log, out } = capture();
    expect(await cacheCommand('clear', ['clients'], { env: c.env }, log)).toBe(0);
    expect(out.at(-1)).toBe('  cleared: 1 item removed');
    expect(await readdir(c.clients)).toEqual([]);
    expect(existsSync(c.runtime)).toBe(true);
    const again = capture();
    expect(await cacheCommand('clear', ['clients', 'node'], { env: c.env }, again.log)).toBe(0);
    expect(again.out.filter((l) => l.includes('cleared'))).toEqual(['  cleared: 0 items removed', '  cleared: 1 item removed']);
  });

  it('configs: each entry listed with the config it was made from; verify finds an edited one and removes it', async () => {
    const base = await tempDir('mm-cache-cmd-');
    dirs.push(base);
    const configs = path.join(base, 'configs');
    await mkdir(configs);
    const made = transpileCache(configs, (o) => ({ code: `/* js */ ${o.source}` }));
    made.transform({ source: 'a', filename: '/srv/a/matrix.config.ts', ts: true });
    made.transform({ source: 'b', filename: '/srv/b/matrix.config.ts', ts: true });
    const env = {
      MCP_MATRIX_CLIENT_CACHE: 'off',
      MCP_MATRIX_NODE_CACHE: 'off',
      MCP_MATRIX_TREE_CACHE: 'off',
      MCP_MATRIX_CONFIG_CACHE: configs,
    };
    const listed = capture();
    expect(await cacheCommand('list', ['configs'], { env }, listed.log)).toBe(0);
    expect(listed.out[0]).toBe(
      `configs: ${configs} (MCP_MATRIX_CONFIG_CACHE) · config files as jiti transpiled them (TypeScript to JavaScript)`,
    );
    expect(listed.out[1]).toMatch(/^ {2}2 entries, \d+ B \(the 256 most recently used entries\)$/);
    expect(
      listed.out
        .slice(2)
        .map((l) => l.trim().split(/\s+/)[0])
        .sort(),
    ).toEqual(['/srv/a/matrix.config.ts', '/srv/b/matrix.config.ts']);
    const [first] = (await readdir(configs)).sort();
    const file = path.join(configs, first!);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { code: string };
    await writeFile(file, JSON.stringify({ ...entry, code: `${entry.code};` }));
    const bad = capture();
    expect(await cacheCommand('verify', ['configs'], { env }, bad.log)).toBe(1);
    expect(bad.err).toEqual([
      expect.stringMatching(/ {2}DAMAGED \(its code is not the code recorded\): removed; the next run installs it again$/),
    ]);
    expect(await readdir(configs)).toHaveLength(1);
  });

  it("pnpm's store and Yarn's cache: listed (one entry per top-level folder), not hashed by verify, emptied by clear", async () => {
    const base = await tempDir('mm-cache-stores-');
    dirs.push(base);
    const pnpm = path.join(base, 'pnpm-store');
    const yarn = path.join(base, 'yarn');
    await mkdir(path.join(pnpm, 'v10', 'files', '00'), { recursive: true });
    await writeFile(path.join(pnpm, 'v10', 'files', '00', 'abc'), 'p'.repeat(3000));
    await mkdir(path.join(yarn, 'cache'), { recursive: true });
    await writeFile(path.join(yarn, 'cache', 'zod-npm-3.25.0-ab-10c0.zip'), 'y'.repeat(6000));
    const env = { MCP_MATRIX_PNPM_STORE: pnpm, MCP_MATRIX_YARN_CACHE: yarn };
    const listed = capture();
    expect(await cacheCommand('list', ['pnpm', 'yarn'], { env }, listed.log)).toBe(0);
    expect(listed.out[0]).toBe(`pnpm: ${pnpm} (MCP_MATRIX_PNPM_STORE) · pnpm's content-addressed store for the pnpm-strict legs`);
    expect(listed.out[2]).toMatch(/^ {2}pnpm v10 +2\.9 KB {2}used .* {2}v10$/);
    expect(listed.out[3]).toBe(
      `yarn: ${yarn} (MCP_MATRIX_YARN_CACHE) · Yarn's global folder (its cache of package zips) for the yarn-pnp legs`,
    );
    expect(listed.out[5]).toMatch(/^ {2}yarn cache +5\.9 KB {2}used .* {2}cache$/);
    const verified = capture();
    expect(await cacheCommand('verify', ['yarn'], { env }, verified.log)).toBe(0);
    expect(verified.out[2]).toMatch(/not hashed \(Yarn checks each zip against its lockfile's checksum as it installs it\)$/);
    const cleared = capture();
    expect(await cacheCommand('clear', ['pnpm', 'yarn'], { env }, cleared.log)).toBe(0);
    expect(await readdir(pnpm)).toEqual([]);
    expect(await readdir(yarn)).toEqual([]);
  });

  it('an unknown action or cache is a usage error naming the choices', async () => {
    const { log } = capture();
    expect(await cacheCommand('frob', [], {}, log)).toEqual({
      kind: 'usage',
      message: 'cache: no action "frob"; actions: list, verify, clear',
    });
    expect(await cacheCommand('list', ['nodes', 'x'], {}, log)).toEqual({
      kind: 'usage',
      message: 'cache: no cache "nodes", "x"; caches: clients, node, trees, pnpm, yarn, configs',
    });
  });

  it('sizes read in powers of 1024', () => {
    expect(size(0)).toBe('0 B');
    expect(size(1023)).toBe('1023 B');
    expect(size(1024)).toBe('1.0 KB');
    expect(size(1536 * 1024 * 1024)).toBe('1.5 GB');
  });
});
