// The imports the suite process loads before its first scenario: the file's leading import declarations only.
import { describe, expect, it } from 'vitest';
import { staticImports } from '../../../src/driver/probe/static-imports.js';

describe('staticImports', () => {
  it("a minified bundle's leading imports, in order, and nothing after its first other statement", () => {
    const bundle =
      '#!/usr/bin/env node\n' +
      'import{Command as e}from"commander";import{ZodError as t,z as n}from"zod";import u,{dirname as d}from"path";' +
      'import*as C from"jose";import"./side-effect.js";var x=`import nope from "not-an-import"`;import("dynamic");';
    expect(staticImports(bundle)).toEqual(['commander', 'zod', 'path', 'jose', './side-effect.js']);
  });

  it('declarations over several lines with comments between them; a file without imports names none', () => {
    const source = `// header\n/* block\n comment */\nimport { mkdirSync,\n  writeFileSync } from 'node:fs';\n\nimport { join } from 'node:path'\nconst later = 1;\nimport { after } from 'x';\n`;
    expect(staticImports(source)).toEqual(['node:fs', 'node:path']);
    expect(staticImports('console.log("import x from \\"y\\"")')).toEqual([]);
    expect(staticImports('')).toEqual([]);
  });
});
