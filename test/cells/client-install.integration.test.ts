// A client installed apart from any server, for real: the exact client package, the driver shipped into it
// (so the driver's bare imports resolve to that client), a client that cannot be installed named as such, and
// the per-user client cache: the first run installs an entry, the next one reuses it without npm.
import { existsSync, realpathSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientKey } from '../../src/cells/client-cache.js';
import { clientDir, installClient } from '../../src/cells/client-install.js';
import type { PlannedClient } from '../../src/plan/clients.js';
import { tempDir } from '../e2e/helpers/cli.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const client = (version: string): PlannedClient => ({
  id: `client-${version}`,
  pin: version,
  major: 1,
  version,
  package: '@modelcontextprotocol/sdk',
  installSet: { '@modelcontextprotocol/sdk': version },
});

describe('installClient', () => {
  it('cache off: installs the client under <runDir>/clients/<id>/ with the driver in it, resolving that client', async () => {
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    const r = await installClient(runDir, client('1.0.0'), { attempts: 2, timeoutMs: 240_000, cacheDir: undefined });
    expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
    if (!r.ok) return;
    expect(r.value.dir).toBe(clientDir(runDir, { id: 'client-1.0.0' }));
    expect(r.value.dir).toBe(path.join(runDir, 'clients', 'client-1.0.0'));
    // Shipped from the harness's driver program (its manifest makes its files ES modules there).
    const driverDir = path.dirname(r.value.driver.entry);
    expect(driverDir).toBe(path.join(r.value.dir, '.mcp-matrix', 'driver'));
    expect(existsSync(path.join(driverDir, 'package.json'))).toBe(true);
    // What a bare import from the shipped driver resolves to: the client's install, at the pinned version.
    const fromDriver = createRequire(r.value.driver.entry);
    const own = path.join(r.value.dir, 'node_modules', '@modelcontextprotocol', 'sdk');
    expect(fromDriver.resolve('@modelcontextprotocol/sdk/client/index.js').startsWith(own + path.sep)).toBe(true);
    expect(JSON.parse(await readFile(path.join(own, 'package.json'), 'utf8')).version).toBe('1.0.0');
    expect(r.value.ref).toMatchObject({ source: 'run', lockfileSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(r.value.ref.cacheEntry).toBeUndefined();
  }, 300_000);

  it('with a cache: the first run installs an entry, the next run reuses it (no npm), and its driver resolves that entry', async () => {
    const [cache, run1, run2] = await Promise.all([
      tempDir('mm-client-cache-'),
      tempDir('mm-client-install-'),
      tempDir('mm-client-install-'),
    ]);
    dirs.push(cache, run1, run2);
    // The run's install slots: an npm install takes one, a cache hit none.
    let slots = 0;
    const slot = <T>(task: () => Promise<T>): Promise<T> => (slots++, task());
    const first = await installClient(run1, client('1.0.0'), { attempts: 2, timeoutMs: 240_000, cacheDir: cache, slot });
    expect(first.ok, first.ok ? '' : first.error.message).toBe(true);
    if (!first.ok) return;
    expect(first.value.ref.source).toBe('installed');
    expect(first.value.attempts).toBe(1);
    expect(first.value.ref.cacheEntry).toMatch(/^@modelcontextprotocol\+sdk@1\.0\.0-[0-9a-f]{12}\/[^/]+$/);
    const entry = path.join(cache, first.value.ref.cacheEntry!);
    expect(path.dirname(entry)).toBe(
      path.join(
        cache,
        clientKey({ package: '@modelcontextprotocol/sdk', version: '1.0.0', installSet: { '@modelcontextprotocol/sdk': '1.0.0' } }),
      ),
    );
    expect(slots).toBe(1);
    const second = await installClient(run2, client('1.0.0'), { attempts: 2, timeoutMs: 240_000, cacheDir: cache, slot });
    expect(slots).toBe(1);
    expect(second.ok, second.ok ? '' : second.error.message).toBe(true);
    if (!second.ok) return;
    // Reused: same entry and lockfile, no npm run (0 attempts).
    expect(second.value.ref).toEqual({ ...first.value.ref, source: 'cache' });
    expect(second.value.attempts).toBe(0);
    expect(second.value.dir).toBe(path.join(run2, 'clients', 'client-1.0.0'));
    // The run's driver resolves the client in the entry (through the run's node_modules link), at the pinned version.
    const resolved = createRequire(second.value.driver.entry).resolve('@modelcontextprotocol/sdk/client/index.js');
    expect(resolved.startsWith(realpathSync(path.join(entry, 'node_modules', '@modelcontextprotocol', 'sdk')) + path.sep)).toBe(true);
    expect(path.dirname(second.value.driver.entry)).toBe(path.join(run2, 'clients', 'client-1.0.0', '.mcp-matrix', 'driver'));
    // Removing a run's directory leaves the entry whole.
    await rm(run1, { recursive: true, force: true });
    expect(existsSync(path.join(entry, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'))).toBe(true);
  }, 300_000);

  it('a client that cannot be installed is infrastructure, naming the client, its directory and npm’s code', async () => {
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    const r = await installClient(runDir, client('1.0.999'), { attempts: 1, timeoutMs: 240_000, cacheDir: undefined });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('infrastructure');
    expect(r.error.message).toMatch(
      new RegExp(
        `^the client @modelcontextprotocol/sdk@1\\.0\\.999 \\(1\\.0\\.999\\) could not be installed into ${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/clients/client-1\\.0\\.999: npm install \\(ETARGET\\)`,
      ),
    );
  }, 300_000);

  it('with a cache: a client that cannot be installed names the cache, and leaves no entry or partial in it', async () => {
    const [cache, runDir] = await Promise.all([tempDir('mm-client-cache-'), tempDir('mm-client-install-')]);
    dirs.push(cache, runDir);
    const r = await installClient(runDir, client('1.0.999'), { attempts: 1, timeoutMs: 240_000, cacheDir: cache });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('infrastructure');
    expect(r.error.message).toMatch(
      new RegExp(
        `^the client @modelcontextprotocol/sdk@1\\.0\\.999 \\(1\\.0\\.999\\) could not be installed into the client cache ${cache.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: npm install \\(ETARGET\\)`,
      ),
    );
    const keyDir = path.join(
      cache,
      clientKey({ package: '@modelcontextprotocol/sdk', version: '1.0.999', installSet: { '@modelcontextprotocol/sdk': '1.0.999' } }),
    );
    expect(await readdir(keyDir)).toEqual([]);
  }, 300_000);
});
