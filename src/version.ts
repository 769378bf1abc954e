// The harness's own version, read once from its package.json: the nearest one above this module, which is
// dist/version.js, src/version.ts (tests) or a chunk of the CLI's bundle (dist/bundle/).
import { readFileSync } from 'node:fs';

function ownVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    let text: string;
    try {
      text = readFileSync(new URL(up, import.meta.url), 'utf8');
    } catch {
      continue;
    }
    const pkg = JSON.parse(text) as { name?: string; version: string };
    if (pkg.name === 'mcp-matrix') return pkg.version;
  }
  throw new Error('mcp-matrix: no package.json of its own above ' + import.meta.url);
}

export const HARNESS_VERSION: string = ownVersion();
