// `import { defineConfig } from 'mcp-matrix'` in a config resolves to the harness that loads it, so a
// config works where its directory has no install of its own (npx, a global install, a checkout).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../index.js', import.meta.url));

/** The running harness's public entry: dist/index.js, or src/index.ts when run from source (tests). */
export const SELF_ENTRY = existsSync(built) ? built : built.replace(/\.js$/, '.ts');

export const SELF_ALIAS: Record<string, string> = { 'mcp-matrix': SELF_ENTRY };
