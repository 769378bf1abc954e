// package.json's runtime dependencies are exactly what the harness imports: a dependency declared and never
// imported (as `tmp-promise` was) is named, and so is a bare import that an installed copy could not resolve.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The package a bare specifier names: `zod/v4` → zod, `@scope/pkg/x` → @scope/pkg. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Bare packages imported at runtime (type-only imports are erased) by the harness: src/ without the driver, and bin/. */
async function runtimeImports(): Promise<Map<string, string[]>> {
  const files = [
    ...(await readdir(path.join(ROOT, 'src'), { recursive: true }))
      .filter((f) => f.endsWith('.ts') && !f.startsWith(`driver${path.sep}`))
      .map((f) => path.join('src', f)),
    ...(await readdir(path.join(ROOT, 'bin'))).map((f) => path.join('bin', f)),
  ];
  const used = new Map<string, string[]>();
  for (const file of files) {
    const text = await readFile(path.join(ROOT, file), 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+'([^']+)'/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
    ];
    for (const s of specifiers) {
      // The package's own name appears only in the config text init and the docs write (it resolves to itself).
      if (s.startsWith('.') || s.startsWith('node:') || s.startsWith('/') || s === 'mcp-matrix') continue;
      const pkg = packageOf(s);
      used.set(pkg, [...(used.get(pkg) ?? []), file]);
    }
  }
  return used;
}

describe('runtime dependencies', () => {
  it('every dependency in package.json is imported by the harness, and every package it imports is a dependency', async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const declared = Object.keys(manifest.dependencies).sort();
    const used = await runtimeImports();
    expect(
      declared.filter((d) => !used.has(d)),
      'declared in dependencies, never imported',
    ).toEqual([]);
    expect(
      [...used.keys()].filter((u) => !declared.includes(u)).map((u) => `${u} (${used.get(u)!.join(', ')})`),
      'imported, not a dependency',
    ).toEqual([]);
    expect(declared).not.toContain('tmp-promise');
  });

  it('packageOf: a scoped package keeps its scope, a subpath is dropped', () => {
    expect(packageOf('@modelcontextprotocol/sdk/client/index.js')).toBe('@modelcontextprotocol/sdk');
    expect(packageOf('zod/v4')).toBe('zod');
    expect(packageOf('semver')).toBe('semver');
  });
});
