// The reuse key: npm's resolution less the package under test, and the trees that are never reused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextKey, treeKey } from '../../../src/cells/install/tree-key.js';

const lock = (packages: Record<string, Record<string, unknown>>) =>
  JSON.stringify({
    name: 'mcp-matrix-cell',
    lockfileVersion: 3,
    packages: {
      '': { dependencies: { pkg: 'file:/tmp/run-1/pkg-1.0.0.tgz' } },
      'node_modules/pkg': { version: '1.0.0', resolved: 'file:../run-1/pkg-1.0.0.tgz', integrity: 'sha512-A', bin: { pkg: 'bin/x.js' } },
      'node_modules/zod': { version: '3.25.0', integrity: 'sha512-Z' },
      ...packages,
    },
  });

describe('treeKey', () => {
  it('is the same for another tarball of the package (or another package) on the same tree', () => {
    const a = treeKey(lock({}), 'pkg', 'ctx');
    const other = JSON.parse(lock({})) as { packages: Record<string, unknown> };
    other.packages['node_modules/pkg'] = { version: '2.0.0', resolved: 'file:../run-2/pkg-2.0.0.tgz', integrity: 'sha512-B' };
    other.packages['node_modules/pkg/node_modules/own'] = { version: '1.0.0', integrity: 'sha512-O' };
    expect(a).toMatchObject({ ok: true, drop: ['pkg', '.bin/pkg', '.bin/pkg.cmd', '.bin/pkg.ps1'], ownScripts: false });
    expect(treeKey(JSON.stringify(other), 'pkg', 'ctx')).toMatchObject({ ok: true, key: (a as { key: string }).key });
  });

  it('changes with any dependency, and with the context', () => {
    const a = treeKey(lock({}), 'pkg', 'ctx');
    const b = treeKey(lock({ 'node_modules/zod': { version: '3.25.1', integrity: 'sha512-Y' } }), 'pkg', 'ctx');
    expect(a.ok && b.ok && a.key !== b.key).toBe(true);
    const c = treeKey(lock({}), 'pkg', 'ctx2');
    expect(a.ok && c.ok && a.key !== c.key && c.key.startsWith('ctx2-')).toBe(true);
  });

  it('refuses trees npm would not lay out from the registry alone', () => {
    expect(treeKey(lock({ 'node_modules/x': { version: '1.0.0', integrity: 'sha512-X', hasInstallScript: true } }), 'pkg', 'c')).toEqual({
      ok: false,
      why: 'node_modules/x has install scripts',
    });
    expect(treeKey(lock({ 'node_modules/x': { resolved: '../x', link: true } }), 'pkg', 'c')).toEqual({
      ok: false,
      why: 'node_modules/x is a linked package',
    });
    expect(
      treeKey(lock({ 'node_modules/x': { resolved: 'git+ssh://git@github.com/a/x.git#abc', integrity: 'sha512-X' } }), 'pkg', 'c'),
    ).toEqual({
      ok: false,
      why: 'node_modules/x does not come from a registry with an integrity',
    });
    expect(treeKey(lock({ 'node_modules/x': { version: '1.0.0' } }), 'pkg', 'c')).toMatchObject({ ok: false });
    expect(treeKey(lock({ 'node_modules/x': { version: '1.0.0', integrity: 'sha512-X', bin: { pkg: 'x.js' } } }), 'pkg', 'c')).toEqual({
      ok: false,
      why: 'node_modules/x has the bin pkg, as pkg has',
    });
    expect(treeKey('{', 'pkg', 'c')).toMatchObject({ ok: false });
    expect(treeKey(lock({}), 'other', 'c')).toEqual({ ok: false, why: 'the lockfile has no node_modules/other' });
  });

  it('accepts a registry tarball URL and notes the package’s own scripts (its cell is not stored)', () => {
    const text = JSON.parse(lock({ 'node_modules/x': { version: '1', resolved: 'https://r.example/x-1.tgz', integrity: 'sha512-X' } })) as {
      packages: Record<string, Record<string, unknown>>;
    };
    text.packages['node_modules/pkg']!.hasInstallScript = true;
    expect(treeKey(JSON.stringify(text), 'pkg', 'c')).toMatchObject({ ok: true, ownScripts: true });
  });
});

describe('contextKey', () => {
  it('separates npm versions and npm configuration from the environment', () => {
    const home = { HOME: '/nonexistent' };
    expect(contextKey('11.0.0', home)).toBe(contextKey('11.0.0', home));
    expect(contextKey('11.0.0', home)).not.toBe(contextKey('11.0.1', home));
    expect(contextKey('11.0.0', home)).not.toBe(contextKey('11.0.0', { ...home, npm_config_omit: 'optional' }));
  });

  it('keys a run started by npm (npx, npm run) as the same run started directly', () => {
    const rc = path.join(mkdtempSync(path.join(tmpdir(), 'mm-key-')), 'npmrc');
    writeFileSync(rc, 'omit-lockfile-registry-resolved=true\nfund=false\ncafile=/etc/ca.crt\nregistry=https://r.example/\n');
    const direct = { npm_config_userconfig: rc };
    // What `npm exec` exported on this machine (npm 11.19.1): its start, and the .npmrc's settings again.
    const underNpm = {
      ...direct,
      npm_config_local_prefix: '/some/project',
      npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
      npm_config_npm_version: '11.19.1',
      npm_config_prefix: '/usr',
      npm_config_global_prefix: '/usr',
      npm_config_cache: '/root/.npm',
      npm_config_node_gyp: '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
      npm_config_init_module: '/root/.npm-init.js',
      npm_config_globalconfig: '/usr/etc/npmrc',
      npm_config_omit_lockfile_registry_resolved: 'true',
      npm_config_fund: '',
      npm_config_cafile: '/etc/ca.crt',
      npm_config_noproxy: '',
      npm_config_allow_scripts: '',
    };
    expect(contextKey('11.0.0', underNpm)).toBe(contextKey('11.0.0', direct));
    expect(contextKey('11.0.0', { ...underNpm, npm_config_local_prefix: '/another/project' })).toBe(contextKey('11.0.0', direct));
    // A setting the environment changes from the .npmrc's, or adds, still separates.
    expect(contextKey('11.0.0', { ...direct, npm_config_registry: 'https://other.example/' })).not.toBe(contextKey('11.0.0', direct));
    expect(contextKey('11.0.0', { ...direct, NPM_CONFIG_REGISTRY: 'https://other.example/' })).not.toBe(contextKey('11.0.0', direct));
    expect(contextKey('11.0.0', { ...direct, npm_config_registry: '' })).not.toBe(contextKey('11.0.0', direct));
    // An empty value is npm's false: optional dependencies left out is another tree.
    expect(contextKey('11.0.0', { ...direct, npm_config_optional: '' })).not.toBe(contextKey('11.0.0', direct));
    expect(contextKey('11.0.0', { ...direct, npm_config_fund: 'true' })).not.toBe(contextKey('11.0.0', direct));
    expect(contextKey('11.0.0', { ...direct, npm_config_omit: 'optional' })).not.toBe(contextKey('11.0.0', direct));
    // So does the .npmrc itself.
    const other = path.join(path.dirname(rc), 'other');
    writeFileSync(other, 'omit-lockfile-registry-resolved=true\nfund=false\ncafile=/etc/ca.crt\nregistry=https://other.example/\n');
    expect(contextKey('11.0.0', { npm_config_userconfig: other })).not.toBe(contextKey('11.0.0', direct));
    rmSync(path.dirname(rc), { recursive: true, force: true });
  });
});
