// The files a package promises (bin, main, exports) must be in its tarball: a build forgotten before
// `npm pack` ships a package that cannot start, and no later phase should have to guess why.
import { statSync } from 'node:fs';
import path from 'node:path';

/** The packed package.json's fields that promise files. */
export interface PackedManifest {
  name?: string;
  version?: string;
  bin?: string | Record<string, string>;
  main?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** One problem naming every promised file that is absent from the installed package, or undefined. */
export function missingFromTarball(packageDir: string, manifest: PackedManifest): string | undefined {
  const missing: string[] = [];
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  for (const file of new Set(bins)) if (!isFile(packageDir, file)) missing.push(`bin ${clean(file)}`);
  if (manifest.main && !mainResolves(packageDir, manifest.main)) missing.push(`main ${clean(manifest.main)}`);
  for (const [subpath, file] of exportTargets(manifest.exports)) {
    if (!isFile(packageDir, file)) missing.push(`exports ${JSON.stringify(subpath)} → ${clean(file)}`);
  }
  if (missing.length === 0) return undefined;
  const list = missing.length === 1 ? missing[0]! : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)!}`;
  return `${list} ${missing.length === 1 ? 'is' : 'are'} missing from the tarball: run the build before npm pack (e.g. a "prepack" script)`;
}

/** Every concrete file `exports` points at, with its subpath; patterns (`*`), folders (`./lib/`) and `null` are not files. */
export function exportTargets(exports: unknown): [string, string][] {
  const out: [string, string][] = [];
  const walk = (value: unknown, subpath: string): void => {
    if (typeof value === 'string') {
      // Patterns and (legacy) folder mappings name no single file.
      if (value.startsWith('./') && !value.includes('*') && !value.endsWith('/')) out.push([subpath, value]);
    } else if (Array.isArray(value)) {
      for (const v of value) walk(v, subpath);
    } else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) walk(v, key.startsWith('.') ? key : subpath);
    }
  };
  walk(exports, '.');
  return [...new Map(out.map((pair) => [pair.join('\0'), pair])).values()];
}

/** `main` resolves as CommonJS does: the file, with an added extension, or a directory's index. */
function mainResolves(dir: string, main: string): boolean {
  const candidates = ['', '.js', '.json', '.node', '/index.js', '/index.json', '/index.node'];
  return candidates.some((suffix) => isFile(dir, main + suffix));
}

function isFile(dir: string, file: string): boolean {
  try {
    return statSync(path.resolve(dir, file)).isFile();
  } catch {
    return false;
  }
}

function clean(file: string): string {
  return path.posix.normalize(file.replace(/\\/g, '/')).replace(/^\.\//, '');
}
