import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCellLock } from '../../../src/judge/environment/cell-lock.js';
import { verifyEnvironment as verifyNpm, type EnvironmentInput } from '../../../src/judge/environment/environment.js';
import { findSdkCopies, resolveFrom, sdkPackageNames } from '../../../src/judge/environment/sdk-tree.js';
import { DEFAULT_MAJORS } from '../../../src/config/resolve.js';

const SDK_NAMES = sdkPackageNames(DEFAULT_MAJORS);

/** The check as install-server.ts runs it: on the cell's package-lock.json as it is now. */
const verifyEnvironment = async (input: EnvironmentInput) => verifyNpm({ ...input, lock: await readCellLock(input.cellDir) });

// A cell laid out by hand: the environment phase only reads files, so this exercises every rule without npm.
let cell: string;
afterEach(async () => cell && rm(cell, { recursive: true, force: true }));

const SHA = `sha512-${createHash('sha512').update('tarball').digest('base64')}`;

async function pkg(dir: string, manifest: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
}

async function layout(
  options: {
    topSdk?: string;
    nestedSdk?: string;
    range?: string;
    integrity?: string;
    manifest?: Record<string, unknown>;
    files?: string[];
  } = {},
): Promise<EnvironmentInput> {
  cell = await mkdtemp(path.join(os.tmpdir(), 'env-test-'));
  const nm = path.join(cell, 'node_modules');
  await pkg(path.join(nm, 'srv'), {
    name: 'srv',
    version: '1.0.0',
    peerDependencies: { '@modelcontextprotocol/sdk': options.range ?? '>=1.23.0 <2' },
    ...options.manifest,
  });
  for (const file of options.files ?? []) {
    await mkdir(path.dirname(path.join(nm, 'srv', file)), { recursive: true });
    await writeFile(path.join(nm, 'srv', file), '');
  }
  await pkg(path.join(nm, '@modelcontextprotocol/sdk'), { name: '@modelcontextprotocol/sdk', version: options.topSdk ?? '1.24.0' });
  if (options.nestedSdk)
    await pkg(path.join(nm, 'srv/node_modules/@modelcontextprotocol/sdk'), {
      name: '@modelcontextprotocol/sdk',
      version: options.nestedSdk,
    });
  await writeFile(
    path.join(cell, 'package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/srv': { integrity: options.integrity ?? SHA } } }),
  );
  return {
    cellDir: cell,
    packageName: 'srv',
    primary: '@modelcontextprotocol/sdk',
    version: '1.24.0',
    installSet: { '@modelcontextprotocol/sdk': '1.24.0' },
    sdkNames: SDK_NAMES,
    tarball: { file: '/x/srv-1.0.0.tgz', size: 10, sha512: SHA },
    harnessVersion: '0.0.0',
    npmVersion: '11.0.0',
    install: { durationMs: 1, attempts: 1 },
  };
}

