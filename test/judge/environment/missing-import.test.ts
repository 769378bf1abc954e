import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyMissing, describeMissing, explainMissing, parseMissing } from '../../../src/judge/environment/missing-import.js';
import type { PhaseResult } from '../../../src/results/types.js';

let cell = '';
afterEach(() => cell && rmSync(cell, { recursive: true, force: true }));

/** A pnpm-like cell: each package in `.pnpm/<name>@<version>/node_modules/<name>` with its manifest. */
function layout(packages: Record<string, Record<string, unknown>>): string {
  cell = mkdtempSync(path.join(tmpdir(), 'mm-missing-'));
  for (const [name, manifest] of Object.entries(packages)) {
    const dir = path.join(cell, 'node_modules/.pnpm', `${name.replace('/', '+')}@1.0.0/node_modules`, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...manifest }));
  }
  return cell;
}
const file = (name: string, rel: string) =>
  path.join(cell, 'node_modules/.pnpm', `${name.replace('/', '+')}@1.0.0/node_modules`, name, rel);
const esm = (spec: string, from: string) =>
  `node:internal/modules/esm/resolve:873\nError [ERR_MODULE_NOT_FOUND]: Cannot find package '${spec}' imported from ${from}\n    at packageResolve`;

describe('parseMissing', () => {
  it("reads Node's ES module and CommonJS messages; a relative or builtin specifier is not a package", () => {
    expect(parseMissing(esm('zod/v4', '/c/node_modules/srv/dist/index.js'))).toEqual({
      specifier: 'zod/v4',
      from: '/c/node_modules/srv/dist/index.js',
      clipped: false,
    });
    const cjs = "Error: Cannot find module 'open'\nRequire stack:\n- /c/node_modules/srv/lib/auth.js\n- /c/node_modules/srv/bin/cli.js";
    expect(parseMissing(cjs)).toEqual({ specifier: 'open', from: '/c/node_modules/srv/lib/auth.js', clipped: false });
    expect(parseMissing(esm('zod', '/c/node_modules/srv/dist/ind…'))).toMatchObject({
      clipped: true,
      from: '/c/node_modules/srv/dist/ind',
    });
    expect(parseMissing("Error: Cannot find module './lib.js'\nRequire stack:\n- /c/x.js")).toBeUndefined();
    expect(parseMissing('Error: something else')).toBeUndefined();
  });
});

