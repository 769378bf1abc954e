// A package directory for plan tests: a package.json whose peer ranges take both SDK majors, and a config resolved
// there. Registers the directory's creation and removal in the calling file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig, type ResolvedConfig } from '../../src/config/resolve.js';

/** Both majors, lockstep off, one env value. */
export const CONFIG: MatrixConfig = { cells: [{ pin: 'latest@1' }, { pin: 'latest@2' }], lockstep: 'off', env: { TOKEN: 'one' } };

/** The directory for this file's tests; `resolved(config)` resolves a config as if it lived there. */
export function packageDir(): { resolved(config: MatrixConfig): ResolvedConfig } {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mm-plan-'));
    const manifest = {
      name: 'srv',
      version: '1.0.0',
      bin: { srv: 'srv.js' },
      peerDependencies: { '@modelcontextprotocol/sdk': '>=1.23.0', '@modelcontextprotocol/server': '^2.2.0' },
    };
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return { resolved: (config) => resolveConfig({ file: path.join(dir, 'matrix.config.ts'), dir, config }, {}, dir) };
}
