// The environment's static half on a Yarn PnP cell laid out by hand: the layout as pnp-layout.ts reads it from
// .pnp.cjs, the unplugged package's files, and yarn.lock (real Yarn runs in yarn-pnp-install.integration.test.ts).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyPnpEnvironment, type PnpLayout, type PnpPackage } from '../../../src/judge/environment/pnp-environment.js';

const SDK = '@modelcontextprotocol/sdk';
const BYTES = 'the packed tarball';
const SHA = `sha512-${createHash('sha512').update(BYTES).digest('base64')}`;
const HEX = createHash('sha512').update(BYTES).digest('hex');

let cell = '';
afterEach(async () => cell && rm(cell, { recursive: true, force: true }));

interface Options {
  manifest?: Record<string, unknown> | 'unreadable';
  files?: string[];
  top?: Record<string, PnpPackage>;
  deps?: Record<string, PnpPackage>;
  all?: PnpLayout['all'];
  /** yarn.lock's text; absent: a resolution of the tarball with its hash. */
  lock?: string | 'none';
  tarballFile?: string;
}

/** The SDK as PnP lists it, in the cell's Yarn cache (a zip, never read here). */
const sdk = (version: string): PnpPackage => ({
  name: SDK,
  version,
  location: `${cell}/.yarn/cache/@modelcontextprotocol-sdk-npm-${version}-feed.zip/node_modules/${SDK}/`,
});

/** A cell as Yarn PnP leaves it: the package unplugged, the SDK in Yarn's cache; options may use `sdk` (the cell exists). */
async function pnpCell(options: Options | (() => Options) = {}) {
  cell = await mkdtemp(path.join(os.tmpdir(), 'pnp-env-test-'));
  const o = typeof options === 'function' ? options() : options;
  const packageDir = path.join(cell, '.yarn/unplugged/srv-file-0123abcd/node_modules/srv');
  await mkdir(packageDir, { recursive: true });
  if (o.manifest !== 'unreadable')
    await writeFile(
      path.join(packageDir, 'package.json'),
      JSON.stringify({ name: 'srv', version: '1.0.0', bin: './bin/server.js', peerDependencies: { [SDK]: '^1.23.0' }, ...o.manifest }),
    );
  for (const file of o.files ?? ['bin/server.js']) {
    await mkdir(path.dirname(path.join(packageDir, file)), { recursive: true });
    await writeFile(path.join(packageDir, file), '');
  }
  const tarballFile = o.tarballFile ?? path.join(cell, '..', 'srv-1.0.0.tgz');
  const lock =
    o.lock ??
    `"srv@file:${tarballFile}::locator=cell%40workspace%3A.":\n  version: 1.0.0\n  resolution: "srv@file:${tarballFile}#${tarballFile}::hash=${HEX.slice(0, 6)}&locator=cell%40workspace%3A."\n`;
  if (lock !== 'none') await writeFile(path.join(cell, 'yarn.lock'), lock);
  const layout: PnpLayout = {
    nodeOptions: `--require ${cell}/.pnp.cjs`,
    packageDir,
    top: o.top ?? { srv: { name: 'srv', version: '1.0.0', location: `${packageDir}/` }, [SDK]: sdk('1.24.0') },
    deps: o.deps ?? { [SDK]: sdk('1.24.0') },
    all: o.all ?? [
      { name: 'srv', version: '1.0.0', location: `${packageDir}/` },
      sdk('1.24.0'),
      { name: 'zod', version: '4.1.0', location: `${cell}/.yarn/cache/zod-npm-4.1.0-beef.zip/node_modules/zod/` },
    ],
  };
  return {
    input: {
      cellDir: cell,
      packageName: 'srv',
      primary: SDK,
      version: '1.24.0',
      installSet: { [SDK]: '1.24.0' },
      sdkNames: [SDK],
      tarball: { file: tarballFile, size: BYTES.length, sha512: SHA },
      harnessVersion: '0.0.0',
      npmVersion: '11.0.0',
      install: { durationMs: 3, attempts: 1 },
      layout,
    },
  };
}

