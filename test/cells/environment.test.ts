import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyEnvironment, type EnvironmentInput } from '../../src/cells/environment.js';
import { findSdkCopies, resolveFrom } from '../../src/cells/sdk-tree.js';

// A cell laid out by hand: the environment phase only reads files, so this exercises every rule without npm.
let cell: string;
afterEach(async () => cell && rm(cell, { recursive: true, force: true }));

const SHA = `sha512-${createHash('sha512').update('tarball').digest('base64')}`;

async function pkg(dir: string, manifest: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
}

async function layout(
  options: { topSdk?: string; nestedSdk?: string; range?: string; integrity?: string } = {},
): Promise<EnvironmentInput> {
  cell = await mkdtemp(path.join(os.tmpdir(), 'env-test-'));
  const nm = path.join(cell, 'node_modules');
  await pkg(path.join(nm, 'srv'), {
    name: 'srv',
    version: '1.0.0',
    peerDependencies: { '@modelcontextprotocol/sdk': options.range ?? '>=1.23.0 <2' },
  });
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
});

describe('sdk tree', () => {
  it('finds nested copies and resolves like Node from the package directory', async () => {
    const input = await layout({ nestedSdk: '1.25.0' });
    expect((await findSdkCopies(input.cellDir)).map((p) => p.path)).toEqual([
      'node_modules/@modelcontextprotocol/sdk',
      'node_modules/srv/node_modules/@modelcontextprotocol/sdk',
    ]);
    expect(resolveFrom(path.join(cell, 'node_modules/srv'), '@modelcontextprotocol/sdk', cell)).toBe(
      path.join(cell, 'node_modules/srv/node_modules/@modelcontextprotocol/sdk'),
    );
    expect(resolveFrom(path.join(cell, 'node_modules/srv'), 'zod', cell)).toBeUndefined();
  });
});
