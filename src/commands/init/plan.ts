// What init derives from the package's own package.json before it starts anything: its bin, its declared
// SDK ranges and the majors they admit, then the cells (floor and newest per major) from the registry.
import semver from 'semver';
import { DEFAULT_MAJORS } from '../../config/resolve.js';
import { manifestInfo, type RawManifest } from '../../plan/package-info.js';
import type { Registry } from '../../plan/registry.js';
import { chainText, effectiveRanges, type SdkClaim } from '../../plan/sdk-claim.js';
import { fail, ok, type Result } from '../../util/result.js';
import { cellsForMajor, type InitCell } from './cells.js';

export interface InitPlan {
  name: string;
  bin: string;
  /** Other bins the package declares (named in a comment). */
  otherBins: string[];
  /** Declared range per SDK package the harness pins (`@modelcontextprotocol/sdk`, `/server`). */
  ranges: Record<string, string>;
  /** SDK majors the declared ranges admit, ascending. */
  majors: number[];
  /** A range the package claims through a dependency (it declares none itself): the chain, by SDK package. */
  through?: Record<string, string>;
}

/** `@modelcontextprotocol/sdk "^1.24.3" (through fastmcp@4.20.16: …)`, each range init read, for its output and the config's header. */
export function rangesLine(plan: InitPlan): string {
  return Object.entries(plan.ranges)
    .map(([n, r]) => `${n} "${r}"${plan.through?.[n] ? ` (${plan.through[n]})` : ''}`)
    .join(' · ');
}

/** The SDK packages whose declared range decides the cells: the primary package of each major. */
export const PRIMARIES: { major: number; name: string }[] = Object.entries(DEFAULT_MAJORS)
  .map(([major, recipe]) => ({ major: Number(major), name: recipe.pinned[0]! }))
  .sort((a, b) => a.major - b.major);

/**
 * Pure: package.json → what init writes, or a message saying what the package must declare. `claims`: the
 * ranges it claims (sdk-claim.ts), when it declares none itself and reaches the SDK through a dependency.
 */
export function deriveInit(raw: RawManifest, claims: Record<string, SdkClaim> = {}): Result<InitPlan> {
  const info = manifestInfo(raw);
  const name = info.name || '(unnamed package)';
  const bins = Object.keys(info.bins);
  if (bins.length === 0) {
    return fail(
      'usage',
      `${name} declares no "bin" in package.json: mcp-matrix starts the server through its bin, as an MCP client does. Add one, e.g. "bin": { "my-mcp-server": "./dist/cli.js" }, then run init again.`,
    );
  }
  const unscoped = info.name.replace(/^@[^/]+\//, '');
  const bin = bins.includes(unscoped) ? unscoped : bins[0]!;

  const ranges: Record<string, string> = {};
  const through: Record<string, string> = {};
  const majors: number[] = [];
  const problems: string[] = [];
  const effective = effectiveRanges(info.ranges, claims);
  for (const { major, name: sdk } of PRIMARIES) {
    const range = effective[sdk];
    if (range === undefined) continue;
    ranges[sdk] = range;
    const chain = chainText(sdk, claims[sdk]);
    if (chain) through[sdk] = chain;
    if (semver.validRange(range) === null) {
      problems.push(`the range "${range}" on ${sdk} is not a semver range (mcp-matrix needs one to find the floor, e.g. "^${major}.0.0")`);
      continue;
    }
    if (semver.intersects(range, `>=${major}.0.0 <${major + 1}.0.0-0`)) majors.push(major);
    else problems.push(`the range "${range}" on ${sdk} admits no ${major}.x version (${sdk} is the package of SDK major ${major})`);
  }
  if (problems.length > 0) return fail('usage', `cannot derive the cells from ${name}'s package.json:`, problems);
  if (majors.length === 0) {
    return fail(
      'usage',
      `${name} declares no range on ${PRIMARIES.map((p) => p.name).join(' or ')} in "dependencies" or "peerDependencies", so there is no SDK version to test. Add the range you support, e.g. "peerDependencies": { "@modelcontextprotocol/sdk": "^1.23.0" } for SDK 1.x and/or { "@modelcontextprotocol/server": "^2.0.0" } for SDK 2.x, then run init again.`,
    );
  }
  return ok({
    name: info.name,
    bin,
    otherBins: bins.filter((b) => b !== bin),
    ranges,
    majors,
    ...(Object.keys(through).length > 0 ? { through } : {}),
  });
}

/** Floor and newest per admitted major, resolved against the registry. */
export async function initCells(plan: InitPlan, registry: Registry): Promise<Result<InitCell[]>> {
  const cells: InitCell[] = [];
  const problems: string[] = [];
  for (const major of plan.majors) {
    const primary = PRIMARIES.find((p) => p.major === major)!.name;
    const meta = await registry.meta(primary);
    if (!meta.ok) return meta;
    const found = cellsForMajor(major, plan.ranges[primary]!, meta.value.versions.keys());
    if (typeof found === 'string') problems.push(`${primary}: ${found}`);
    else cells.push(...found);
  }
  return problems.length > 0 ? fail('usage', `cannot derive the cells from ${plan.name}'s package.json:`, problems) : ok(cells);
}
