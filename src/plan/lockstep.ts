// The package's declared SDK ranges against the cells: the claim and the evidence must move together.
import semver from 'semver';
import type { MajorRecipe } from '../config/define.js';
import type { PackageMeta } from './registry.js';
import { stableVersions } from './pins.js';
import { rangeText, type SdkClaim } from './sdk-claim.js';

export interface LockstepFinding {
  level: 'error' | 'warning';
  message: string;
}

export interface LockstepCell {
  id: string;
  major: number;
  version: string;
}

/** Pure: ranges from the package (or claimed through a dependency: `claims` names it), published versions per primary package, the resolved cells. */
export function checkLockstep(
  ranges: Record<string, string>,
  majors: Record<string, MajorRecipe>,
  metas: Map<string, PackageMeta>,
  cells: LockstepCell[],
  claims: Record<string, SdkClaim> = {},
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
    const named = rangeText(range, claims[primary]);
    const admitted = stableVersions(meta.versions.keys()).filter((v) => semver.major(v) === Number(major) && semver.satisfies(v, range));
    for (const c of mine) {
      if (!semver.satisfies(c.version, range))
        findings.push({ level: 'error', message: `cell ${c.id} pins ${primary}@${c.version}, outside ${named}` });
    }
    if (admitted.length === 0) continue;
    if (mine.length === 0) {
      findings.push({
        level: 'error',
        message: `${named} on ${primary} admits major ${major} (${admitted[0]} … ${admitted.at(-1)}), but no cell covers it; add cells floor@${major} and latest@${major}`,
      });
      continue;
    }
    const floor = admitted[0]!;
    if (!mine.some((c) => c.version === floor)) {
      findings.push({
        level: 'error',
        message: `${named} admits ${primary}@${floor}, but no cell pins it (lowest cell: ${mine.map((c) => c.version).sort(semver.compare)[0]}); add a floor@${major} cell or raise the range`,
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
        message: `${primary}@${newest} is inside ${named} but newer than any cell (newest cell: ${newestCovered}); add a latest@${major} cell`,
      });
    }
  }
  return findings;
}

/** One entry of the Node axis, as the engines check sees it. */
export interface LockstepNode {
  id: string;
  version: string;
}

/**
 * Pure: the package's `engines.node` against the Node axis, with the SDK check's levels. The floor
 * release must run, every admitted even major (the lines that become LTS; odd majors end within
 * months) needs a variant, and no variant may run outside the claim. Without a Node axis the host's
 * Node is all the run measures, and nothing is claimed.
 */
export function checkEnginesLockstep(
  nodeRange: string | undefined,
  nodes: readonly LockstepNode[],
  releases: Iterable<string>,
): LockstepFinding[] {
  if (nodes.length === 0) return [];
  const axis = nodes.map((n) => n.version).sort(semver.compare);
  if (!nodeRange)
    return [
      {
        level: 'error',
        message: `the Node axis runs ${axis.join(', ')}, but the package declares no engines.node; declare the Node releases it supports`,
      },
    ];
  if (!semver.validRange(nodeRange)) return [{ level: 'error', message: `engines.node "${nodeRange}" is not a valid semver range` }];
  const findings: LockstepFinding[] = [];
  for (const n of nodes)
    if (!semver.satisfies(n.version, nodeRange))
      findings.push({
        level: 'error',
        message: `variant ${n.id} runs Node ${n.version}, outside the declared engines.node "${nodeRange}"`,
      });
  const admitted = stableVersions(releases).filter((v) => semver.satisfies(v, nodeRange));
  if (admitted.length === 0) return findings;
  const floor = admitted[0]!;
  if (!axis.includes(floor))
    findings.push({
      level: 'error',
      message: `engines.node "${nodeRange}" admits Node ${floor}, but no variant runs it (lowest: ${axis[0]}); add node '${floor}' or raise engines.node`,
    });
  const covered = new Set(axis.map((v) => semver.major(v)));
  const uncovered = [...new Set(admitted.map((v) => semver.major(v)))].filter((m) => m % 2 === 0 && !covered.has(m));
  if (uncovered.length > 0)
    findings.push({
      level: 'error',
      message: `engines.node "${nodeRange}" admits Node ${uncovered.join(', ')}, but no variant runs ${uncovered.length === 1 ? 'it' : 'them'}; add ${uncovered.join(', ')} to "node"`,
    });
  const newest = admitted.at(-1)!;
  const newestRun = axis.at(-1)!;
  if (covered.has(semver.major(newest)) && semver.gt(newest, newestRun))
    findings.push({
      level: 'warning',
      message: `Node ${newest} is inside engines.node "${nodeRange}" but newer than any variant (newest: ${newestRun}); add node ${semver.major(newest)}`,
    });
  return findings;
}
