import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTargets, missingFromTarball } from '../../../src/judge/environment/tarball-files.js';

// Made in beforeAll, not when the file is collected: a run that filters every test of it out (vitest -t,
// a mutation run) collects it but runs no hook, and a directory made at collection was left in /tmp.
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mm-tarball-files-'));
  mkdirSync(path.join(dir, 'dist'));
  writeFileSync(path.join(dir, 'dist/index.js'), '');
  for (const f of ['data.json', 'native.node', 'j/index.json', 'n/index.node']) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), '');
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('missingFromTarball', () => {
  it('a bin given as a string is checked', () => {
    expect(missingFromTarball(dir, { bin: './bin/cli.js' })).toBe(
      'bin bin/cli.js is missing from the tarball: run the build before npm pack (e.g. a "prepack" script)',
    );
    expect(missingFromTarball(dir, { bin: './dist/index.js' })).toBeUndefined();
  });

  it('three missing files are listed as "a, b and c are missing"', () => {
    expect(missingFromTarball(dir, { bin: { x: 'bin/x.js' }, main: 'lib/main.js', exports: { '.': './lib/esm.js' } })).toBe(
      'bin bin/x.js, main lib/main.js and exports "." → lib/esm.js are missing from the tarball: run the build before npm pack (e.g. a "prepack" script)',
    );
  });
});

describe('missingFromTarball: main resolves as CommonJS does', () => {
  it.each(['dist/index', 'dist', 'data', 'native', 'j', 'n', './dist/index.js'])('main %s is found', (main) => {
    expect(missingFromTarball(dir, { main })).toBeUndefined();
  });

  it('a Windows-style path is named with forward slashes', () => {
    expect(missingFromTarball(dir, { bin: { x: '.\\bin\\x.js' } })).toBe(
      'bin bin/x.js is missing from the tarball: run the build before npm pack (e.g. a "prepack" script)',
    );
  });
});

describe('exportTargets', () => {
  it('a string is the root export; conditions keep their subpath', () => {
    expect(exportTargets('./x.js')).toEqual([['.', './x.js']]);
    expect(exportTargets({ '.': { import: './a.mjs', require: './a.cjs' }, './sub': './s.js' })).toEqual([
      ['.', './a.mjs'],
      ['.', './a.cjs'],
      ['./sub', './s.js'],
    ]);
  });

  it('follows arrays of targets, skips null targets and targets that do not start with ./', () => {
    expect(exportTargets({ '.': ['./a.js', './b.js'] })).toEqual([
      ['.', './a.js'],
      ['.', './b.js'],
    ]);
    expect(exportTargets({ '.': null, './x': 'lib/x.js' })).toEqual([]);
  });
});
