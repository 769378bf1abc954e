// The adapter's part (adapter.ts) that tells which client version is installed: read from the package.json
// above the file the client's entry resolves to (resolved from this directory, as the adapter's imports
// are), and compared with the release a feature arrived in.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed version of `pkg`, read from the package.json above the file `entry` resolves to. */
export function installedVersion(pkg: string, entry: string): string | undefined {
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve(entry)));
    for (;;) {
      try {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (manifest.name === pkg) return manifest.version;
      } catch {
        // no manifest here: keep walking up
      }
      if (dirname(dir) === dir) return undefined;
      dir = dirname(dir);
    }
  } catch {
    return undefined;
  }
}

/** `a < b` on the release part of two versions (`1.9.0` < `1.10.0`). */
export function olderThan(a: string, b: string): boolean {
  const parts = (v: string): number[] =>
    v
      .split(/[-+]/)[0]!
      .split('.')
      .map((n) => Number(n) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}