describe('classifyMissing and explainMissing: the three cases', () => {
  it("the package's own undeclared import: its file, and the static check's line", async () => {
    layout({ srv: { dependencies: { '@modelcontextprotocol/sdk': '^1' } } });
    const stdio: PhaseResult = {
      phase: 'stdio',
      verdict: 'failed',
      durationMs: 1,
      step: 'initialize',
      message: 'initialize: the server exited with code 1 (see its stderr)',
      stderrTail: esm('zod', file('srv', 'dist/index.js')),
    };
    const checks = [
      {
        id: 'undeclared-imports',
        outcome: 'failed' as const,
        level: 'require' as const,
        message: '…',
        evidence: { undeclared: [{ package: 'zod', sites: [{ file: 'dist/index.js', line: 5, kind: 'import', specifier: 'zod' }] }] },
      },
    ];
    const explained = await explainMissing(stdio, 'srv', checks);
    expect(explained.message).toBe(
      "initialize: the server exited with code 1 (see its stderr): cannot find zod, imported by dist/index.js of srv@1.0.0 (the undeclared-imports check: dist/index.js:5), which does not declare it in dependencies, peerDependencies or optionalDependencies: the package's own undeclared import, which npm's flat node_modules hides; declare it",
    );
    expect(explained.details).toEqual({
      missingImport: { package: 'zod', importer: { name: 'srv', version: '1.0.0', file: 'dist/index.js' }, case: 'own-undeclared' },
    });
  });

  it('an undeclared import inside a dependency names it and its version: an upgrade or an override', async () => {
    layout({ srv: { dependencies: { helper: '^1' } }, helper: {} });
    const m = await classifyMissing(esm('open', file('helper', 'index.js')), 'srv');
    expect(m).toEqual({ package: 'open', importer: { name: 'helper', version: '1.0.0', file: 'index.js' }, case: 'dependency-undeclared' });
    const stdio: PhaseResult = {
      phase: 'stdio',
      verdict: 'failed',
      durationMs: 1,
      message: 'x',
      stderrTail: esm('open', file('helper', 'index.js')),
    };
    expect((await explainMissing(stdio, 'srv')).message).toBe(
      "x: cannot find open, imported by index.js of helper@1.0.0, which does not declare it: an undeclared import inside the dependency helper@1.0.0, not the package's own; the fix is an upgrade of helper to a version that declares it, or an override (packageExtensions, in pnpm's or Yarn's settings)",
    );
  });

  it('a declared peer the manager did not install blames no package', async () => {
    layout({ '@acme/srv': { peerDependencies: { keytar: '^7' } } });
    const m = await classifyMissing(esm('keytar', file('@acme/srv', 'lib/store.js')), '@acme/srv');
    expect(m).toMatchObject({ package: 'keytar', declaredIn: 'peerDependencies', case: 'declared-not-installed' });
    const stdio: PhaseResult = {
      phase: 'stdio',
      verdict: 'failed',
      durationMs: 1,
      message: 'x',
      stderrTail: esm('keytar', file('@acme/srv', 'lib/store.js')),
    };
    expect((await explainMissing(stdio, '@acme/srv')).message).toMatch(
      /which declares it in peerDependencies: a peer the package manager did not install; no package is blamed$/,
    );
  });

  it("an importer outside node_modules is no package's file: named, nobody blamed (not the package under test)", async () => {
    const stderr = esm('zod', '/tmp/srv-generated/plugin.mjs');
    const m = await classifyMissing(stderr, 'srv');
    expect(m).toEqual({ package: 'zod', file: '/tmp/srv-generated/plugin.mjs', case: 'outside-packages' });
    const stdio: PhaseResult = { phase: 'stdio', verdict: 'failed', durationMs: 1, message: 'x', stderrTail: stderr };
    expect((await explainMissing(stdio, 'srv')).message).toBe(
      'x: cannot find zod, imported by /tmp/srv-generated/plugin.mjs, a file outside node_modules that belongs to no installed package: no manifest says whether it should be declared; no package is blamed',
    );
    // A path cut by the stderr tail before any node_modules/ may still be a package's file: no cause is claimed.
    await expect(classifyMissing(esm('zod', '/tmp/srv-gen…'), 'srv')).resolves.toBeUndefined();
  });

  it('leaves a passed phase, another phase, or a failure without such a line as it is', async () => {
    const base: PhaseResult = { phase: 'stdio', verdict: 'failed', durationMs: 1, message: 'x', stderrTail: 'TypeError: boom' };
    expect(await explainMissing(base, 'srv')).toBe(base);
    const passed = { ...base, verdict: 'passed' as const, stderrTail: esm('zod', '/c/node_modules/srv/a.js') };
    expect(await explainMissing(passed, 'srv')).toBe(passed);
  });
});

