import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { edgesIn, scanImports, subpathTargets } from '../../../src/judge/environment/import-graph.js';
import { undeclaredOf } from '../../../src/judge/environment/undeclared-imports.js';

let dir = '';
// Every package a test lays out, some tests lay out two.
const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A package laid out by hand: its manifest and files. */
function pkg(manifest: Record<string, unknown>, files: Record<string, string>): string {
  dir = mkdtempSync(path.join(tmpdir(), 'mm-import-graph-'));
  made.push(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const sites = (scan: ReturnType<typeof scanImports>) =>
  scan.imports.map((i) => `${i.packageName} ${i.kind} ${i.file}:${i.line} ${i.static}`);

describe('edgesIn', () => {
  it('finds every form of import, with its line', () => {
    const src = [
      '#!/usr/bin/env node',
      "import a from 'a';",
      "export { b } from 'b';",
      "export * from 'c';",
      "const d = await import('d');",
      'const e = await import(`e`);',
      'const f = await import(name);',
    ].join('\n');
    expect(edgesIn(src, true).map((e) => `${e.kind} ${e.spec} ${e.line}`)).toEqual([
      'import a 2',
      'export-from b 3',
      'export-from c 4',
      'import() d 5',
      'import() e 6',
    ]);
  });

  it('tells a plain require from one inside try and from require.resolve', () => {
    const src = [
      "'use strict';",
      "const g = require('g');",
      "try { require('h'); } catch { require('i'); }",
      "function lazy() { return require('j'); }",
      "require.resolve('k');",
      'return;', // top-level return: only a CommonJS script allows it
    ].join('\n');
    expect(edgesIn(src, false).map((e) => `${e.kind} ${e.spec}`)).toEqual([
      'require g',
      'guarded require h',
      'require i',
      'require j',
      'require.resolve k',
    ]);
  });

  it("counts a bundle's require shims: esbuild's and Bun's __require, a name bound to createRequire", () => {
    const src = [
      "import { createRequire } from 'node:module';",
      'var __require = ((x) => typeof require !== "undefined" ? require : x)(function (x) { throw Error(x); });',
      "var zod = __require('zod');",
      'const req = createRequire(import.meta.url);',
      "const open = req('open');",
      "let r2; r2 = module.createRequire(import.meta.url); r2('yaml');",
      "try { __require('optional'); } catch {}",
      "__require.resolve('resolved');",
      "other('not-a-require');",
    ].join('\n');
    expect(edgesIn(src, true).map((e) => `${e.kind} ${e.spec}`)).toEqual([
      'import node:module',
      'require zod',
      'require open',
      'require yaml',
      'guarded require optional',
      'require.resolve resolved',
    ]);
  });

  it('falls back to the other source type, and throws when neither parses', () => {
    expect(edgesIn("import x from 'x';", false).map((e) => e.spec)).toEqual(['x']);
    expect(() => edgesIn('this is not javascript', true)).toThrow();
  });
});

describe('subpathTargets', () => {
  it('maps #x through conditions and patterns', () => {
    const imports = { '#db': { node: './lib/db.js', default: 'better-db' }, '#util/*': './lib/util/*.js' };
    expect(subpathTargets('#db', imports)).toEqual(['./lib/db.js', 'better-db']);
    expect(subpathTargets('#util/log', imports)).toEqual(['./lib/util/log.js']);
    expect(subpathTargets('#none', imports)).toEqual([]);
  });
});

describe('scanImports', () => {
  it('follows relative and subpath imports from bin, main and exports; builtins, node: and the package itself do not count', () => {
    const manifest = {
      name: 'srv',
      type: 'module',
      bin: { srv: './bin/cli.js' },
      exports: { '.': './lib/index.js', './types': './lib/index.d.ts' },
      imports: { '#store': 'store-pkg' },
    };
    const root = pkg(manifest, {
      'bin/cli.js':
        "#!/usr/bin/env node\nimport '../lib/index.js';\nimport fs from 'node:fs';\nimport path from 'path';\nimport self from 'srv/extra';\n",
      'lib/index.js':
        "import { z } from 'zod';\nimport s from '#store';\nexport * from './tools';\nconst later = () => import('./plugin.js');\n",
      'lib/tools.js': "import open from 'open/sub';\nimport scoped from '@scope/thing/deep';\n",
      'lib/plugin.js': "import heavy from 'heavy';\n",
      'lib/index.d.ts': "import type { X } from 'types-only';\n",
    });
    const scan = scanImports(root, manifest);
    expect(sites(scan)).toEqual([
      'zod import lib/index.js:1 true',
      'store-pkg import lib/index.js:2 true',
      'open import lib/tools.js:1 true',
      '@scope/thing import lib/tools.js:2 true',
      'heavy import lib/plugin.js:1 false',
    ]);
    expect(scan.files).toEqual(['bin/cli.js', 'lib/index.js', 'lib/plugin.js', 'lib/tools.js']);
    expect(scan.unparsed).toEqual([]);
  });

  it('a bin in another language is not read', () => {
    const root = pkg({ name: 'sh', bin: './bin/server' }, { 'bin/server': '#!/bin/sh\nexec node "$(dirname "$0")/../lib/main.js" "$@"\n' });
    expect(scanImports(root, { name: 'sh', bin: './bin/server' })).toEqual({ imports: [], files: ['bin/server'], unparsed: [] });
  });

  it('a file reached both by import() and statically is on the start path', () => {
    const root = pkg(
      { name: 'srv', bin: './a.mjs' },
      { 'a.mjs': "import './b.mjs';\nawait import('./b.mjs');\n", 'b.mjs': "import x from 'x';\n" },
    );
    expect(sites(scanImports(root, { name: 'srv', bin: './a.mjs' }))).toEqual(['x import b.mjs:1 true']);
  });

  it("reads CommonJS `main` (npm's default index.js) with extensionless requires, and lists a file it cannot parse", () => {
    const root = pkg(
      { name: 'cjs' },
      {
        'index.js': "const h = require('./helper');\nconst bad = require('./broken');\n",
        'helper.js': "module.exports = require('lodash');\n",
        'broken.js': '<<<',
      },
    );
    const scan = scanImports(root, { name: 'cjs' });
    expect(sites(scan)).toEqual(['lodash require helper.js:1 true']);
    expect(scan.unparsed.map((u) => u.file)).toEqual(['broken.js']);
  });
});

describe('undeclaredOf', () => {
  it('lists each undeclared package once, static apart from the rest, and notes a devDependency', () => {
    const root = pkg(
      { name: 'srv', bin: './a.mjs' },
      {
        'a.mjs':
          "import z from 'zod';\nimport y from 'zod/v4';\nimport ok from 'declared';\nimport p from 'peer';\nimport o from 'optional';\nimport d from 'devonly';\nawait import('zod');\nawait import('later');\n",
      },
    );
    const manifest = {
      name: 'srv',
      bin: './a.mjs',
      dependencies: { declared: '1' },
      peerDependencies: { peer: '1' },
      optionalDependencies: { optional: '1' },
      devDependencies: { devonly: '1' },
    };
    const { onPath, later } = undeclaredOf(scanImports(root, manifest), manifest);
    expect(onPath).toEqual([
      {
        package: 'zod',
        sites: [
          { file: 'a.mjs', line: 1, kind: 'import', specifier: 'zod' },
          { file: 'a.mjs', line: 2, kind: 'import', specifier: 'zod/v4' },
        ],
      },
      { package: 'devonly', devDependency: true, sites: [{ file: 'a.mjs', line: 6, kind: 'import', specifier: 'devonly' }] },
    ]);
    expect(later).toEqual([{ package: 'later', sites: [{ file: 'a.mjs', line: 8, kind: 'import()', specifier: 'later' }] }]);
  });
});

describe('edgesIn: what is not an import', () => {
  it('a require of no string, a template with an expression, a call of something else, a name not bound to createRequire', () => {
    const src = [
      'require();',
      'require(name);',
      'require(42);',
      'require(`./lib/${name}.js`);',
      "(function (m) { return m; })('iife');",
      "make()('curried');",
      "path.resolve('not-resolve');",
      "require.main('not-main');",
      'const helper = make();',
      "helper('not-bound');",
      'const [, second] = list;',
      'export const a = 1;',
      'export { a as b };',
      "require('real');",
    ].join('\n');
    expect(edgesIn(src, true).map((e) => `${e.kind} ${e.spec} ${e.line}`)).toEqual(['require real 14']);
  });

  // Which syntax is tried first shows in the error of a file that parses as neither.
  it('tries ES module syntax first for .mjs and a "type": "module" package\'s .js, CommonJS otherwise', () => {
    const both = "return;\nimport x from 'y';\n";
    const asModule = "'return' outside of function (1:0)";
    const asScript = "'import' and 'export' may appear only with 'sourceType: module' (2:0)";
    const files = { 'a.mjs': both, 'b.cjs': both, 'c.js': both, 'entry.js': "import './a.mjs';\nimport './b.cjs';\nimport './c.js';\n" };
    const errors = (manifest: Record<string, unknown>) => {
      const root = pkg(manifest, files);
      const scan = scanImports(root, manifest);
      rmSync(root, { recursive: true, force: true });
      return Object.fromEntries(scan.unparsed.map((u) => [u.file, u.error]));
    };
    expect(errors({ name: 'm', type: 'module', main: 'entry.js' })).toEqual({ 'a.mjs': asModule, 'b.cjs': asScript, 'c.js': asModule });
    expect(errors({ name: 'c', main: 'entry.js' })).toEqual({ 'a.mjs': asModule, 'b.cjs': asScript, 'c.js': asScript });
  });
});

describe('scanImports: what it follows and what it leaves', () => {
  it("resolves like CommonJS (each extension, a folder's index; a JSON file first, never parsed), a #x to a file of its own", () => {
    const manifest = { name: 'srv', main: 'index.js', imports: { '#db': './lib/db.js' } };
    const root = pkg(manifest, {
      'index.js': [
        "require('./a');",
        "require('./b');",
        "require('./c');",
        "require('./d');",
        "require('./e');",
        "require('./f');",
        "require('#db');",
      ].join('\n'),
      'a.mjs': "import 'from-mjs';",
      'b.cjs': "require('from-cjs');",
      'c.json': '{ "not": "parsed" }',
      'c/index.js': "require('from-c-folder');",
      'd/index.js': "require('from-index-js');",
      'e/index.mjs': "import 'from-index-mjs';",
      'f/index.cjs': "require('from-index-cjs');",
      'lib/db.js': "require('from-db');",
    });
    const scan = scanImports(root, manifest);
    expect(scan.imports.map((i) => i.packageName)).toEqual([
      'from-mjs',
      'from-cjs',
      'from-index-js',
      'from-index-mjs',
      'from-index-cjs',
      'from-db',
    ]);
    expect(scan.files).toEqual(['a.mjs', 'b.cjs', 'd/index.js', 'e/index.mjs', 'f/index.cjs', 'index.js', 'lib/db.js']);
    expect(scan.unparsed).toEqual([]);
  });

  it('never leaves the package: an absolute path, a parent folder, a node_modules folder', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mm-import-graph-'));
    made.push(dir);
    const root = path.join(dir, 'pkg');
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    };
    write('outside.js', "require('from-outside');");
    write('pkg/lib/x.js', "require('from-absolute');");
    write('pkg/node_modules/dep/index.js', "require('from-node-modules');");
    write('pkg/index.js', "require('/lib/x.js');\nrequire('../outside.js');\nrequire('./node_modules/dep/index.js');\nrequire('own');\n");
    const scan = scanImports(root, { name: 'pkg' });
    expect(scan.imports.map((i) => i.packageName)).toEqual(['own']);
    expect(scan.files).toEqual(['index.js']);
  });

  it('builtins and URLs are no packages; a bin named but missing is no entry; a backslash path is one', () => {
    const manifest = { name: 'srv', bin: { a: 'bin\\cli.js', gone: './bin/missing.js' } };
    const root = pkg(manifest, {
      'bin/cli.js': [
        '#!/usr/bin/env node',
        "import fs from 'fs/promises';",
        "import t from 'node:test';",
        "import d from 'data:text/javascript,export default 1';",
        "import h from 'https://example.com/x.js';",
        "import s from 'string_decoder';",
        "const text = '#!/bin/sh';",
        "import z from 'zod';",
      ].join('\n'),
    });
    const scan = scanImports(root, manifest);
    expect(sites(scan)).toEqual(['zod import bin/cli.js:8 true']);
    expect(scan.files).toEqual(['bin/cli.js']);
  });

  // The bounds (4000 files, 64 MiB by default) made small: a package of three 10-byte files.
  it("a '#!' past the first line is no shebang: the file is read", () => {
    const root = pkg({ name: 'srv' }, { 'index.js': "const banner = '#!/bin/sh';\nrequire('zod');\n" });
    expect(sites(scanImports(root, { name: 'srv' }))).toEqual(['zod require index.js:2 true']);
  });

  it('stops at its bounds, saying so: what was left out is not judged', () => {
    const manifest = { name: 'big' };
    const root = pkg(manifest, { 'index.js': "require('./a');", 'a.js': "require('./b');", 'b.js': "require('zzz');" });
    expect(scanImports(root, manifest, { files: 3, bytes: 1000 })).toEqual({
      imports: [{ specifier: 'zzz', packageName: 'zzz', file: 'b.js', line: 1, kind: 'require', static: true }],
      files: ['a.js', 'b.js', 'index.js'],
      unparsed: [],
    });
    const byFiles = scanImports(root, manifest, { files: 2, bytes: 1000 });
    expect(byFiles).toMatchObject({ imports: [], files: ['a.js', 'index.js'], truncated: 'stopped after 2 files (0 MiB)' });
    expect(scanImports(root, manifest, { files: 3, bytes: 31 }).truncated).toBeUndefined();
    expect(scanImports(root, manifest, { files: 3, bytes: 30 }).truncated).toBe('stopped after 2 files (0 MiB)');
    // MiB rounded: 1.5 MiB read reads "2 MiB".
    const large = pkg(manifest, { 'index.js': `require('./a');//${'x'.repeat(1.5 * 1024 * 1024)}`, 'a.js': '' });
    expect(scanImports(large, manifest, { files: 3, bytes: 1024 }).truncated).toBe('stopped after 1 files (2 MiB)');
  });
});

describe('subpathTargets: patterns and null targets', () => {
  it('the longest pattern wins; a suffix must match and is cut from the star; an exact key is not a prefix', () => {
    const imports = { '#a/*': './a/*.js', '#a/b/*': './ab/*.js', '#x/*.js': './x/*.mjs', '#db': './db.js' };
    expect(subpathTargets('#a/b/c', imports)).toEqual(['./ab/c.js']);
    expect(subpathTargets('#a/c', imports)).toEqual(['./a/c.js']);
    expect(subpathTargets('#x/y.js', imports)).toEqual(['./x/y.mjs']);
    expect(subpathTargets('#x/y.ts', imports)).toEqual([]);
    expect(subpathTargets('#dbx', imports)).toEqual([]);
  });

  it('a null target (a blocked condition) names nothing; a package without imports maps nothing', () => {
    expect(subpathTargets('#x', { '#x': null })).toEqual([]);
    expect(subpathTargets('#x', { '#x': { browser: null, default: ['./x.js'] } })).toEqual(['./x.js']);
    expect(subpathTargets('#x', undefined)).toEqual([]);
  });
});
