import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeRuntimeSdk, serverNode, verifyEnvironment, withRuntimeSdk, type EnvironmentInput } from '../../src/cells/environment.js';
import { findSdkCopies, resolveFrom, sdkPackageNames } from '../../src/cells/sdk-tree.js';
import { DEFAULT_MAJORS } from '../../src/config/resolve.js';
import type { PhaseResult, SdkRuntime } from '../../src/results/types.js';

const SDK_NAMES = sdkPackageNames(DEFAULT_MAJORS);

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

describe('runtime SDK identity', () => {
  const CELL_COPY = { name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' };
  const base = {
    installSet: { '@modelcontextprotocol/sdk': '1.32.2' },
    primary: '@modelcontextprotocol/sdk',
    binFile: './bin/server.js',
    enabled: { stdio: true, http: true },
  };
  const seen = (server: 'stdio' | 'http', o: Partial<SdkRuntime>): SdkRuntime => ({
    server,
    probe: true,
    nodeBin: true,
    answered: true,
    copies: [CELL_COPY],
    ...o,
  });
  const phase = (name: 'stdio' | 'http', ...runtime: SdkRuntime[]): PhaseResult => ({
    phase: name,
    verdict: 'passed',
    durationMs: 1,
    details: { sdkRuntime: runtime },
  });
  const judge = (...phases: PhaseResult[]) => judgeRuntimeSdk({ ...base, phases });

  it('passes servers that loaded the cell copy at the pinned version', () => {
    expect(judge(phase('stdio', seen('stdio', {})), phase('http', seen('http', {})))).toMatchObject({ verdict: 'passed', messages: [] });
  });

  it('fails a server that answered without loading any SDK copy (a bundle), once for both servers', () => {
    const check = judge(phase('stdio', seen('stdio', { copies: [] })), phase('http', seen('http', { copies: [] })));
    expect(check.verdict).toBe('failed');
    expect(check.messages).toEqual([
      'the stdio and http servers answered without loading node_modules/@modelcontextprotocol/sdk (1.32.2): its bin carries its own copy of the SDK, so this cell cannot vary the SDK',
    ]);
  });

  it('a server that answered from a process the probe did not see (a launcher’s child) is not measured, never “bundled”', () => {
    // Issue 25: a launcher re-spawns `node lib/server.js` with NODE_OPTIONS of its own, so the child runs without the probe.
    const child = {
      pid: 42,
      command: 'node node_modules/srv/lib/server.js',
      why: `its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe`,
    };
    const launcher = (server: 'stdio' | 'http') => seen(server, { copies: [], unobserved: [child] });
    const check = judge(phase('stdio', launcher('stdio')), phase('http', launcher('http')));
    expect(check.verdict).toBe('not-measured');
    expect(check.messages).toEqual([
      `the stdio and http servers answered from a process the probe did not see (node node_modules/srv/lib/server.js: its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe), so which SDK copy the server runs was not observed`,
    ]);
    // What a probed process loaded still stands: a foreign copy fails, the cell's copy passes.
    const foreign = { name: '@modelcontextprotocol/sdk', version: '1.25.0', path: '/elsewhere/sdk' };
    expect(judge(phase('stdio', seen('stdio', { copies: [foreign], unobserved: [child] }))).verdict).toBe('failed');
    expect(judge(phase('stdio', seen('stdio', { unobserved: [child] }))).verdict).toBe('passed');
    // Not answered: the same reason as before.
    expect(judge(phase('stdio', seen('stdio', { copies: [], answered: false, unobserved: [child] }))).messages).toEqual([
      'the stdio server neither answered nor loaded an SDK copy, so which SDK copy the server runs was not observed',
    ]);
  });

  it('fails a nested copy, naming both paths and versions', () => {
    const nested = {
      name: '@modelcontextprotocol/sdk',
      version: '1.25.0',
      path: 'node_modules/srv/node_modules/@modelcontextprotocol/sdk',
    };
    expect(judge(phase('stdio', seen('stdio', { copies: [nested] }))).messages).toEqual([
      "the stdio server loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/srv/node_modules/@modelcontextprotocol/sdk, not the cell's 1.32.2 at node_modules/@modelcontextprotocol/sdk",
    ]);
    expect(judge(phase('stdio', seen('stdio', { copies: [CELL_COPY, { ...nested, path: 'node_modules/legacy' }] }))).messages).toEqual([
      "the stdio server loaded a second copy of @modelcontextprotocol/sdk: 1.25.0 from node_modules/legacy, besides the cell's 1.32.2 at node_modules/@modelcontextprotocol/sdk",
    ]);
  });

  it('fails the cell copy at another version than the pin', () => {
    expect(judge(phase('stdio', seen('stdio', { copies: [{ ...CELL_COPY, version: '1.25.0' }] }))).messages).toEqual([
      'the stdio server loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/@modelcontextprotocol/sdk, not the pinned 1.32.2',
    ]);
  });

  it('is not measured, with the reason, for a bin that is not Node, never a silent pass', () => {
    const check = judge(phase('stdio', seen('stdio', { probe: false, nodeBin: false, copies: [] })));
    expect(check).toMatchObject({
      verdict: 'not-measured',
      messages: [
        'the stdio server ran without the probe: its bin bin/server.js is not a Node program, so which SDK copy the server runs was not observed',
      ],
    });
  });

  it('is not measured when no server answered or none was asked', () => {
    expect(judge(phase('stdio', seen('stdio', { answered: false, copies: [] }))).messages).toEqual([
      'the stdio server neither answered nor loaded an SDK copy, so which SDK copy the server runs was not observed',
    ]);
    expect(judgeRuntimeSdk({ ...base, enabled: { stdio: false, http: false }, phases: [] }).messages).toEqual([
      'no server answered (stdio and http are skipped), so which SDK copy the server runs was not observed',
    ]);
    // A server that loaded the cell copy is evidence even when it never answered.
    expect(judge(phase('stdio', seen('stdio', { answered: false }))).verdict).toBe('passed');
  });

  it('folds into the environment result: failed wins, then not-measured; static problems first', () => {
    const evidence = {} as Parameters<typeof withRuntimeSdk>[0]['evidence'];
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1 };
    const failed: PhaseResult = { ...passed, verdict: 'failed', step: 'verify', message: 'a; b', details: { problems: ['a; b'] } };
    const bundle = judge(phase('stdio', seen('stdio', { copies: [] })));
    const notNode = judge(phase('stdio', seen('stdio', { probe: false, nodeBin: false, copies: [] })));
    const ok = judge(phase('stdio', seen('stdio', {})));

    expect(withRuntimeSdk({ result: passed, evidence }, ok).result).toMatchObject({
      verdict: 'passed',
      details: { runtime: { verdict: 'passed' } },
    });
    expect(withRuntimeSdk({ result: passed, evidence }, ok).evidence.loadedSdk).toEqual([seen('stdio', {})]);
    expect(withRuntimeSdk({ result: passed, evidence }, bundle).result).toMatchObject({
      verdict: 'failed',
      step: 'loaded SDK',
      message: bundle.messages[0],
    });
    expect(withRuntimeSdk({ result: passed, evidence }, notNode).result).toMatchObject({
      verdict: 'not-measured',
      message: notNode.messages[0],
    });
    expect(withRuntimeSdk({ result: failed, evidence }, bundle).result).toMatchObject({
      verdict: 'failed',
      step: 'verify',
      message: `a; b; ${bundle.messages[0]}`,
    });
    expect(withRuntimeSdk({ result: failed, evidence }, notNode).result).toMatchObject({ verdict: 'failed', message: 'a; b' });
  });

  it('records the Node the servers reported, not the host’s', () => {
    const evidence = { node: 'v20.20.2' } as Parameters<typeof withRuntimeSdk>[0]['evidence'];
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1 };
    const on22 = judge(phase('stdio', seen('stdio', { node: 'v22.23.5' })), phase('http', seen('http', { node: 'v22.23.5' })));
    expect(withRuntimeSdk({ result: passed, evidence }, on22).evidence.node).toBe('v22.23.5');
    // Nothing observed (no probe): the host's stays, since the harness cannot know better.
    const unseen = judge(phase('stdio', seen('stdio', { probe: false, nodeBin: false, copies: [] })));
    expect(withRuntimeSdk({ result: passed, evidence }, unseen).evidence.node).toBe('v20.20.2');
    expect(serverNode([seen('stdio', { node: 'v22.1.0' }), seen('http', { node: 'v20.1.0' })])).toBe('v22.1.0 / v20.1.0');
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

describe('runtime SDK identity: every branch, exactly', () => {
  const COPY = { name: '@modelcontextprotocol/sdk', version: '1.32.2', path: 'node_modules/@modelcontextprotocol/sdk' };
  const base = {
    installSet: { '@modelcontextprotocol/sdk': '1.32.2' },
    primary: '@modelcontextprotocol/sdk',
    binFile: './bin/server.js',
    enabled: { stdio: true, http: true },
  };
  const seen = (server: 'stdio' | 'http', o: Partial<SdkRuntime> = {}): SdkRuntime => ({
    server,
    probe: true,
    nodeBin: true,
    answered: true,
    copies: [COPY],
    ...o,
  });
  const phase = (name: PhaseResult['phase'], sdkRuntime: unknown): PhaseResult => ({
    phase: name,
    verdict: 'passed',
    durationMs: 1,
    details: { sdkRuntime },
  });
  const unseen = 'so which SDK copy the server runs was not observed';

  it('reads only stdio and http results, and only well-formed entries', () => {
    const check = judgeRuntimeSdk({
      ...base,
      phases: [
        phase('bind', [seen('stdio')]),
        phase('stdio', [null, 'x', { probe: 'yes', copies: [] }, { probe: true, copies: 'no' }, { probe: true }, { copies: [] }]),
        phase('http', { probe: true, copies: [] }),
        { phase: 'stdio', verdict: 'passed', durationMs: 1 },
      ],
    });
    expect(check).toStrictEqual({
      verdict: 'not-measured',
      messages: [`no stdio or http server was observed (the driver stopped first), ${unseen}`],
      observed: [],
    });
    const ok = judgeRuntimeSdk({ ...base, phases: [phase('http', [seen('http')])] });
    expect(ok).toStrictEqual({ verdict: 'passed', messages: [], observed: [seen('http')] });
  });

  it('a Node bin that did not load the probe; stdio off but http on is not "both skipped"', () => {
    const check = judgeRuntimeSdk({
      ...base,
      enabled: { stdio: false, http: true },
      phases: [phase('http', [seen('http', { probe: false, copies: [] })])],
    });
    expect(check.messages).toStrictEqual([`the http server ran without the probe (its bin bin/server.js did not load it), ${unseen}`]);
    expect(judgeRuntimeSdk({ ...base, enabled: { stdio: true, http: false }, phases: [] }).messages).toStrictEqual([
      `no stdio or http server was observed (the driver stopped first), ${unseen}`,
    ]);
    expect(
      judgeRuntimeSdk({ ...base, binFile: 'x/./server.js', phases: [phase('stdio', [seen('stdio', { probe: false, nodeBin: false })])] })
        .messages,
    ).toStrictEqual([`the stdio server ran without the probe: its bin x/./server.js is not a Node program, ${unseen}`]);
  });

  it('a server that answered having loaded only SDK packages this cell does not pin names them', () => {
    const other = { name: '@modelcontextprotocol/server', version: '2.0.0', path: 'node_modules/@modelcontextprotocol/server' };
    const client = { name: '@modelcontextprotocol/client', version: '2.0.0', path: 'node_modules/x' };
    const check = judgeRuntimeSdk({ ...base, phases: [phase('stdio', [seen('stdio', { copies: [other, client] })])] });
    expect(check.messages).toStrictEqual([
      'the stdio server answered without loading node_modules/@modelcontextprotocol/sdk (1.32.2): it loaded @modelcontextprotocol/server 2.0.0 from node_modules/@modelcontextprotocol/server, @modelcontextprotocol/client 2.0.0 from node_modules/x, which this cell does not pin',
    ]);
    // Not answering and loading only foreign packages: not measured, not failed.
    const quiet = judgeRuntimeSdk({ ...base, phases: [phase('stdio', [seen('stdio', { answered: false, copies: [other] })])] });
    expect(quiet).toMatchObject({
      verdict: 'not-measured',
      messages: [`the stdio server neither answered nor loaded an SDK copy, ${unseen}`],
    });
  });

  it('a second copy is compared with the cell copy of the same package, not another pinned one', () => {
    const set = { '@modelcontextprotocol/server': '2.1.0', '@modelcontextprotocol/node': '2.0.1' };
    const server = { name: '@modelcontextprotocol/server', version: '2.1.0', path: 'node_modules/@modelcontextprotocol/server' };
    const node = { name: '@modelcontextprotocol/node', version: '2.0.1', path: 'node_modules/@modelcontextprotocol/node' };
    const second = { name: '@modelcontextprotocol/node', version: '2.0.0', path: 'node_modules/x/node_modules/@modelcontextprotocol/node' };
    const check = judgeRuntimeSdk({
      ...base,
      installSet: set,
      primary: '@modelcontextprotocol/server',
      phases: [phase('stdio', [seen('stdio', { copies: [server, node, second] })])],
    });
    expect(check.messages).toStrictEqual([
      "the stdio server loaded a second copy of @modelcontextprotocol/node: 2.0.0 from node_modules/x/node_modules/@modelcontextprotocol/node, besides the cell's 2.0.1 at node_modules/@modelcontextprotocol/node",
    ]);
  });

  it('a failure outweighs a server that loaded the cell copy; the same finding of one server reads once', () => {
    const wrong = { ...COPY, version: '1.25.0' };
    const check = judgeRuntimeSdk({
      ...base,
      phases: [
        phase('stdio', [seen('stdio'), seen('stdio', { copies: [wrong] }), seen('stdio', { copies: [wrong] })]),
        phase('http', [seen('http')]),
      ],
    });
    expect(check.verdict).toBe('failed');
    expect(check.messages).toStrictEqual([
      'the stdio server loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/@modelcontextprotocol/sdk, not the pinned 1.32.2',
    ]);
  });

  it('withRuntimeSdk: the whole result and evidence, for each combination', () => {
    const evidence = { npm: '11' } as unknown as Parameters<typeof withRuntimeSdk>[0]['evidence'];
    const passed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1, details: { sdk: ['x'] } };
    const ok = judgeRuntimeSdk({ ...base, phases: [phase('stdio', [seen('stdio')])] });
    expect(withRuntimeSdk({ result: passed, evidence }, ok)).toStrictEqual({
      result: { ...passed, details: { sdk: ['x'], runtime: { verdict: 'passed' } } },
      evidence: { npm: '11', loadedSdk: [seen('stdio')] },
    });
    const none = judgeRuntimeSdk({ ...base, enabled: { stdio: false, http: false }, phases: [] });
    expect(withRuntimeSdk({ result: passed, evidence }, none)).toStrictEqual({
      result: {
        ...passed,
        verdict: 'not-measured',
        message: none.messages[0],
        step: 'loaded SDK',
        details: { sdk: ['x'], runtime: { verdict: 'not-measured', messages: none.messages }, problems: none.messages },
      },
      evidence: { npm: '11' },
    });
    // A failed result without a problems list or a step: its message is the static problem, the step "verify".
    const failed: PhaseResult = { phase: 'environment', verdict: 'failed', durationMs: 1, message: 'broken' };
    expect(withRuntimeSdk({ result: failed, evidence }, none).result).toStrictEqual({
      ...failed,
      step: 'verify',
      message: 'broken',
      details: { runtime: { verdict: 'not-measured', messages: none.messages }, problems: ['broken'] },
    });
    const bare: PhaseResult = { phase: 'environment', verdict: 'failed', durationMs: 1, details: { problems: 'not a list' } };
    expect(withRuntimeSdk({ result: bare, evidence }, ok).result).toMatchObject({
      message: 'failed',
      step: 'verify',
      details: { problems: ['failed'] },
    });
    const listed: PhaseResult = { ...bare, step: 'custom', details: { problems: ['a', 2] } };
    expect(withRuntimeSdk({ result: listed, evidence }, ok).result).toMatchObject({ message: 'a; 2', step: 'custom' });
  });
});
