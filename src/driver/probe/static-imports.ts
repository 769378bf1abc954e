// The modules an ES module imports in its leading import declarations, in order: what the suite process loads
// first (suite-gate.ts). It stops at the first non-import statement, so quoted text later is never taken for one.

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