describe('YarN PnP: its refusals, a peer no ancestor provides, and a resolution its hooks never saw'.replace('YarN', 'Yarn'), () => {
  const pnpError = (issuer: string, pkg: string, peer: boolean, by: string) =>
    [
      'node:internal/modules/run_main:123',
      `Error: ${issuer} tried to access ${pkg}${peer ? " (a peer dependency) but it isn't provided by its ancestors" : ", but it isn't declared in its dependencies"}; this makes the require call ambiguous and unsound.`,
      '',
      `Required package: ${pkg} (via "${pkg}/package.json")`,
      `Required by: ${by}`,
      '    at makeError (/c/.pnp.cjs:6842:34)',
    ].join('\n');
  const zip = '/home/u/.cache/mcp-matrix/yarn/cache/helper-npm-2.1.0-ab12-10c0.zip/node_modules/helper';

  it('an undeclared import inside a dependency: its name and version from the reference, the file from "via"', async () => {
    const stderr = pnpError('helper', 'lodash', false, `helper@npm:2.1.0 (via ${zip}/lib/index.js)`);
    await expect(classifyMissing(stderr, 'srv')).resolves.toEqual({
      package: 'lodash',
      importer: { name: 'helper', version: '2.1.0', file: 'lib/index.js' },
      case: 'dependency-undeclared',
    });
  });

  it("the package's own (unplugged, referenced by its tarball): the version read from its manifest on disk", async () => {
    layout({});
    const dir = path.join(cell, '.yarn/unplugged/srv-virtual-1/node_modules/srv');
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'srv', version: '3.0.1' }));
    const stderr = pnpError(
      'srv',
      'zod',
      false,
      `srv@virtual:abc#file:/t/srv.tgz::hash=8068fc&locator=cell%40workspace%3A. (via ${dir}/bin/server.js)`,
    );
    const m = await classifyMissing(stderr, 'srv');
    expect(m).toEqual({ package: 'zod', importer: { name: 'srv', version: '3.0.1', file: 'bin/server.js' }, case: 'own-undeclared' });
  });

  it("a dependency referenced by a path (`file:`), its manifest in a zip: the version from the cell's layout", async () => {
    const lib = '/c/.yarn/cache/mini-file-d6f5-10c0.zip/node_modules/mini';
    const stderr = pnpError(
      'mini',
      'zod',
      false,
      `mini@file:lib#lib::hash=5468eb&locator=srv%40file%3A%2Ft%2Fsrv.tgz (via ${lib}/index.js)`,
    );
    const packages = [
      { name: 'mini', version: '9.9.9', location: '/c/.yarn/cache/mini-npm-9.9.9-ab-10c0.zip/node_modules/mini/' },
      { name: 'mini', version: '0.2.0', location: `${lib}/` },
    ];
    await expect(classifyMissing(stderr, 'srv', packages)).resolves.toEqual({
      package: 'zod',
      importer: { name: 'mini', version: '0.2.0', file: 'index.js' },
      case: 'dependency-undeclared',
    });
    // Without the layout (or with two copies, neither holding the file) the version is not guessed.
    await expect(classifyMissing(stderr, 'srv')).resolves.toMatchObject({ importer: { version: '?' } });
    await expect(classifyMissing(stderr, 'srv', packages.slice(0, 1))).resolves.toMatchObject({ importer: { version: '9.9.9' } });
    await expect(classifyMissing(stderr, 'srv', [packages[0]!, { ...packages[0]!, version: '1.0.0' }])).resolves.toMatchObject({
      importer: { version: '?' },
    });
  });

  it('a peer no ancestor provides: shown as what it is, no package blamed; a scoped issuer is read whole', async () => {
    const stderr = pnpError(
      '@acme/kit',
      'react',
      true,
      `@acme/kit@virtual:f00#npm:1.4.0 (via /c/.yarn/__virtual__/x/0/cache/kit.zip/node_modules/@acme/kit/dist/a.js)`,
    );
    const m = await classifyMissing(stderr, 'srv');
    expect(m).toEqual({
      package: 'react',
      importer: { name: '@acme/kit', version: '1.4.0', file: 'dist/a.js' },
      declaredIn: 'peerDependencies',
      case: 'peer-not-provided',
    });
    expect(describeMissing(m!)).toContain('Yarn installs no peer by itself');
    expect(describeMissing(m!)).toContain('no package is blamed');
  });

  it("Node's own resolver failing on a file in Yarn's cache: PnP's hooks never saw it (a known limitation), no package blamed", async () => {
    const m = await classifyMissing(esm('chalk', `${zip}/dist/esm.js`), 'srv');
    expect(m).toEqual({ package: 'chalk', importer: { name: 'helper', version: '?', file: 'dist/esm.js' }, case: 'pnp-escaped' });
    expect(describeMissing(m!)).toMatch(/PnP's hooks never saw this import .*no package is blamed$/);
    const located = await classifyMissing(esm('chalk', `${zip}/dist/esm.js`), 'srv', [
      { name: 'helper', version: '2.1.0', location: `${zip}/` },
    ]);
    expect(located).toMatchObject({ importer: { name: 'helper', version: '2.1.0' } });
  });

  it('a cut "Required by" line keeps the package and the issuer, without a file', async () => {
    const stderr = pnpError('helper', 'lodash', false, 'helper@npm:2.1.0 (via /home/u/.cache/mcp-matr…');
    await expect(classifyMissing(stderr, 'srv')).resolves.toEqual({
      package: 'lodash',
      importer: { name: 'helper', version: '2.1.0' },
      case: 'dependency-undeclared',
    });
  });
});

