// The per-user client cache through the real CLI: the first run installs the client variant's client into the
// cache, the next run reuses that entry (same lockfile, no npm install of the client), and with the cache off a
// run installs a client of its own. Every run passes the same way and records where its client came from.
// A damaged cache heals and never stops a run: a file deleted from the cached entry (before: every phase
// not-measured, "could not load the client", for a week) is found before use and the client installed again;
// a cache on a read-only file system (before: exit 3, "ENOENT: ... mkdir") gives way to an install in the run,
// with one warning naming the real cause.
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { readOnlyDir, type Unwritable } from '../helpers/cache-damage.js';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, tempDir, writeConfig, type CliOutcome } from './helpers/cli.js';

let tmp: string;
let cache: string;
const runs: { out: CliOutcome; results: RunResult }[] = [];
let damaged: { out: CliOutcome; results: RunResult; deleted: string };
let readOnly: { out: CliOutcome; results: RunResult; ro: Unwritable; cache: string } | undefined;

async function run(name: string, cacheEnv: string): Promise<{ out: CliOutcome; results: RunResult }> {
  const outDir = path.join(tmp, name);
  const config = path.join(tmp, 'matrix.config.ts');
  const out = await cli(['run', '--config', config, '--out', outDir, '--progress', 'silent'], {
    timeoutMs: 300_000,
    env: { MCP_MATRIX_CLIENT_CACHE: cacheEnv },
  });
  return { out, results: await readResults(outDir) };
}

beforeAll(async () => {
  tmp = await tempDir('mm-client-cache-e2e-');
  cache = path.join(tmp, 'client-cache');
  await writeConfig(
    tmp,
    `{ package: ${JSON.stringify(path.join(ROOT, 'fixtures/broken/_base'))}, cells: [{ pin: 'latest@1' }], clients: ['latest@2'],
       stdio: { expect: { tools: ['echo', 'add'] }, steps: [{ tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } }] },
       http: false, bind: false, leaks: { graceMs: 3000 }, lockstep: 'off' }`,
  );
  // One after another: the second must find what the first left.
  runs.push(await run('first', cache));
  runs.push(await run('second', cache));
  runs.push(await run('off', 'off'));
}, 900_000);

afterAll(async () => {
  await readOnly?.ro.release();
  await rm(tmp, { recursive: true, force: true });
});

describe('the client cache across runs', () => {
  it('every run passes the same way (exit 0, one variant passed)', () => {
    for (const r of runs) {
      expect(r.out.code, r.out.stderr).toBe(0);
      expect(r.results.cells.map((c) => [c.id, c.verdict])).toEqual([['latest-1~client-latest-2', 'passed']]);
    }
  });

  it('the first run installs the client into the cache; the second reuses that entry, with the same lockfile', () => {
    const [first, second] = runs.map((r) => r.results.cells[0]!.clientInstall);
    expect(first).toMatchObject({ source: 'installed', lockfileSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // Named relative to the cache: no user path in the evidence.
    expect(first!.cacheEntry).toMatch(/^@modelcontextprotocol\+client@[^/]+-[0-9a-f]{12}\/[^/]+$/);
    expect(second).toEqual({ ...first, source: 'cache' });
    // The entry outlives the runs that used it; each run's own directory is gone.
    expect(existsSync(path.join(cache, first!.cacheEntry!, 'node_modules', '@modelcontextprotocol', 'client', 'package.json'))).toBe(true);
  });

  it('with MCP_MATRIX_CLIENT_CACHE=off the run installs a client of its own and leaves the cache as it was', async () => {
    const off = runs[2]!.results.cells[0]!.clientInstall;
    expect(off).toMatchObject({ source: 'run', lockfileSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(off!.cacheEntry).toBeUndefined();
    const keys = await readdir(cache);
    expect(keys).toHaveLength(1);
    expect(keys.map((k) => `${k}/`)).toEqual([runs[0]!.results.cells[0]!.clientInstall!.cacheEntry!.replace(/[^/]+$/, '')]);
    expect(await readdir(path.join(cache, keys[0]!))).toEqual([path.basename(runs[0]!.results.cells[0]!.clientInstall!.cacheEntry!)]);
  });
});

describe('a damaged client cache heals and never stops a run', () => {
  // After the runs above were checked: these change the cache they left.
  beforeAll(async () => {
    // The module the driver loads first, deleted from the entry the first two runs used.
    const entry = path.join(cache, runs[0]!.results.cells[0]!.clientInstall!.cacheEntry!);
    const deleted = path.join(entry, 'node_modules', '@modelcontextprotocol', 'client', 'dist', 'index.mjs');
    await rm(deleted);
    damaged = { ...(await run('damaged', cache)), deleted };
    const ro = await readOnlyDir();
    if (ro) {
      const roCache = path.join(ro.dir, 'mcp-matrix', 'clients');
      readOnly = { ...(await run('read-only', roCache)), ro, cache: roCache };
    }
  }, 600_000);

  it('a file deleted from the cached entry: found before use, the client installed again, the run passes and says so', () => {
    expect(damaged.out.code, damaged.out.stderr).toBe(0);
    expect(damaged.results.cells.map((c) => [c.id, c.verdict])).toEqual([['latest-1~client-latest-2', 'passed']]);
    const ref = damaged.results.cells[0]!.clientInstall!;
    expect(ref.source).toBe('installed');
    const old = runs[0]!.results.cells[0]!.clientInstall!.cacheEntry!;
    expect(ref.cacheEntry).not.toBe(old);
    const warning = `the client cache entry ${old} in ${cache} was damaged (node_modules/@modelcontextprotocol/client/dist/index.mjs is missing): it was removed, and ${ref.cacheEntry!.split('@')[0]!.replace('+', '/')}@`;
    expect(damaged.results.warnings).toEqual([expect.stringContaining(warning)]);
    expect(damaged.out.stderr).toContain(`warning: ${warning}`);
    expect(existsSync(damaged.deleted)).toBe(false);
    expect(existsSync(path.join(cache, ref.cacheEntry!, 'node_modules', '@modelcontextprotocol', 'client', 'dist', 'index.mjs'))).toBe(
      true,
    );
  });

  it('a cache on a read-only file system: the client is installed into the run, the run passes, one warning names the cause', () => {
    expect(readOnly, 'this machine can make no read-only directory (root without mount)').toBeDefined();
    const { out, results, ro, cache: roCache } = readOnly!;
    expect(out.code, out.stderr).toBe(0);
    expect(results.cells.map((c) => [c.id, c.verdict])).toEqual([['latest-1~client-latest-2', 'passed']]);
    expect(results.cells[0]!.clientInstall!.source).toBe('run');
    const cause = ro.code === 'EROFS' ? 'the file system is read-only (EROFS)' : 'permission denied (EACCES)';
    expect(results.warnings).toEqual([expect.stringContaining(`the client cache ${roCache} cannot be written: ${cause}: `)]);
    expect(results.warnings[0]).toMatch(
      /; the harness's tools \(clients, the conformance suite\) are installed into the run's own directory instead$/,
    );
    expect(out.stderr.match(/warning: the client cache/g)).toHaveLength(1);
    expect(out.stderr).not.toContain('ENOENT');
  });
});
