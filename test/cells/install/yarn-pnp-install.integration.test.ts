// The yarn-pnp leg on real parts: npm-packed fixtures installed by real Yarn Berry (pinned, from the registry,
// through the client cache) with Plug'n'Play, beside SDK 1.32.2; the bin started as `yarn run` starts it. PnP refuses
// the bin's own undeclared import and the one inside a dependency; the cause is named either way.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installYarnPnp, npmCaForYarn } from '../../../src/cells/install/yarn-pnp-install.js';
import { createCellDir } from '../../../src/cells/install/workspace.js';
import { explainMissing } from '../../../src/judge/environment/missing-import.js';
import { verifyPnpEnvironment } from '../../../src/judge/environment/pnp-environment.js';
import { ROOT, npmPack, removeDir, tempDir } from '../../driver/helpers/cell.js';
import { phaseBench, type PhaseBench } from '../../driver/helpers/phase-bench.js';
import { TEST_CACHE_ENV } from '../../helpers/node-runtimes.js';
import { expectDependencyCause, initializeBin, stdioOnBin } from '../../helpers/start-bin.js';

const SDK = { '@modelcontextprotocol/sdk': '1.32.2' };
let work: string | undefined;
let bench: PhaseBench | undefined;
const cells: Record<string, { dir: string; tarball: string; install: Awaited<ReturnType<typeof installYarnPnp>> }> = {};

beforeAll(async () => {
  work = tempDir('mm-yarn-pnp-leg-');
  for (const [name, fixture] of [
    ['broken-base', 'fixtures/broken/_base'],
    ['broken-undeclared-import', 'fixtures/broken/undeclared-import'],
    ['broken-dependency-undeclared-import', 'fixtures/broken/dependency-undeclared-import'],
  ] as const) {
    const tarball = await npmPack(join(ROOT, fixture), work);
    const dir = await createCellDir(work, name, name, tarball, SDK);
    const env = { ...process.env, ...TEST_CACHE_ENV };
    cells[name] = { dir, tarball, install: await installYarnPnp(dir, name, { attempts: 2, timeoutMs: 240_000, runDir: work, env }) };
  }
  bench = await phaseBench('mm-yarn-pnp-leg-stdio-');
}, 600_000);
afterAll(async () => {
  await bench?.dispose();
  removeDir(work);
});

/** The bin run as `yarn run` runs it (node with PnP's hooks in NODE_OPTIONS), sent initialize. */
const start = (cell: string, bin: string) => {
  const { dir, install } = cells[cell]!;
  return initializeBin(join(install.layout!.packageDir, bin), {
    cwd: dir,
    env: { PATH: process.env.PATH, NODE_OPTIONS: install.layout!.nodeOptions },
  });
};

/** The environment's static half of the correct server's cell, against `sha512` as the packed tarball's. */
const verify = (sha512: string, size: number) => {
  const cell = cells['broken-base']!;
  return verifyPnpEnvironment({
    cellDir: cell.dir,
    packageName: 'broken-base',
    primary: '@modelcontextprotocol/sdk',
    version: '1.32.2',
    installSet: SDK,
    sdkNames: ['@modelcontextprotocol/sdk'],
    tarball: { file: cell.tarball, size, sha512 },
    harnessVersion: '0',
    npmVersion: '0',
    install: { durationMs: 1, attempts: 1 },
    layout: cell.install.layout!,
  });
};

