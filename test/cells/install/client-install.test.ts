// Two clients of one install set (pins `latest@1` and `1.32.2` resolving to the same version) asked at once in
// a run share one install into the client cache. npm is faked (it writes what an install leaves: package.json's
// dependency and a lockfile); the cache's look-up, store and checks are the real ones, in a temporary dir.
import { mkdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { CachedToolInstall } from '../../../src/cache/cached-tool.js';
import type { PlannedClient } from '../../../src/plan/clients.js';
import { tempDir } from '../../helpers/temp-dir.js';

const npm = vi.hoisted(() => ({ calls: [] as string[], gate: Promise.resolve(), started: () => {} }));

vi.mock('../../../src/npm/install.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/npm/install.js')>()),
  installManifest: async (dir: string, manifest: { dependencies: Record<string, string> }) => {
    npm.calls.push(dir);
    npm.started();
    await npm.gate;
    const [[name, version]] = Object.entries(manifest.dependencies) as [[string, string]];
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
    await mkdir(path.join(dir, 'node_modules', name), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
    const lock = { lockfileVersion: 3, packages: { '': {}, [`node_modules/${name}`]: { version } } };
    await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
    return { kind: 'installed', attempts: 1, durationMs: 1 };
  },
}));
// The driver's copy is not this test's subject (and needs a build).
vi.mock('../../../src/cells/driver-ship.js', () => ({
  installDriver: (dir: string) => Promise.resolve({ dir, entry: dir, probe: dir, log: dir }),
}));

const { installClient } = await import('../../../src/cells/install/client-install.js');

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const client = (pin: string): PlannedClient => ({
  id: `client-${pin}`,
  pin,
  major: 1,
  version: '1.32.2',
  package: '@modelcontextprotocol/sdk',
  installSet: { '@modelcontextprotocol/sdk': '1.32.2' },
});

/**
 * Both clients asked in one turn; npm held until `starts` installs have begun, so neither can finish (and be
 * found in the cache by the other) before the other has been asked and has looked.
 */
async function both(shared: Map<string, Promise<CachedToolInstall>> | undefined, starts: number) {
  const [runDir, cacheDir] = [await tempDir('mm-client-once-run-'), await tempDir('mm-client-once-cache-')];
  dirs.push(runDir, cacheDir);
  npm.calls = [];
  let open!: () => void;
  npm.gate = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (npm.started = () => npm.calls.length === starts && resolve()));
  const options = { attempts: 1, timeoutMs: 1000, cacheDir, ...(shared ? { shared } : {}) };
  const asked = [installClient(runDir, client('latest@1'), options), installClient(runDir, client('1.32.2'), options)];
  await started;
  open();
  return { results: await Promise.all(asked), cacheDir };
}

describe('installClient: one install per install set in a run', () => {
  it('two clients of one set asked at once: one npm install, both on the same cache entry', async () => {
    const { results, cacheDir } = await both(new Map(), 1);
    expect(npm.calls).toHaveLength(1);
    const [a, b] = results.map((r) => {
      expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
      return r.ok ? r.value : undefined;
    });
    expect(a!.dir).not.toBe(b!.dir);
    expect(a!.ref.cacheEntry).toBeDefined();
    expect(b!.ref.cacheEntry).toBe(a!.ref.cacheEntry);
    const entry = path.join(cacheDir, a!.ref.cacheEntry!, 'node_modules');
    expect(await readlink(path.join(a!.dir, 'node_modules'))).toBe(entry);
    expect(await readlink(path.join(b!.dir, 'node_modules'))).toBe(entry);
    const pkg = path.join(b!.dir, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json');
    expect(JSON.parse(await readFile(pkg, 'utf8'))).toMatchObject({ version: '1.32.2' });
  });

  it('without the run’s shared installs each client misses the cache and installs the same set', async () => {
    await both(undefined, 2);
    expect(npm.calls).toHaveLength(2);
  });
});