describe('classifyMissing and explainMissing: the edges', () => {
  const failed = (stderrTail: string, extra: Partial<PhaseResult> = {}): PhaseResult => ({
    phase: 'stdio',
    verdict: 'failed',
    durationMs: 1,
    message: 'x',
    stderrTail,
    ...extra,
  });

  it('a scoped package is named whole; a manifest without a version, or none, reads "?"', async () => {
    layout({ srv: {} });
    writeFileSync(file('srv', 'package.json'), JSON.stringify({ name: 'srv' }));
    await expect(classifyMissing(esm('@acme/kit/sub', file('srv', 'a.js')), 'srv')).resolves.toEqual({
      package: '@acme/kit',
      importer: { name: 'srv', version: '?', file: 'a.js' },
      case: 'own-undeclared',
    });
    await expect(classifyMissing(esm('zod', '/no/such/cell/node_modules/srv/a.js'), 'srv')).resolves.toEqual({
      package: 'zod',
      importer: { name: 'srv', version: '?', file: 'a.js' },
      case: 'own-undeclared',
    });
  });

  it('a cut importer path names no file; a CommonJS stack printed indented (an error inside another) is read', async () => {
    layout({ srv: {} });
    await expect(classifyMissing(esm('zod', `${file('srv', 'dist/ind')}…`), 'srv')).resolves.toEqual({
      package: 'zod',
      importer: { name: 'srv', version: '1.0.0' },
      case: 'own-undeclared',
    });
    // Cut inside the importer's name: which package it is cannot be told, so none is blamed.
    await expect(classifyMissing(esm('zod', '/c/node_modules/srv-long-na…'), 'srv')).resolves.toBeUndefined();
    await expect(classifyMissing(esm('zod', '/c/node_modules/@sco…'), 'srv')).resolves.toBeUndefined();
    const nested = `  [cause]: Error: Cannot find module 'open'\n  Require stack:\n  - ${file('srv', 'lib/a.js')}`;
    await expect(classifyMissing(nested, 'srv')).resolves.toMatchObject({ package: 'open', importer: { file: 'lib/a.js' } });
  });

  it('a declared dependency the manager did not install', async () => {
    layout({ srv: { dependencies: { keytar: '^7' } } });
    const m = await classifyMissing(esm('keytar', file('srv', 'a.js')), 'srv');
    expect(m).toMatchObject({ declaredIn: 'dependencies', case: 'declared-not-installed' });
    expect(describeMissing(m!)).toBe(
      'cannot find keytar, imported by a.js of srv@1.0.0, which declares it in dependencies: the package manager did not install it; no package is blamed',
    );
  });

  it("the static check's sites: every one of the package's own, none for another case", async () => {
    layout({ srv: {}, helper: {} });
    const undeclared = [
      { package: 'open', sites: [{ file: 'x.js', line: 1 }] },
      {
        package: 'zod',
        sites: [
          { file: 'a.js', line: 2 },
          { file: 'b.js', line: 3 },
        ],
      },
    ];
    const checks = [
      { id: 'undeclared-imports', outcome: 'failed' as const, level: 'require' as const, message: '…', evidence: { undeclared } },
    ];
    const own = await explainMissing(failed(esm('zod', file('srv', 'a.js'))), 'srv', checks);
    expect(own.message).toContain('imported by a.js of srv@1.0.0 (the undeclared-imports check: a.js:2, b.js:3), which');
    const theirs = await explainMissing(failed(esm('zod', file('helper', 'i.js'))), 'srv', checks);
    expect(theirs.message).toMatch(/^x: cannot find zod, imported by i\.js of helper@1\.0\.0, which does not declare it:/);
    const none = await explainMissing(failed(esm('zod', file('srv', 'a.js'))), 'srv', [{ ...checks[0]!, evidence: {} }]);
    expect(none.message).toContain('imported by a.js of srv@1.0.0, which');
  });

  it('an http phase is explained too, one without a message as "failed"; another phase is left as it is', async () => {
    layout({ srv: {} });
    const http = await explainMissing(failed(esm('zod', file('srv', 'a.js')), { phase: 'http', message: undefined }), 'srv');
    expect(http.message).toMatch(/^failed: cannot find zod, imported by a\.js of srv@1\.0\.0,/);
    const conformance = failed(esm('zod', file('srv', 'a.js')), { phase: 'conformance' });
    expect(await explainMissing(conformance, 'srv')).toBe(conformance);
  });
});