describe('verifyEnvironment', () => {
  it('passes a cell that holds exactly the pin and the tarball', async () => {
    const { result, evidence } = await verifyEnvironment(await layout());
    expect(result.verdict).toBe('passed');
    expect(evidence.sdkPackages).toEqual([
      { name: '@modelcontextprotocol/sdk', version: '1.24.0', path: 'node_modules/@modelcontextprotocol/sdk' },
    ]);
    expect(evidence.declaredRanges).toEqual({ '@modelcontextprotocol/sdk': '>=1.23.0 <2' });
    expect(evidence.lockfileSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the package, version and origin when the installed SDK differs from the pin', async () => {
    const { result } = await verifyEnvironment(await layout({ topSdk: '1.25.0' }));
    expect(result.verdict).toBe('failed');
    expect(result.message).toContain(
      '@modelcontextprotocol/sdk: installed 1.25.0 at node_modules/@modelcontextprotocol/sdk, pinned 1.24.0',
    );
  });

  it('fails when the package loads its own nested copy, and counts the duplicate', async () => {
    const { result } = await verifyEnvironment(await layout({ nestedSdk: '1.25.0' }));
    expect(result.message).toContain(
      '@modelcontextprotocol/sdk: the package loads 1.25.0 from node_modules/srv/node_modules/@modelcontextprotocol/sdk, not the pinned 1.24.0',
    );
    expect(result.message).toContain('@modelcontextprotocol/sdk is installed 2 times');
  });

  // Issue 32 item 3: a server built on a framework declares the SDK only through it (srv → fw → the SDK).
  describe('a range claimed through a dependency', () => {
    async function onFramework(fw: Record<string, unknown>): Promise<EnvironmentInput> {
      const input = await layout({ manifest: { peerDependencies: {}, dependencies: { fw: '^0.3.0', zod: '^4.0.0' } } });
      await pkg(path.join(cell, 'node_modules', 'fw'), { name: 'fw', version: '0.3.1', ...fw });
      await pkg(path.join(cell, 'node_modules', 'zod'), { name: 'zod', version: '4.1.0' });
      return input;
    }

    it('passes the pin the framework admits, and names the chain', async () => {
      const { result, evidence } = await verifyEnvironment(await onFramework({ dependencies: { '@modelcontextprotocol/sdk': '^1.23.0' } }));
      expect(result.verdict, result.message).toBe('passed');
      expect(result.details?.sdkClaim).toBe('through fw@0.3.1: @modelcontextprotocol/sdk ^1.23.0');
      expect(evidence.sdkClaim).toBe('through fw@0.3.1: @modelcontextprotocol/sdk ^1.23.0');
      expect(evidence.declaredRanges).toEqual({});
    });

    it('reads a peer range of the framework too', async () => {
      const { result } = await verifyEnvironment(await onFramework({ peerDependencies: { '@modelcontextprotocol/sdk': '>=1.20.0 <2' } }));
      expect(result.verdict, result.message).toBe('passed');
      expect(result.details?.sdkClaim).toBe('through fw@0.3.1: @modelcontextprotocol/sdk >=1.20.0 <2');
    });

    it("fails a pin outside the framework's range, naming the chain", async () => {
      const { result } = await verifyEnvironment(await onFramework({ dependencies: { '@modelcontextprotocol/sdk': '^1.25.0' } }));
      expect(result.verdict).toBe('failed');
      expect(result.message).toBe(
        'pin @modelcontextprotocol/sdk@1.24.0 is outside the range "^1.25.0" that srv claims through fw@0.3.1: @modelcontextprotocol/sdk ^1.25.0',
      );
    });

    it('a framework with no range on the SDK (it bundles its own) claims nothing', async () => {
      const { result, evidence } = await verifyEnvironment(await onFramework({ dependencies: { other: '^1.0.0' } }));
      expect(result.message).toBe('srv declares no range on @modelcontextprotocol/sdk: it does not claim this SDK major');
      expect(evidence.sdkClaim).toBeUndefined();
    });

    it("a range of its own wins over the framework's", async () => {
      const input = await layout({
        manifest: { peerDependencies: { '@modelcontextprotocol/sdk': '^1.20.0' }, dependencies: { fw: '^0.3.0' } },
      });
      await pkg(path.join(cell, 'node_modules', 'fw'), {
        name: 'fw',
        version: '0.3.1',
        dependencies: { '@modelcontextprotocol/sdk': '^1.25.0' },
      });
      const { result, evidence } = await verifyEnvironment(input);
      expect(result.verdict, result.message).toBe('passed');
      expect(evidence.sdkClaim).toBeUndefined();
    });
  });

  it('fails a pin outside the declared range', async () => {
    const { result } = await verifyEnvironment(await layout({ range: '^1.25.0' }));
    expect(result.message).toBe('pin @modelcontextprotocol/sdk@1.24.0 is outside the range "^1.25.0" that srv declares');
  });

  it('fails when the installed package is not the packed tarball', async () => {
    const { result } = await verifyEnvironment(await layout({ integrity: 'sha512-somethingelse' }));
    expect(result.message).toMatch(
      /the installed srv is not the packed tarball: lockfile integrity sha512-somethingels… ≠ tarball sha512-/,
    );
  });

  // A strict leg's cell: pnpm writes pnpm-lock.yaml, not package-lock.json, with the tarball's integrity in it.
  it("a pnpm cell: the tarball's integrity read from pnpm-lock.yaml, and its hash in the evidence", async () => {
    const input = await layout();
    await rm(path.join(cell, 'package-lock.json'));
    const pnpmLock = `packages:\n  srv@file:../srv-1.0.0.tgz:\n    resolution: {integrity: ${SHA}, tarball: file:../srv-1.0.0.tgz}\n`;
    await writeFile(path.join(cell, 'pnpm-lock.yaml'), pnpmLock);
    const { result, evidence } = await verifyEnvironment(input);
    expect(result.verdict, result.message).toBe('passed');
    expect(evidence.lockfileSha256).toBe(createHash('sha256').update(pnpmLock).digest('hex'));

    await writeFile(path.join(cell, 'pnpm-lock.yaml'), pnpmLock.replace(SHA, 'sha512-another'));
    const other = await verifyEnvironment(input);
    expect(other.result.message).toBe(
      `the installed srv is not the packed tarball: lockfile integrity missing ≠ tarball ${SHA.slice(0, 19)}…`,
    );
  });
  // npm wrote the lockfile: one that is not JSON is the machine's or npm's doing, never the package's, and no throw.
  it('a package-lock.json that is not JSON: not measured, naming the file; a problem found besides still fails', async () => {
    const input = await layout();
    await writeFile(path.join(cell, 'package-lock.json'), '{"packages": {"node_modules/srv": ');
    const { result, evidence } = await verifyEnvironment(input);
    expect(result).toMatchObject({ verdict: 'not-measured', step: 'verify' });
    expect(result.message).toMatch(
      /^the cell's package-lock\.json is not valid JSON \(.+\): the installed srv could not be checked against the tarball$/,
    );
    expect(evidence.lockfileSha256).toMatch(/^[0-9a-f]{64}$/);
    const ranged = await verifyEnvironment({ ...input, version: '1.20.0' });
    expect(ranged.result).toMatchObject({ verdict: 'failed' });
    expect(ranged.result.message).toContain('pin @modelcontextprotocol/sdk@1.20.0 is outside the range');
    expect(ranged.result.message).not.toContain('packed tarball');
  });
});

describe('sdk tree', () => {
  it('finds nested copies and resolves like Node from the package directory', async () => {
    const input = await layout({ nestedSdk: '1.25.0' });
    expect((await findSdkCopies(input.cellDir, SDK_NAMES)).map((p) => p.path)).toEqual([
      'node_modules/@modelcontextprotocol/sdk',
      'node_modules/srv/node_modules/@modelcontextprotocol/sdk',
    ]);
    expect(resolveFrom(path.join(cell, 'node_modules/srv'), '@modelcontextprotocol/sdk', cell)).toBe(
      path.join(cell, 'node_modules/srv/node_modules/@modelcontextprotocol/sdk'),
    );
    expect(resolveFrom(path.join(cell, 'node_modules/srv'), 'zod', cell)).toBeUndefined();
  });
});

describe('the SDK list holds SDK packages only', () => {
  it('takes the names from every major recipe, pinned and companions', () => {
    expect(SDK_NAMES).toEqual([
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/node',
      '@modelcontextprotocol/sdk',
      '@modelcontextprotocol/server',
    ]);
    expect(sdkPackageNames({ '1': { pinned: ['@acme/mcp-sdk'] } })).toEqual(['@acme/mcp-sdk']);
  });

  it('does not list a server package that shares the scope, nor its range', async () => {
    const input = await layout({
      manifest: { name: 'srv', dependencies: { '@modelcontextprotocol/server-foo': '^1.0.0' } },
    });
    await pkg(path.join(cell, 'node_modules/@modelcontextprotocol/server-foo'), {
      name: '@modelcontextprotocol/server-foo',
      version: '1.0.0',
    });
    const { result, evidence } = await verifyEnvironment(input);
    expect(result.verdict).toBe('passed');
    expect(evidence.sdkPackages.map((p) => p.name)).toEqual(['@modelcontextprotocol/sdk']);
    expect(evidence.declaredRanges).toEqual({ '@modelcontextprotocol/sdk': '>=1.23.0 <2' });
  });
});

describe('files the package promises are in the tarball', () => {
  it('fails naming a missing bin and suggests building before pack', async () => {
    const { result } = await verifyEnvironment(await layout({ manifest: { bin: { srv: './dist/index.js' } } }));
    expect(result.verdict).toBe('failed');
    expect(result.message).toBe('bin dist/index.js is missing from the tarball: run the build before npm pack (e.g. a "prepack" script)');
  });

  it('names every missing main and exports target, and passes the ones present', async () => {
    const { result } = await verifyEnvironment(
      await layout({
        manifest: {
          bin: 'bin/srv.js',
          main: 'dist/index',
          exports: { '.': { import: './dist/index.mjs', require: './dist/index.cjs' }, './util': './lib/util.js', './*': './lib/*.js' },
        },
        files: ['bin/srv.js', 'dist/index.cjs', 'lib/util.js'],
      }),
    );
    expect(result.message).toBe(
      'main dist/index and exports "." → dist/index.mjs are missing from the tarball: run the build before npm pack (e.g. a "prepack" script)',
    );
  });

  it('passes when bin, main (resolved like require) and exports exist', async () => {
    const { result } = await verifyEnvironment(
      await layout({
        manifest: {
          bin: { srv: 'bin/srv.js' },
          main: 'dist/index',
          exports: { '.': './dist/index.js', './package.json': './package.json', './lib/': './lib/', './internal/*': null },
        },
        files: ['bin/srv.js', 'dist/index.js'],
      }),
    );
    expect(result.verdict, result.message).toBe('passed');
  });
});

describe('verifyEnvironment: the whole result and evidence', () => {
  const lockSha = (text: string): string => createHash('sha256').update(text).digest('hex');
  const OS = `${os.platform()} ${os.release()} ${os.arch()}`;

  it('a passing cell: the result names the SDK copies, the evidence records every input', async () => {
    const input = await layout({ manifest: { dependencies: { '@modelcontextprotocol/node': '^2', left: '1' } } });
    const lock = JSON.stringify({ packages: { 'node_modules/srv': { integrity: SHA } } });
    const { result, evidence } = await verifyEnvironment({ ...input, install: { durationMs: 1234, attempts: 2 } });
    expect(result).toStrictEqual({
      phase: 'environment',
      verdict: 'passed',
      durationMs: expect.any(Number),
      details: { sdk: ['@modelcontextprotocol/sdk@1.24.0'] },
    });
    expect(evidence).toStrictEqual({
      harnessVersion: '0.0.0',
      node: process.version,
      npm: '11.0.0',
      os: OS,
      package: { name: 'srv', version: '1.0.0' },
      tarball: { file: 'srv-1.0.0.tgz', size: 10, sha512: SHA },
      sdkPackages: [{ name: '@modelcontextprotocol/sdk', version: '1.24.0', path: 'node_modules/@modelcontextprotocol/sdk' }],
      lockfileSha256: lockSha(lock),
      installMs: 1234,
      installAttempts: 2,
      // Ranges of SDK packages only, from dependencies and peerDependencies alike.
      declaredRanges: { '@modelcontextprotocol/node': '^2', '@modelcontextprotocol/sdk': '>=1.23.0 <2' },
    });
  });

  it('a failing cell: every problem in order, joined in the message and listed in details, at step "verify"', async () => {
    const input = await layout({ topSdk: '1.25.0', nestedSdk: '1.26.0', integrity: 'sha512-somethingelse-entirely' });
    await writeFile(
      path.join(cell, 'node_modules/srv/package.json'),
      JSON.stringify({ name: 'srv', version: '1.0.0', bin: 'bin/s.js', dependencies: { '@modelcontextprotocol/sdk': '^1.26.0' } }),
    );
    const { result } = await verifyEnvironment(input);
    const problems = [
      'bin bin/s.js is missing from the tarball: run the build before npm pack (e.g. a "prepack" script)',
      '@modelcontextprotocol/sdk: installed 1.25.0 at node_modules/@modelcontextprotocol/sdk, pinned 1.24.0',
      '@modelcontextprotocol/sdk: the package loads 1.26.0 from node_modules/srv/node_modules/@modelcontextprotocol/sdk (its own dependency "^1.26.0"), not the pinned 1.24.0',
      '@modelcontextprotocol/sdk is installed 2 times: 1.25.0 at node_modules/@modelcontextprotocol/sdk, 1.26.0 at node_modules/srv/node_modules/@modelcontextprotocol/sdk',
      'pin @modelcontextprotocol/sdk@1.24.0 is outside the range "^1.26.0" that srv declares',
      `the installed srv is not the packed tarball: lockfile integrity sha512-somethingels… ≠ tarball ${SHA.slice(0, 19)}…`,
    ];
    expect(result).toStrictEqual({
      phase: 'environment',
      verdict: 'failed',
      durationMs: expect.any(Number),
      message: problems.join('; '),
      step: 'verify',
      details: { problems },
    });
  });

  it('a package that is not installed, without a lockfile: every absence named, the evidence says "?"', async () => {
    const input = await layout();
    await rm(path.join(cell, 'node_modules/srv'), { recursive: true });
    await rm(path.join(cell, 'node_modules/@modelcontextprotocol/sdk'), { recursive: true });
    await rm(path.join(cell, 'package-lock.json'));
    const { result, evidence } = await verifyEnvironment(input);
    expect(result.details).toStrictEqual({
      problems: [
        '@modelcontextprotocol/sdk: installed nothing at node_modules/@modelcontextprotocol/sdk, pinned 1.24.0',
        'srv declares no range on @modelcontextprotocol/sdk: it does not claim this SDK major',
        'srv is not installed at node_modules/srv',
        `the installed srv is not the packed tarball: lockfile integrity missing ≠ tarball ${SHA.slice(0, 19)}…`,
      ],
    });
    expect(evidence.package).toStrictEqual({ name: 'srv', version: '?' });
    expect(evidence.declaredRanges).toStrictEqual({});
    expect(evidence.sdkPackages).toStrictEqual([]);
    expect('lockfileSha256' in evidence).toBe(false);
  });

  it('a lockfile without packages, a nested copy without a version and not its own dependency', async () => {
    const input = await layout({
      manifest: { name: 'srv', version: '1.0.0', peerDependencies: { '@modelcontextprotocol/sdk': '^1.24.0' } },
    });
    await pkg(path.join(cell, 'node_modules/srv/node_modules/@modelcontextprotocol/sdk'), { name: '@modelcontextprotocol/sdk' });
    await writeFile(path.join(cell, 'package-lock.json'), '{}');
    const { result, evidence } = await verifyEnvironment(input);
    expect(result.details).toStrictEqual({
      problems: [
        '@modelcontextprotocol/sdk: the package loads ? from node_modules/srv/node_modules/@modelcontextprotocol/sdk, not the pinned 1.24.0',
        `the installed srv is not the packed tarball: lockfile integrity missing ≠ tarball ${SHA.slice(0, 19)}…`,
      ],
    });
    expect(evidence.lockfileSha256).toBe(lockSha('{}'));
    expect(evidence.package).toStrictEqual({ name: 'srv', version: '1.0.0' });
  });

  it('a lockfile that does not list the package, and a package folder without package.json that holds a copy', async () => {
    const input = await layout({ nestedSdk: '1.25.0' });
    await rm(path.join(cell, 'node_modules/srv/package.json'));
    await writeFile(path.join(cell, 'package-lock.json'), JSON.stringify({ packages: {} }));
    const before = performance.now();
    const { result } = await verifyEnvironment(input);
    const took = performance.now() - before;
    expect(result.details).toStrictEqual({
      problems: [
        '@modelcontextprotocol/sdk: the package loads 1.25.0 from node_modules/srv/node_modules/@modelcontextprotocol/sdk, not the pinned 1.24.0',
        '@modelcontextprotocol/sdk is installed 2 times: 1.24.0 at node_modules/@modelcontextprotocol/sdk, 1.25.0 at node_modules/srv/node_modules/@modelcontextprotocol/sdk',
        'srv declares no range on @modelcontextprotocol/sdk: it does not claim this SDK major',
        'srv is not installed at node_modules/srv',
        `the installed srv is not the packed tarball: lockfile integrity missing ≠ tarball ${SHA.slice(0, 19)}…`,
      ],
    });
    // The phase's own time, not a clock reading.
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThanOrEqual(Math.round(took) + 1);
  });

  it('a manifest without name or version: the evidence falls back to the configured name and "?"', async () => {
    const input = await layout({ manifest: { name: undefined, version: undefined } });
    const { result, evidence } = await verifyEnvironment(input);
    expect(result.verdict).toBe('passed');
    expect(evidence.package).toStrictEqual({ name: 'srv', version: '?' });
  });
});
