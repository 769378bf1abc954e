// A variant's Node for real: the driver forked on a downloaded runtime (execPath), PATH starting with
// its bin dir; a Node-script server and a shell wrapper that runs `node` both report that release.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDriver } from '../../../src/cells/driver-launch.js';
import { ensureNodeRuntime, withRuntimePath, type NodeRuntime } from '../../../src/cells/runtime/node-runtime.js';
import { resolveNodeSpec } from '../../../src/plan/node-versions.js';
import { createRegistry } from '../../../src/plan/registry.js';
import type { SdkRuntime } from '../../../src/results/types.js';
import { baseSpec, buildDriver, makeCell, removeDir, tempDir, testServerPhases, type Cell } from '../../driver/helpers/cell.js';
import { TEST_NODE_CACHE } from '../../helpers/node-runtimes.js';

let work: string;
let cell: Cell;
let runtime: NodeRuntime;

beforeAll(async () => {
  work = tempDir('mm-node-launch-');
  const hostMajor = Number(process.versions.node.split('.')[0]);
  const planned = await resolveNodeSpec(hostMajor === 22 ? 24 : 22, createRegistry());
  if (!planned.ok) throw new Error(planned.error.message);
  const [build, r] = await Promise.all([buildDriver(join(work, 'build')), ensureNodeRuntime(planned.value, { cacheDir: TEST_NODE_CACHE })]);
  if (!r.ok) throw new Error(r.error.message);
  runtime = r.value;
  cell = await makeCell(1, build);
}, 600_000);

afterAll(() => {
  removeDir(cell?.dir);
  removeDir(work);
});

async function stdioOn(bin?: string, compileCacheDir?: string): Promise<SdkRuntime[]> {
  const phases = testServerPhases(cell);
  const stdio = phases.stdio && { ...phases.stdio, ...(bin ? { command: { ...phases.stdio.command, bin } } : {}) };
  const base = baseSpec(cell, join(cell.dir, 'pkg'), { stdio, http: false, bind: false, leaks: false });
  const spec = { ...base, baseEnv: withRuntimePath(base.baseEnv, runtime) };
  const layout = {
    dir: join(cell.dir, '.mcp-matrix'),
    entry: join(cell.driver, 'index.js'),
    probe: spec.probe,
    log: join(work, 'driver.log'),
  };
  const outcome = await runDriver(layout, spec, {
    timeoutMs: 120_000,
    env: withRuntimePath({ PATH: process.env.PATH ?? '' }, runtime),
    execPath: runtime.execPath,
    ...(compileCacheDir ? { compileCacheDir } : {}),
  });
  expect(outcome.kind).toBe('done');
  const result = outcome.results.find((r) => r.phase === 'stdio');
  expect(result?.verdict).toBe('passed');
  return result?.details?.sdkRuntime as SdkRuntime[];
}

describe('a variant on a downloaded Node runtime', () => {
  it('the driver and a Node-script server run on it', async () => {
    expect(runtime.source).not.toBe('host');
    const [seen] = await stdioOn();
    expect(seen).toMatchObject({ server: 'stdio', probe: true, nodeBin: true, node: `v${runtime.version}` });
    expect(seen!.node).not.toBe(process.version);
  });

  it('a wrapper that runs `node` finds the runtime first on PATH', async () => {
    const wrapper = join(cell.dir, 'pkg/wrapper.sh');
    writeFileSync(wrapper, '#!/bin/sh\nexec node "$(dirname "$0")/server.mjs" "$@"\n', { mode: 0o755 });
    const [seen] = await stdioOn(wrapper);
    expect(seen).toMatchObject({ server: 'stdio', probe: true, nodeBin: false, node: `v${runtime.version}` });
  });

  it('the driver compiles through the compile cache it is given; its server never sees it', async () => {
    const cache = join(work, 'compile-cache');
    const seenEnv = join(work, 'server-env.txt');
    const wrapper = join(cell.dir, 'pkg/env-wrapper.sh');
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho "cache=\${NODE_COMPILE_CACHE-unset}" > '${seenEnv}'\nexec node "$(dirname "$0")/server.mjs" "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const [seen] = await stdioOn(wrapper, cache);
    expect(seen).toMatchObject({ server: 'stdio', probe: true, node: `v${runtime.version}` });
    // This runtime is 22 or 24: it wrote the driver's code cache (one folder per Node build).
    expect(readdirSync(cache).length).toBeGreaterThan(0);
    expect(readFileSync(seenEnv, 'utf8').trim()).toBe('cache=unset');
  });
});

describe('withRuntimePath', () => {
  it('puts the bin dir first, keeping the rest and the key’s spelling', () => {
    expect(withRuntimePath({ PATH: '/usr/bin', HOME: '/h' }, { binDir: '/rt/bin' })).toEqual({ PATH: '/rt/bin:/usr/bin', HOME: '/h' });
    expect(withRuntimePath({ Path: 'C:\\x' }, { binDir: '/rt/bin' })).toEqual({ Path: '/rt/bin:C:\\x' });
    expect(withRuntimePath({}, { binDir: '/rt/bin' })).toEqual({ PATH: '/rt/bin' });
  });
});