describe('parseMissing and describeMissing: the edges', () => {
  it("a builtin Node does not have (CommonJS names it too) is no package; a subpath's package is its first part", async () => {
    expect(parseMissing("Error: Cannot find module 'node:nope'\nRequire stack:\n- /c/node_modules/srv/a.js")).toBeUndefined();
    layout({ srv: {} });
    await expect(classifyMissing(esm('zod/v4/core', file('srv', 'a.js')), 'srv')).resolves.toMatchObject({ package: 'zod' });
  });

  it('without an importer (a record from before 5ea7fe4) or a file, the sentence still names what it knows', () => {
    expect(describeMissing({ package: 'zod', case: 'own-undeclared' })).toBe(
      "cannot find zod, imported by the package, which does not declare it in dependencies, peerDependencies or optionalDependencies: the package's own undeclared import, which npm's flat node_modules hides; declare it",
    );
    expect(describeMissing({ package: 'zod', case: 'outside-packages' })).toBe(
      'cannot find zod, imported by a file, a file outside node_modules that belongs to no installed package: no manifest says whether it should be declared; no package is blamed',
    );
  });
});

describe('Yarn PnP: the edges of its messages', () => {
  const refusal = (issuer: string, by: string) =>
    `Error: ${issuer} tried to access lodash, but it isn't declared in its dependencies; this makes the require call ambiguous and unsound.\n\nRequired package: lodash\nRequired by: ${by}\n`;

  it("'Your application' is no package: nothing is blamed by PnP's message", async () => {
    const stderr =
      "Error: Your application tried to access lodash, but it isn't declared in your dependencies; this makes the require call ambiguous and unsound.\n\nRequired package: lodash\nRequired by: /c/\n";
    await expect(classifyMissing(stderr, 'srv')).resolves.toBeUndefined();
  });

  it('the "Required by" after the refusal, naming the issuer; an aliased npm reference gives its version', async () => {
    const earlier = 'Required by: helper@npm:9.9.9 (via /c/old.js)\n';
    const m = await classifyMissing(earlier + refusal('helper', 'helper@npm:real-helper@2.1.0'), 'srv');
    expect(m).toEqual({ package: 'lodash', importer: { name: 'helper', version: '2.1.0' }, case: 'dependency-undeclared' });
    // A "Required by" of another package gives no version; a via cut short, no file.
    await expect(classifyMissing(refusal('helper', 'other@npm:3.0.0 (via /c/x.zip/node_modules/helper/li…)'), 'srv')).resolves.toEqual({
      package: 'lodash',
      importer: { name: 'helper', version: '?' },
      case: 'dependency-undeclared',
    });
  });

  it('a file: reference without a via: the version from the layout alone (its only copy of that name)', async () => {
    const packages = [
      { name: 'zod', version: '4.1.0', location: '/c/.yarn/cache/zod.zip/node_modules/zod/' },
      { name: 'mini', version: '0.2.0', location: '/c/.yarn/cache/mini.zip/node_modules/mini/' },
    ];
    await expect(classifyMissing(refusal('mini', 'mini@file:lib#lib::hash=5468eb'), 'srv', packages)).resolves.toEqual({
      package: 'lodash',
      importer: { name: 'mini', version: '0.2.0' },
      case: 'dependency-undeclared',
    });
  });

  it('a via outside node_modules (a portal or link: package) names no file', async () => {
    await expect(classifyMissing(refusal('helper', 'helper@npm:2.1.0 (via /c/packages/helper/index.js)'), 'srv')).resolves.toEqual({
      package: 'lodash',
      importer: { name: 'helper', version: '2.1.0' },
      case: 'dependency-undeclared',
    });
  });

  it("Node's resolver escaping PnP in a scoped package's zip: the package named whole, its file", async () => {
    const from = '/c/.yarn/cache/@acme-kit-npm-1.0.0-ab-10c0.zip/node_modules/@acme/kit/dist/a.js';
    await expect(classifyMissing(esm('chalk', from), 'srv')).resolves.toEqual({
      package: 'chalk',
      importer: { name: '@acme/kit', version: '?', file: 'dist/a.js' },
      case: 'pnp-escaped',
    });
    // Cut inside the package's name: it cannot be told, so no importer is named.
    await expect(
      classifyMissing(esm('chalk', '/c/.yarn/cache/@acme-kit-npm-1.0.0-ab-10c0.zip/node_modules/@acme/k…'), 'srv'),
    ).resolves.toBeUndefined();
  });
});