describe('the yarn-pnp leg', () => {
  it('installs the same tarball and pins with PnP: no node_modules, the package unplugged, the pins resolved', () => {
    for (const [name, cell] of Object.entries(cells)) {
      expect(cell.install.install, name).toMatchObject({ kind: 'installed' });
      expect(cell.install.source).toMatchObject({ source: 'yarn-pnp', yarn: '4.18.1' });
      expect(existsSync(join(cell.dir, 'node_modules'))).toBe(false);
      const layout = cell.install.layout!;
      expect(layout.packageDir).toContain('/.yarn/unplugged/');
      expect(existsSync(join(layout.packageDir, 'package.json'))).toBe(true);
      expect(layout.top['@modelcontextprotocol/sdk']).toMatchObject({ version: '1.32.2' });
      expect(layout.nodeOptions).toContain(`--require ${join(cell.dir, '.pnp.cjs')}`);
    }
  });

  it("the environment's static half reads PnP's layout: the tarball (yarn.lock's hash), the pin, one SDK copy", async () => {
    const bytes = readFileSync(cells['broken-base']!.tarball);
    const verified = await verify(`sha512-${createHash('sha512').update(bytes).digest('base64')}`, bytes.length);
    expect(verified.result).toMatchObject({ verdict: 'passed', details: { sdk: ['@modelcontextprotocol/sdk@1.32.2'] } });
    expect(verified.evidence.package).toEqual({ name: 'broken-base', version: '1.0.0' });
    // Another tarball is not the one Yarn installed.
    const other = await verify(`sha512-${createHash('sha512').update('other').digest('base64')}`, 1);
    expect(other.result.message).toMatch(/is not the packed tarball: yarn\.lock's hash [0-9a-f]{6} ≠ tarball sha512/);
  });

  it('the correct server (zod declared) answers initialize', async () => {
    const out = await start('broken-base', 'bin/server.js');
    expect(out.stdout).toContain('"result"');
  });

  it('the server whose bin imports zod undeclared cannot start; the cause names the import, the file and the package', async () => {
    const out = await start('broken-undeclared-import', 'bin/server.js');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("broken-undeclared-import tried to access zod, but it isn't declared in its dependencies");
    const explained = await explainMissing(
      { phase: 'stdio', verdict: 'failed', durationMs: 1, message: 'initialize: server exited (code 1)', stderrTail: out.stderr },
      'broken-undeclared-import',
    );
    expect(explained.message).toBe(
      "initialize: server exited (code 1): cannot find zod, imported by bin/server.js of broken-undeclared-import@1.0.0, which does not declare it in dependencies, peerDependencies or optionalDependencies: the package's own undeclared import, which npm's flat node_modules hides; declare it",
    );
  });

  it("the server whose dependency imports zod undeclared: stdio fails, naming the dependency's file and version, not the package", async () => {
    const name = 'broken-dependency-undeclared-import';
    const { dir, install } = cells[name]!;
    const layout = install.layout!;
    const bin = join(layout.packageDir, 'bin/server.js');
    const stdio = await stdioOnBin(bench!, { cellDir: dir, packageDir: layout.packageDir, bin }, { NODE_OPTIONS: layout.nodeOptions });
    expect(stdio).toMatchObject({ phase: 'stdio', verdict: 'failed', step: 'initialize' });
    expect(stdio.stderrTail).toContain("mini-tool-schemas tried to access zod, but it isn't declared in its dependencies");
    // As run-cell.ts judges a failed phase: the cause joins the message, the version from the cell's layout
    // (PnP names this dependency by its `file:` reference, and its manifest is in a zip).
    const explained = await explainMissing(stdio, name, [], layout.all);
    expectDependencyCause(explained);
  });
});

describe("npm's cafile for Yarn", () => {
  it("hands npm's configured CA file to Yarn; none when npm has none, the file is gone, or the caller set Yarn's own", async () => {
    const ca = join(work!, 'ca.pem');
    writeFileSync(ca, '');
    // npm's user and global config files out of the way: only what the test gives.
    const env = (extra: Record<string, string>) => ({
      PATH: process.env.PATH,
      HOME: work!,
      npm_config_userconfig: join(work!, 'no-user-npmrc'),
      npm_config_globalconfig: join(work!, 'no-global-npmrc'),
      ...extra,
    });
    await expect(npmCaForYarn(work!, env({ npm_config_cafile: ca }))).resolves.toEqual({ YARN_HTTPS_CA_FILE_PATH: ca });
    // (npm run and npx hand their own config down as npm_config_*: cleared here.)
    await expect(npmCaForYarn(work!, env({ npm_config_cafile: '' }))).resolves.toEqual({});
    await expect(npmCaForYarn(work!, env({ npm_config_cafile: join(work!, 'gone.pem') }))).resolves.toEqual({});
    await expect(npmCaForYarn(work!, env({ npm_config_cafile: ca, YARN_HTTPS_CA_FILE_PATH: '/x.pem' }))).resolves.toEqual({});
  });
});
