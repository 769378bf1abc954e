// Pin → exact SDK version, against registry metadata.
import semver from 'semver';
import type { MajorRecipe } from '../config/define.js';
import type { Registry } from './registry.js';
import { fail, ok, type Result } from '../util/result.js';

export interface ResolvedPin {
  major: number;
  version: string;
  /** The package of the major whose version is the pin. */
  primary: string;
}

const ROLE = /^(latest|floor)(?:@(\d+))?$/;

export function stableVersions(versions: Iterable<string>): string[] {
  return [...versions].filter((v) => semver.valid(v) && !semver.prerelease(v)).sort(semver.compare);
}

export async function resolvePin(
  pin: string,
  majors: Record<string, MajorRecipe>,
  registry: Registry,
  ranges: Record<string, string>,
): Promise<Result<ResolvedPin>> {
  const role = ROLE.exec(pin);
  if (!role) {
    const major = semver.major(pin);
    const primary = majors[String(major)]?.pinned[0];
    if (!primary)
      return fail(
        'usage',
        `pin ${pin}: no install recipe for SDK major ${major} (known: ${Object.keys(majors).join(', ')}); add one under "majors"`,
      );
    const meta = await registry.meta(primary);
    if (!meta.ok) return meta;
    if (!meta.value.versions.has(pin)) {
      const latest = semver.maxSatisfying(stableVersions(meta.value.versions.keys()), `^${major}.0.0`);
      return fail(
        'usage',
        `pin ${pin}: ${primary}@${pin} does not exist on the registry${latest ? ` (the newest ${major}.x is ${latest})` : ''}; use a published version or latest@${major}`,
      );
    }
    return ok({ major, version: pin, primary });
  }
  const [, kind, majorText] = role;
  const wanted = majorText ? [majorText] : Object.keys(majors).sort((a, b) => Number(a) - Number(b));
  for (const major of wanted) {
    const primary = majors[major]?.pinned[0];
    if (!primary) return fail('usage', `pin ${pin}: no install recipe for SDK major ${major}; add one under "majors"`);
    const meta = await registry.meta(primary);
    if (!meta.ok) return meta;
    const versions = stableVersions(meta.value.versions.keys());
    if (kind === 'latest') {
      const version = semver.maxSatisfying(versions, `^${major}.0.0`);
      if (version) return ok({ major: Number(major), version, primary });
      return fail('usage', `pin ${pin}: ${primary} has no stable ${major}.x release`);
    }
    const range = ranges[primary];
    if (!range) {
      if (majorText) return fail('usage', `pin ${pin}: the package declares no range on ${primary}, so it has no floor for major ${major}`);
      continue;
    }
    const version = semver.minSatisfying(
      versions.filter((v) => semver.major(v) === Number(major)),
      range,
    );
    if (version) return ok({ major: Number(major), version, primary });
    if (majorText) return fail('usage', `pin ${pin}: no published ${primary} ${major}.x satisfies the declared range "${range}"`);
  }
  return fail(
    'usage',
    `pin ${pin}: the package declares no SDK range that admits a published version (looked at ${wanted.map((m) => majors[m]?.pinned[0]).join(', ')})`,
  );
}
