// The package's declared SDK ranges against the cells: the claim and the evidence must move together.
import semver from 'semver';
import type { MajorRecipe } from '../config/define.js';
import type { PackageMeta } from './registry.js';
import { stableVersions } from './pins.js';

export interface LockstepFinding {
  level: 'error' | 'warning';
  message: string;
}

export interface LockstepCell {
  id: string;
  major: number;
  version: string;
}

/** Pure: ranges from the package, published versions per primary package, the resolved cells. */
export function checkLockstep(
  ranges: Record<string, string>,
  majors: Record<string, MajorRecipe>,
  metas: Map<string, PackageMeta>,
  cells: LockstepCell[],
): LockstepFinding[] {
  const findings: LockstepFinding[] = [];
  for (const [major, recipe] of Object.entries(majors)) {
    const primary = recipe.pinned[0]!;
    const range = ranges[primary];
    const mine = cells.filter((c) => c.major === Number(major));
    if (!range) {
      for (const c of mine)
        findings.push({
          level: 'error',
          message: `cell ${c.id} pins ${primary}@${c.version}, but the package declares no range on ${primary}`,
        });
      continue;
    }
    const meta = metas.get(primary);
    if (!meta) continue;
    const admitted = stableVersions(meta.versions.keys()).filter((v) => semver.major(v) === Number(major) && semver.satisfies(v, range));
    for (const c of mine) {
      if (!semver.satisfies(c.version, range))
        findings.push({ level: 'error', message: `cell ${c.id} pins ${primary}@${c.version}, outside the declared range "${range}"` });
    }
    if (admitted.length === 0) continue;
    if (mine.length === 0) {
      findings.push({
        level: 'error',
        message: `the declared range "${range}" on ${primary} admits major ${major} (${admitted[0]} … ${admitted.at(-1)}), but no cell covers it; add cells floor@${major} and latest@${major}`,
      });
      continue;
    }
    const floor = admitted[0]!;
    if (!mine.some((c) => c.version === floor)) {
      findings.push({
        level: 'error',
        message: `the declared range "${range}" admits ${primary}@${floor}, but no cell pins it (lowest cell: ${mine.map((c) => c.version).sort(semver.compare)[0]}); add a floor@${major} cell or raise the range`,
      });
    }
    const newestCovered = mine
      .map((c) => c.version)
      .sort(semver.compare)
      .at(-1)!;
    const newest = admitted.at(-1)!;
    if (semver.gt(newest, newestCovered)) {
      findings.push({
        level: 'warning',
        message: `${primary}@${newest} is inside the declared range "${range}" but newer than any cell (newest cell: ${newestCovered}); add a latest@${major} cell`,
      });
    }
  }
  return findings;
}
