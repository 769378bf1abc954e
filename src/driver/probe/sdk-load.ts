// Inside a server (the probe and its module hooks): which SDK package copies this process loads, each named by its
// nearest named package.json so an aliased or vendored copy is named by what it is. Builtins only; never throws.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SdkLoadRecord {
  type: 'sdk';
  name: string;
  version: string;
  /** Real path of the package directory. */
  path: string;
}

/** The env variable that carries the SDK package names (a JSON array) into the server. */
export const SDK_PACKAGES_ENV = 'MCP_MATRIX_SDK_PACKAGES';

export function sdkNamesFromEnv(value: string | undefined): string[] {
  try {
    const names: unknown = JSON.parse(value ?? '[]');
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** Returns `note(fileOrUrl)`: emits one record the first time a file of each SDK copy is loaded. */
export function sdkNoter(names: readonly string[], emit: (record: SdkLoadRecord) => void): (where: string) => void {
  const wanted = new Set(names);
  /** directory → the package it belongs to (null: none, or not an SDK package). */
  const owner = new Map<string, { name: string; version: string; path: string } | null>();
  const emitted = new Set<string>();

  const packageOf = (dir: string): { name: string; version: string; path: string } | null => {
    const trail: string[] = [];
    let found: { name: string; version: string; path: string } | null = null;
    for (let d = dir; ; d = dirname(d)) {
      const known = owner.get(d);
      if (known !== undefined) {
        found = known;
        break;
      }
      trail.push(d);
      const manifest = readManifest(join(d, 'package.json'));
      if (manifest?.name) {
        found = { name: manifest.name, version: manifest.version ?? '?', path: d };
        break;
      }
      if (dirname(d) === d) break;
    }
    for (const d of trail) owner.set(d, found);
    return found;
  };

  return (where: string): void => {
    try {
      const file = where.startsWith('file:') ? fileURLToPath(where) : where;
      if (!isAbsolute(file)) return;
      const pkg = packageOf(dirname(file));
      if (!pkg || !wanted.has(pkg.name) || emitted.has(pkg.path)) return;
      emitted.add(pkg.path);
      emit({ type: 'sdk', name: pkg.name, version: pkg.version, path: pkg.path });
    } catch {
      // Observation must never disturb the server.
    }
  };
}

function readManifest(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}