const zipPath = (version: string) => `.yarn/cache/@modelcontextprotocol-sdk-npm-${version}-feed.zip/node_modules/${SDK}`;

describe('verifyPnpEnvironment', () => {
  it("passes the pin and the tarball as PnP resolves them; the evidence names the copy where Yarn's cache keeps it", async () => {
    const { input } = await pnpCell({ manifest: { dependencies: { zod: '^4.0.0' } } });
    const { result, evidence } = await verifyPnpEnvironment(input);
    expect(result).toMatchObject({ phase: 'environment', verdict: 'passed', details: { sdk: [`${SDK}@1.24.0`] } });
    expect(evidence.sdkPackages).toStrictEqual([{ name: SDK, version: '1.24.0', path: zipPath('1.24.0') }]);
    expect(evidence.declaredRanges).toStrictEqual({ [SDK]: '^1.23.0' });
    expect(evidence.package).toStrictEqual({ name: 'srv', version: '1.0.0' });
    expect(evidence.lockfileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(evidence.sdkClaim).toBeUndefined();
  });

  it('a copy Yarn lists twice under one name and version is one copy', async () => {
    const { input } = await pnpCell();
    input.layout.all.push(sdk('1.24.0'));
    expect((await verifyPnpEnvironment(input)).evidence.sdkPackages).toHaveLength(1);
  });

  it('names every problem in order: a missing bin, the pins, a second copy, the tarball', async () => {
    const { input } = await pnpCell(() => ({
      manifest: { dependencies: { [SDK]: '~1.25.0' }, peerDependencies: {} },
      files: [],
      top: { [SDK]: sdk('1.25.0') },
      deps: { [SDK]: sdk('1.25.0') },
      all: [sdk('1.24.0'), sdk('1.25.0')],
      lock: 'no resolution of the tarball here\n',
    }));
    const { result } = await verifyPnpEnvironment(input);
    expect(result).toMatchObject({ verdict: 'failed', step: 'verify' });
    expect(result.details).toStrictEqual({
      problems: [
        'bin bin/server.js is missing from the tarball: run the build before npm pack (e.g. a "prepack" script)',
        `${SDK}: Yarn resolved 1.25.0 for the cell, pinned 1.24.0`,
        `${SDK}: the package loads 1.25.0 from ${zipPath('1.25.0')} (its own dependency "~1.25.0"), not the pinned 1.24.0`,
        `${SDK} is installed 2 times: 1.24.0, 1.25.0`,
        `pin ${SDK}@1.24.0 is outside the range "~1.25.0" that srv declares`,
        `the installed srv is not the packed tarball: yarn.lock's hash missing ≠ tarball sha512 ${HEX.slice(0, 12)}…`,
      ],
    });
  });

  it('a pin Yarn did not resolve, a package without a manifest (loading another copy) or yarn.lock: each named', async () => {
    const { input } = await pnpCell(() => ({ manifest: 'unreadable', top: {}, deps: { [SDK]: sdk('1.23.0') }, lock: 'none' }));
    const { result, evidence } = await verifyPnpEnvironment(input);
    expect(result.details).toStrictEqual({
      problems: [
        'srv has no readable package.json at .yarn/unplugged/srv-file-0123abcd/node_modules/srv',
        `${SDK}: Yarn resolved nothing for the cell, pinned 1.24.0`,
        `${SDK}: the package loads 1.23.0 from ${zipPath('1.23.0')}, not the pinned 1.24.0`,
        `srv declares no range on ${SDK}: it does not claim this SDK major`,
        `the installed srv is not the packed tarball: yarn.lock's hash missing ≠ tarball sha512 ${HEX.slice(0, 12)}…`,
      ],
    });
    expect(evidence.package).toStrictEqual({ name: 'srv', version: '?' });
    expect(evidence.declaredRanges).toStrictEqual({});
    expect('lockfileSha256' in evidence).toBe(false);
  });

  it('the package loading another version without declaring it is named without a dependency of its own', async () => {
    const { input } = await pnpCell(() => ({ deps: { [SDK]: sdk('1.23.0') } }));
    const { result } = await verifyPnpEnvironment(input);
    expect(result.message).toBe(`${SDK}: the package loads 1.23.0 from ${zipPath('1.23.0')}, not the pinned 1.24.0`);
  });

  it("yarn.lock's hash of another tarball, and one whose path has a regex character, matched as written", async () => {
    const wrong = await pnpCell({ lock: `resolution: "srv@file:/elsewhere/srv-1.0.0.tgz::hash=${HEX.slice(0, 6)}"\n` });
    expect((await verifyPnpEnvironment(wrong.input)).result.message).toContain("yarn.lock's hash missing");
    await rm(cell, { recursive: true, force: true });

    const other = await pnpCell({ lock: `resolution: "srv@file:${path.join(os.tmpdir(), 'srv-1.0.0.tgz')}::hash=0ff1ce"\n` });
    other.input.tarball.file = path.join(os.tmpdir(), 'srv-1.0.0.tgz');
    expect((await verifyPnpEnvironment(other.input)).result.message).toBe(
      `the installed srv is not the packed tarball: yarn.lock's hash 0ff1ce ≠ tarball sha512 ${HEX.slice(0, 12)}…`,
    );
    await rm(cell, { recursive: true, force: true });

    const plus = await pnpCell({ tarballFile: '/work/a+b/srv-1.0.0.tgz' });
    expect((await verifyPnpEnvironment(plus.input)).result.verdict).toBe('passed');
  });

  describe('a range claimed through a framework PnP resolves for the package', () => {
    const framework = (ranges: Partial<PnpPackage>) =>
      pnpCell({
        manifest: { peerDependencies: {}, dependencies: { fw: '^0.3.0' } },
        deps: {
          fw: { name: 'fw', version: '0.3.1', location: `/cache/fw.zip/node_modules/fw/`, ...ranges },
          [SDK]: { name: SDK, version: '1.24.0', location: `/cache/sdk.zip/node_modules/${SDK}/` },
        },
      });

    it('passes the pin the framework admits (a dependency or a peer), naming the chain', async () => {
      const viaDep = await verifyPnpEnvironment((await framework({ dependencies: { [SDK]: '^1.23.0' } })).input);
      expect(viaDep.result).toMatchObject({ verdict: 'passed', details: { sdkClaim: `through fw@0.3.1: ${SDK} ^1.23.0` } });
      expect(viaDep.evidence.sdkClaim).toBe(`through fw@0.3.1: ${SDK} ^1.23.0`);
      await rm(cell, { recursive: true, force: true });
      const viaPeer = await verifyPnpEnvironment((await framework({ peerDependencies: { [SDK]: '>=1.20.0 <2' } })).input);
      expect(viaPeer.result.details).toMatchObject({ sdkClaim: `through fw@0.3.1: ${SDK} >=1.20.0 <2` });
    });

    it("fails a pin outside the framework's range, naming the chain", async () => {
      const { result } = await verifyPnpEnvironment((await framework({ dependencies: { [SDK]: '^1.25.0' } })).input);
      expect(result.message).toBe(`pin ${SDK}@1.24.0 is outside the range "^1.25.0" that srv claims through fw@0.3.1: ${SDK} ^1.25.0`);
    });

    it('a framework PnP does not resolve claims nothing', async () => {
      const { input } = await framework({});
      delete input.layout.deps.fw;
      const { result } = await verifyPnpEnvironment(input);
      expect(result.message).toBe(`srv declares no range on ${SDK}: it does not claim this SDK major`);
    });
  });
});
