// The strict leg on real parts: npm-packed fixtures installed by real pnpm (pinned, from the registry, through the
// client cache) with hoist=false, beside SDK 1.32.2; the bin started as the driver starts it. The correct server
// answers initialize; the one whose bin imports zod undeclared, and the one whose dependency does, cannot start, and
// the cause is named (the package's own import; the dependency's, with its version).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installStrict } from '../../../src/cells/install/strict-install.js';
import { createCellDir } from '../../../src/cells/install/workspace.js';
import { explainMissing } from '../../../src/judge/environment/missing-import.js';
import { ROOT, npmPack, removeDir, tempDir } from '../../driver/helpers/cell.js';
import { phaseBench, type PhaseBench } from '../../driver/helpers/phase-bench.js';
import { TEST_CACHE_ENV } from '../../helpers/node-runtimes.js';
import { expectDependencyCause, initializeBin, stdioOnBin } from '../../helpers/start-bin.js';

const SDK = { '@modelcontextprotocol/sdk': '1.32.2' };
let work: string | undefined;
let bench: PhaseBench | undefined;
const cells: Record<string, { dir: string; tarball: string; install: Awaited<ReturnType<typeof installStrict>> }> = {};

beforeAll(async () => {
  work = tempDir('mm-strict-leg-');
  // One pnpm (the client cache) and one store for both cells: the second install comes from the store.
  for (const [name, fixture] of [
    ['broken-base', 'fixtures/broken/_base'],
    ['broken-undeclared-import', 'fixtures/broken/undeclared-import'],
    ['broken-dependency-undeclared-import', 'fixtures/broken/dependency-undeclared-import'],
  ] as const) {
    const tarball = await npmPack(join(ROOT, fixture), work);
    const dir = await createCellDir(work, name, name, tarball, SDK);
    const env = { ...process.env, ...TEST_CACHE_ENV };
    cells[name] = { dir, tarball, install: await installStrict(dir, { attempts: 2, timeoutMs: 240_000, runDir: work, env }) };
  }
  bench = await phaseBench('mm-strict-leg-stdio-');
}, 600_000);
afterAll(async () => {
  await bench?.dispose();
  removeDir(work);
});

/** The bin run as the driver runs it (node, the package's bin file), sent initialize. */
const start = (cell: string, bin: string) => initializeBin(join(cells[cell]!.dir, 'node_modules', cell, bin));

describe('the pnpm-strict leg', () => {
  it('installs the same tarball and pins with hoist=false: the lockfile holds the tarball, nothing undeclared is reachable at the top', async () => {
    for (const [name, cell] of Object.entries(cells)) {
      expect(cell.install.install, name).toMatchObject({ kind: 'installed' });
      expect(cell.install.source).toMatchObject({ source: 'pnpm-strict', pnpm: '10.34.9' });
      const sha512 = `sha512-${createHash('sha512').update(readFileSync(cell.tarball)).digest('base64')}`;
      // pnpm installed exactly these bytes: its lockfile records the tarball's integrity (environment reads it so).
      expect(readFileSync(join(cell.dir, 'pnpm-lock.yaml'), 'utf8')).toContain(`integrity: ${sha512}`);
      // zod arrives through the SDK; strict: neither at the top nor in pnpm's hidden hoisted folder.
      expect(existsSync(join(cell.dir, 'node_modules/zod'))).toBe(false);
      expect(existsSync(join(cell.dir, 'node_modules/.pnpm/node_modules/zod'))).toBe(false);
      expect(existsSync(join(cell.dir, 'node_modules/@modelcontextprotocol/sdk/package.json'))).toBe(true);
    }
  });

  it('the correct server (zod declared) answers initialize', async () => {
    const out = await start('broken-base', 'bin/server.js');
    expect(out.stdout).toContain('"result"');
  });

  it('the server whose bin imports zod undeclared cannot start; the cause names the import, the file and the package', async () => {
    const out = await start('broken-undeclared-import', 'bin/server.js');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('ERR_MODULE_NOT_FOUND');
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
    const packageDir = join(cells[name]!.dir, 'node_modules', name);
    const stdio = await stdioOnBin(bench!, { cellDir: cells[name]!.dir, packageDir, bin: join(packageDir, 'bin/server.js') });
    expect(stdio).toMatchObject({ phase: 'stdio', verdict: 'failed', step: 'initialize' });
    expect(stdio.stderrTail).toContain("Cannot find package 'zod' imported from");
    // As run-cell.ts judges a failed phase: the cause joins the message.
    const explained = await explainMissing(stdio, name);
    expectDependencyCause(explained);
  });

  it('a package with a `file:` dependency cannot be installed by pnpm (it resolves the path from the project): failed, once', async () => {
    const tarball = await npmPack(join(ROOT, 'fixtures/broken/sdk-through-framework'), work!);
    const dir = await createCellDir(work!, 'file-dependency', 'broken-sdk-through-framework', tarball, SDK);
    const env = { ...process.env, ...TEST_CACHE_ENV };
    const { install } = await installStrict(dir, { attempts: 2, timeoutMs: 240_000, runDir: work!, env });
    expect(install).toMatchObject({ kind: 'failed', attempts: 1, code: 'ERR_PNPM_LINKED_PKG_DIR_NOT_FOUND' });
    expect(install.kind === 'failed' && install.message).toContain(`Could not install from "${join(dir, 'framework')}"`);
  });
});
