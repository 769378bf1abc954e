// Where the config reference is on this machine: docs/config.md of the running harness (it ships in the package).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOC = fileURLToPath(new URL('../../docs/config.md', import.meta.url));

/** docs/config.md, relative to `cwd` when it lies below it. */
export function configDocPath(cwd: string): string {
  const rel = path.relative(cwd, DOC);
  return rel.startsWith('..') || path.isAbsolute(rel) ? DOC : rel;
}
