// The modules an ES module file imports in its leading import declarations (`import{a as b}from"x";`,
// `import * as c from 'y'`, `import"z"`), in order: what the suite process loads before its first scenario,
// while the server starts (suite-gate.ts). Read from the start of the file and stopped at the first statement
// that is not an import, so text later in the file (a description quoting an import) is never taken for one.

const SHEBANG = /^#![^\n]*\n?/y;
const SPACE_OR_COMMENT = /(?:\s+|\/\/[^\n]*\n?|\/\*[\s\S]*?\*\/)*/y;
const IMPORT = /import\s*(?:[^'";()]*?\s*from\s*)?(["'])([^"'\n]+)\1\s*;?/y;

export function staticImports(source: string): string[] {
  const found: string[] = [];
  let at = 0;
  const skip = (re: RegExp): boolean => {
    re.lastIndex = at;
    const m = re.exec(source);
    if (!m) return false;
    at = re.lastIndex;
    return true;
  };
  skip(SHEBANG);
  for (;;) {
    skip(SPACE_OR_COMMENT);
    IMPORT.lastIndex = at;
    const m = IMPORT.exec(source);
    if (!m) return found;
    at = IMPORT.lastIndex;
    found.push(m[2]!);
  }
}
