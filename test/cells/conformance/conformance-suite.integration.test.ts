// The conformance suite as the phase gets it: a registry that refuses is infrastructure (the phase is then
// not-measured, never failed) and leaves nothing in the cache; a real install is discovered from the suite.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COMPILE_CACHE,
  compileCacheIn,
  CONFORMANCE_VERSION,
  ensureConformanceSuite,
  LIST_RECORD,
} from '../../../src/cells/conformance/conformance-suite.js';
import { TEST_CLIENT_CACHE, TEST_NODE_CACHE } from '../../helpers/node-runtimes.js';
import { refusedPort } from '../../helpers/refused-port.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const temp = async (): Promise<string> => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'mm-conformance-'));
  dirs.push(d);
  return d;
};

describe('the conformance suite install', () => {
  it('a registry that refuses connections: infrastructure, naming the cause; no entry left in the cache', async () => {
    // Refused for the whole install: a port bound and closed again could be another test file's listen(0) meanwhile.
    const port = await refusedPort();
    const saved = { ...process.env };
    Object.assign(process.env, {
      npm_config_registry: `http://127.0.0.1:${port}/`,
      npm_config_cache: await temp(),
      npm_config_fetch_retries: '0',
    });
    try {
      const cacheDir = await temp();
      const r = await ensureConformanceSuite({
        runDir: await temp(),
        cacheDir,
        attempts: 1,
        timeoutMs: 60_000,
        nodeCacheDir: TEST_NODE_CACHE,
      });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.kind).toBe('infrastructure');
      expect(r.error.message).toMatch(
        new RegExp(
          `^the conformance suite @modelcontextprotocol/conformance@${CONFORMANCE_VERSION.replace(/\./g, '\\.')} could not be installed into the client cache .*ECONNREFUSED`,
        ),
      );
      const [key] = await readdir(cacheDir);
      expect(await readdir(path.join(cacheDir, key!))).toEqual([]);
    } finally {
      process.env = saved;
    }
  });

  it('installed once per machine, then reused from the cache; scenarios read from the suite itself', async () => {
    const first = await ensureConformanceSuite({
      runDir: await temp(),
      cacheDir: TEST_CLIENT_CACHE,
      attempts: 2,
      timeoutMs: 300_000,
      nodeCacheDir: TEST_NODE_CACHE,
    });
    expect(first.ok).toBe(true);
    const again = await ensureConformanceSuite({
      runDir: await temp(),
      cacheDir: TEST_CLIENT_CACHE,
      attempts: 2,
      timeoutMs: 300_000,
      nodeCacheDir: TEST_NODE_CACHE,
    });
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value.source).toBe('cache');
    expect(Number(again.value.nodeVersion.split('.')[0])).toBeGreaterThanOrEqual(22);
    const run = again.value.catalogue.run.map((s) => s.name);
    expect(run).toEqual(expect.arrayContaining(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']));
    expect(run).not.toContain('tools-call-simple-text');
    expect(again.value.catalogue.excluded).toEqual(
      expect.arrayContaining([{ name: 'tools-call-simple-text', why: "needs the suite's fixture test_simple_text" }]),
    );
    // The suite's Node keeps what it compiles in the entry: filled by a run of the suite (one directory per Node
    // version, V8 flags and user), which prints the same with it as without it.
    const entry = again.value.cli.split(`${path.sep}node_modules${path.sep}`)[0]!;
    expect(again.value.compileCache).toBe(path.join(entry, COMPILE_CACHE));
    const list = (env: Record<string, string>) =>
      execFileSync(again.value.node, [again.value.cli, 'list', '--server'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
      });
    const plain = list({});
    expect(list({ NODE_COMPILE_CACHE: again.value.compileCache! })).toBe(plain);
    expect(list({ NODE_COMPILE_CACHE: again.value.compileCache! })).toBe(plain);
    const [tag] = await readdir(again.value.compileCache!);
    expect(tag).toMatch(new RegExp(`^v${again.value.nodeVersion.replace(/\./g, '\\.')}-`));
    expect((await readdir(path.join(again.value.compileCache!, tag!))).length).toBeGreaterThan(10);
  });

  it('the compile cache is made in the entry, or left out where it cannot be (the suite then compiles as before)', async () => {
    const entry = await temp();
    expect(await compileCacheIn(entry)).toBe(path.join(entry, COMPILE_CACHE));
    expect(await compileCacheIn(entry)).toBe(path.join(entry, COMPILE_CACHE));
    const blocked = await temp();
    await writeFile(path.join(blocked, COMPILE_CACHE), 'a file in the way');
    expect(await compileCacheIn(blocked)).toBeUndefined();
    expect(await compileCacheIn(path.join(blocked, 'no-such-entry'))).toBeUndefined();
    // A file system where mkdir answers ENOENT under an existing parent: a recursive mkdir spins there, this one returns.
    if (process.platform === 'linux') expect(await compileCacheIn('/proc/no-such-entry')).toBeUndefined();
  });

  it('a new entry records what `conformance list --server` printed and on which Node; a run on that Node reads it back and starts no list process', async () => {
    // A cache of its own: the shared one may hold an entry stored before the record existed.
    const cacheDir = await temp();
    const first = await ensureConformanceSuite({
      runDir: await temp(),
      cacheDir,
      attempts: 2,
      timeoutMs: 300_000,
      nodeCacheDir: TEST_NODE_CACHE,
    });
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.source).toBe('installed');
    const entry = first.value.cli.split(`${path.sep}node_modules${path.sep}`)[0]!;
    const record = JSON.parse(await readFile(path.join(entry, LIST_RECORD), 'utf8')) as { node: string; stdout: string };
    expect(record.node).toBe(first.value.nodeVersion);
    expect(record.stdout).toMatch(/^\s+- server-initialize/m);

    // The same Node's version at a path where nothing runs: the catalogue can only come from the record.
    const host = (version: string) => ({ version: `v${version}`, execPath: path.join(entry, 'no-such-node') });
    const again = await ensureConformanceSuite({
      runDir: await temp(),
      cacheDir,
      attempts: 1,
      timeoutMs: 60_000,
      host: host(first.value.nodeVersion),
    });
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value.source).toBe('cache');
    expect(again.value.catalogue).toEqual(first.value.catalogue);

    // Another Node: the record is not its answer, so the suite is asked (and here cannot be).
    const other = await ensureConformanceSuite({ runDir: await temp(), cacheDir, attempts: 1, timeoutMs: 60_000, host: host('99.0.0') });
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error.message).toMatch(/scenarios could not be read: conformance list --server/);

    // The record is one of the entry's files: an edit is damage, and the entry is replaced (the list asked again).
    await writeFile(path.join(entry, LIST_RECORD), JSON.stringify({ ...record, stdout: `${record.stdout}  - made-up-scenario\n` }));
    const healed = await ensureConformanceSuite({
      runDir: await temp(),
      cacheDir,
      attempts: 2,
      timeoutMs: 300_000,
      nodeCacheDir: TEST_NODE_CACHE,
    });
    if (!healed.ok) throw new Error(healed.error.message);
    expect(healed.value.source).toBe('installed');
    expect(healed.value.cacheNotes.map((n) => n.message).join('\n')).toMatch(/was damaged/);
    expect(healed.value.catalogue).toEqual(first.value.catalogue);
  });
});
