// The plan's view of a dependency's manifest, before anything is installed: a registry dependency as npm
// would pick it (the newest version its range admits), a `file:` dependency from the package's own source.
import path from 'node:path';
import semver from 'semver';
import type { ResolvedConfig } from '../config/resolve.js';
import { readPackageDir, readTarball, type PackageInfo } from './package-info.js';
import { stableVersions } from './pins.js';
import type { Registry } from './registry.js';
import type { ManifestLookup } from './sdk-claim.js';
import { ok } from '../util/result.js';

const ALIAS = /^npm:((?:@[^/@]+\/)?[^@]+)@(.+)$/;

export function planManifestLookup(source: ResolvedConfig['source'], registry: Registry): ManifestLookup {
  return async (name, spec) => {
    if (spec.startsWith('file:')) return ok(await fromSource(source, spec.slice('file:'.length)));
    const alias = ALIAS.exec(spec);
    const [pkg, range] = alias ? [alias[1]!, alias[2]!] : [name, spec];
    if (semver.validRange(range) === null) return ok(undefined);
    const meta = await registry.meta(pkg);
    // Not on the registry: nothing to read. Unreachable: the machine's failure, never "no range".
    if (!meta.ok) return meta.error.kind === 'infrastructure' ? meta : ok(undefined);
    const all = [...meta.value.versions.keys()];
    const version = semver.maxSatisfying(stableVersions(all), range) ?? semver.maxSatisfying(all, range);
    const entry = version ? meta.value.versions.get(version) : undefined;
    return ok(version && entry ? { version, ranges: { ...entry.dependencies, ...entry.peerDependencies } } : undefined);
  };
}

/** A `file:` dependency inside the package: a directory or a packed tarball (read from a directory source only). */
async function fromSource(
  source: ResolvedConfig['source'],
  rel: string,
): Promise<{ version: string; ranges: Record<string, string> } | undefined> {
  const info = (r: { ok: true; value: PackageInfo } | { ok: false }) =>
    r.ok ? { version: r.value.version, ranges: r.value.ranges } : undefined;
  if (source.kind === 'directory') {
    const target = path.resolve(source.dir, rel);
    return info(/\.(tgz|tar\.gz)$/.test(target) ? await readTarball(target) : await readPackageDir(target));
  }
  if (/\.(tgz|tar\.gz)$/.test(rel)) return undefined;
  const inner = path.posix.normalize(path.posix.join('package', rel.split(path.sep).join('/')));
  return inner.startsWith('package/') ? info(await readTarball(source.file, `${inner}/package.json`)) : undefined;
}
