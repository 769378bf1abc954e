// The exact packages a cell installs for a resolved pin; companions are chosen from real peer ranges.
import semver from 'semver';
import type { MajorRecipe } from '../config/define.js';
import type { Registry } from './registry.js';
import { stableVersions } from './pins.js';
import { fail, ok, type Result } from '../util/result.js';

export async function installSetFor(version: string, recipe: MajorRecipe, registry: Registry): Promise<Result<Record<string, string>>> {
  const set: Record<string, string> = {};
  for (const name of recipe.pinned) set[name] = version;
  for (const companion of recipe.companions ?? []) {
    const peerVersion = set[companion.peerOf];
    if (!peerVersion)
      return fail('usage', `companion ${companion.name} is chosen by its peer on ${companion.peerOf}, which this major does not pin`);
    const meta = await registry.meta(companion.name);
    if (!meta.ok) return meta;
    const admitting = stableVersions(meta.value.versions.keys()).filter((v) => {
      const range = meta.value.versions.get(v)?.peerDependencies[companion.peerOf];
      return range !== undefined && semver.satisfies(peerVersion, range);
    });
    const newest = admitting.at(-1);
    if (!newest) {
      return fail(
        'usage',
        `no published ${companion.name} declares a peer range on ${companion.peerOf} that admits ${peerVersion}; pin another version`,
      );
    }
    set[companion.name] = newest;
  }
  return ok(set);
}
