// The config cache (config/transpile-cache.ts) through loadConfig, as a run uses it: Babel runs once per file text,
// path and jiti; an edited config is never served from an older transpile; a damaged entry is replaced and said; a
// cache that cannot be written never stops the load.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { CONFIG_CACHE_MAX_ENTRIES, transpileCache, transpileKey, type TranspileOptions } from '../../src/config/transpile-cache.js';

let dir: string;
let cache: string;
const saved = process.env.MCP_MATRIX_CONFIG_CACHE;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cfg-cache-'));
  cache = path.join(dir, 'cache');
  process.env.MCP_MATRIX_CONFIG_CACHE = cache;
});
afterEach(async () => {
  if (saved === undefined) delete process.env.MCP_MATRIX_CONFIG_CACHE;
  else process.env.MCP_MATRIX_CONFIG_CACHE = saved;
  await rm(dir, { recursive: true, force: true });
});

/** A TypeScript config (type annotations: Babel must strip them) whose role says which text was loaded. */
async function writeTs(where: string, role: string): Promise<string> {
  await mkdir(where, { recursive: true });
  await writeFile(
    path.join(where, 'matrix.config.ts'),
    `const role: string = ${JSON.stringify(role)};\nconst at: string = import.meta.url;\nexport default { cells: [{ pin: '2.0.0', role: role + ' ' + at }] };\n`,
  );
  return where;
}

async function roleOf(cwd: string): Promise<{ role: string | undefined; notes: string[] }> {
  const loaded = await loadConfig(cwd);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return { role: loaded.value.config.cells?.[0]?.role, notes: (loaded.value.cacheNotes ?? []).map((n) => n.message) };
}

const entries = async () => (await readdir(cache)).filter((n) => n.endsWith('.json'));

// Each test loads configs through jiti and Babel (the first load in a worker starts Babel: 12 s seen for load.test's
// first in a loaded CI): a hang guard well above that.
describe('the config cache', { timeout: 60_000 }, () => {
  it('the second load of the same file reads its transpile back; an edited config is transpiled again, never served stale', async () => {
    const cwd = await writeTs(path.join(dir, 'a'), 'first');
    const url = `file://${path.join(cwd, 'matrix.config.ts')}`;
    expect(await roleOf(cwd)).toEqual({ role: `first ${url}`, notes: [] });
    expect(await entries()).toHaveLength(1);
    expect(await roleOf(cwd)).toEqual({ role: `first ${url}`, notes: [] });
    expect(await entries()).toHaveLength(1);
    await writeTs(cwd, 'second');
    expect(await roleOf(cwd)).toEqual({ role: `second ${url}`, notes: [] });
    expect(await entries()).toHaveLength(2);
  });

  it('the same text at another path is its own entry: jiti writes the path into the code (import.meta.url)', async () => {
    const a = await writeTs(path.join(dir, 'a'), 'same');
    const b = await writeTs(path.join(dir, 'b'), 'same');
    expect((await roleOf(a)).role).toBe(`same file://${path.join(a, 'matrix.config.ts')}`);
    expect((await roleOf(b)).role).toBe(`same file://${path.join(b, 'matrix.config.ts')}`);
    expect(await entries()).toHaveLength(2);
  });

  it('an entry whose code was edited is damage: removed, transpiled again, and said once', async () => {
    const cwd = await writeTs(path.join(dir, 'a'), 'true');
    await roleOf(cwd);
    const [name] = await entries();
    const file = path.join(cache, name!);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { code: string };
    await writeFile(file, JSON.stringify({ ...entry, code: entry.code.replace('"true"', '"edited"') }));
    const again = await roleOf(cwd);
    expect(again.role).toMatch(/^true /);
    expect(again.notes).toEqual([
      `the config cache entry ${name} in ${cache} was damaged (its code is not the code recorded): it was removed, and ${path.join(cwd, 'matrix.config.ts')} transpiled again`,
    ]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(entry);
    expect(await roleOf(cwd)).toEqual({ role: again.role, notes: [] });
  });

  it('a cache that cannot be written (a file where its directory should be): the config loads, one note names the cause', async () => {
    await writeFile(cache, '');
    const cwd = await writeTs(path.join(dir, 'a'), 'loaded');
    const r = await roleOf(cwd);
    expect(r.role).toMatch(/^loaded /);
    expect(r.notes).toHaveLength(1);
    expect(r.notes[0]).toMatch(
      new RegExp(
        `^the config cache ${cache} cannot be written: .*(ENOTDIR|EEXIST|not a directory|file already exists).*; configs are transpiled on every run instead$`,
        'i',
      ),
    );
  });

  it('MCP_MATRIX_CONFIG_CACHE=off: nothing is written', async () => {
    process.env.MCP_MATRIX_CONFIG_CACHE = 'off';
    const cwd = await writeTs(path.join(dir, 'a'), 'plain');
    expect((await roleOf(cwd)).role).toMatch(/^plain /);
    expect(await readdir(dir)).toEqual(['a']);
  });
});

describe('transpileCache', { timeout: 60_000 }, () => {
  const options = (source: string, filename = '/x/matrix.config.ts'): TranspileOptions => ({ source, filename, ts: true, async: true });

  it('Babel (the miss function) runs once per key; every input is part of the key', async () => {
    await mkdir(cache, { recursive: true });
    let runs = 0;
    const made = transpileCache(cache, (o) => ({ code: `/* ${++runs} */ ${o.source}` }));
    expect(made.transform(options('a')).code).toBe('/* 1 */ a');
    expect(made.transform(options('a')).code).toBe('/* 1 */ a');
    expect(transpileCache(cache, () => ({ code: 'never' })).transform(options('a')).code).toBe('/* 1 */ a');
    expect(made.transform(options('b')).code).toBe('/* 2 */ b');
    expect(made.transform(options('a', '/y/matrix.config.ts')).code).toBe('/* 3 */ a');
    expect(made.transform({ ...options('a'), ts: false }).code).toBe('/* 4 */ a');
    expect(transpileKey(options('a'), '2.7.0')).not.toBe(transpileKey(options('a'), '2.8.0'));
    expect(transpileKey({ ts: true, source: 'a', async: true, filename: '/x/matrix.config.ts' })).toBe(transpileKey(options('a')));
  });

  it('a failed transpile is never kept', async () => {
    await mkdir(cache, { recursive: true });
    let runs = 0;
    const made = transpileCache(cache, () => ({ code: `exports.__JITI_ERROR__ = ${++runs}` }));
    made.transform(options('broken'));
    made.transform(options('broken'));
    expect(runs).toBe(2);
    expect(await entries()).toEqual([]);
  });

  // 257 entries written and listed: 8.7 s seen beside test:unit under load 27 (the describe's 60 s is its hang guard).
  it(`keeps the ${CONFIG_CACHE_MAX_ENTRIES} most recently used entries`, async () => {
    await mkdir(cache, { recursive: true });
    const made = transpileCache(cache, (o) => ({ code: o.source }));
    for (let i = 0; i <= CONFIG_CACHE_MAX_ENTRIES; i++) made.transform(options(`v${i}`));
    expect(await entries()).toHaveLength(CONFIG_CACHE_MAX_ENTRIES);
  });
});
