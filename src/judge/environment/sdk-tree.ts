// Read what is really installed in a cell: every SDK copy, and which copy the package itself loads.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { MajorRecipe } from '../../config/define.js';
import type { InstalledPackage } from '../../results/types.js';

/** The SDK packages: every name the install recipes pin or choose, for every major (not the whole scope). */
export function sdkPackageNames(majors: Record<string, MajorRecipe>): string[] {
  const names = Object.values(majors).flatMap((m) => [...m.pinned, ...(m.companions ?? []).map((c) => c.name)]);
  return [...new Set(names)].sort();
}

/** Every copy of an SDK package (`names`) anywhere in the cell's node_modules tree. */
export async function findSdkCopies(cellDir: string, names: readonly string[]): Promise<InstalledPackage[]> {
  const wanted = new Set(names);
  const found: InstalledPackage[] = [];
  async function walk(nodeModules: string): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(nodeModules);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const full = path.join(nodeModules, entry);
      if (entry.startsWith('@')) {
        let scoped: string[] = [];
        try {
          scoped = await readdir(full);
        } catch {
          continue;
        }
        for (const name of scoped) {
          const pkgDir = path.join(full, name);
          await visit(`${entry}/${name}`, pkgDir);
        }
      } else {
        await visit(entry, full);
      }
    }
  }
  async function visit(name: string, pkgDir: string): Promise<void> {
    if (wanted.has(name)) {
      const version = await readVersion(pkgDir);
      if (version) found.push({ name, version, path: path.relative(cellDir, pkgDir) });
    }
    await walk(path.join(pkgDir, 'node_modules'));
  }
  await walk(path.join(cellDir, 'node_modules'));
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

export async function readVersion(pkgDir: string): Promise<string | undefined> {
  try {
    return (JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8')) as { version?: string }).version ?? undefined;
  } catch {
    return undefined;
  }
}

/** Node's lookup for a bare specifier from `fromDir`: the nearest node_modules/<name> walking up, stopping at the cell. */
export function resolveFrom(fromDir: string, name: string, cellDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.resolve(dir) === path.resolve(cellDir)) return undefined;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
