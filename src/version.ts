// The harness's own version, read once from its package.json: the nearest one above this module, which is
// dist/version.js, src/version.ts (tests) or a chunk of the CLI's bundle (dist/bundle/).
import { readFileSync } from 'node:fs';

function ownPackage(): { version: string; engines?: { node?: string } } {
  for (const up of ['../package.json', '../../package.json']) {
    let text: string;
    try {
      text = readFileSync(new URL(up, import.meta.url), 'utf8');
    } catch {
      continue;
    }
    const pkg = JSON.parse(text) as { name?: string; version: string; engines?: { node?: string } };
    if (pkg.name === 'mcp-matrix') return pkg;
  }
  throw new Error('mcp-matrix: no package.json of its own above ' + import.meta.url);
}

const own = ownPackage();
export const HARNESS_VERSION: string = own.version;
/** The Node releases the harness itself runs on (its engines.node). */
export const HARNESS_NODE_RANGE: string = own.engines?.node ?? '*';
