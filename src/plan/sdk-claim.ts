// Which SDK range a package claims: its own declared range, else the range its dependencies declare (a
// server built on a framework reaches the SDK only through it: the package → the framework → the SDK).
// The same rule serves the plan (registry metadata) and the environment phase (the installed tree).
import semver from 'semver';
import type { MajorRecipe } from '../config/define.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

/** A dependency through which the package reaches the SDK: its version and its own range on the SDK package. */
export interface SdkLink {
  name: string;
  version: string;
  range: string;
}

/** The effective range on one SDK package; `through` is empty when the package declares it itself. */
export interface SdkClaim {
  range: string;
  through: SdkLink[];
}

/** A dependency's manifest as the package would get it. */
export interface LookedUp {
  version: string;
  ranges: Record<string, string>;
}

/**
 * A dependency's manifest as the package would get it: `spec` is what the package declares on it. `undefined`: there
 * is none to read (not installed, not on the registry, a spec no version admits); a failure: the machine could not
 * look (an unreachable registry), which is never read as "no range".
 */
export type ManifestLookup = (name: string, spec: string) => Promise<Result<LookedUp | undefined>>;

/**
 * The claim on each of `primaries`. A package that declares a range on any of them speaks for itself: its
 * declared ranges, nothing else. One that declares none reaches the SDK through its dependencies (one step
 * down, found from their manifests, whatever their names): on each primary, every dependency that declares
 * a range on it, all of which must admit a pin (npm nests a copy for one that does not). Dependencies that
 * are SDK packages themselves (`sdkNames`) are not frameworks. `lookup` is called only in the second case.
 * A dependency whose manifest the machine could not read fails the whole claim as infrastructure: without it the
 * range (an intersection) is unknown, and "no range" would blame the package for the registry.
 */
export async function sdkClaims(
  ranges: Record<string, string>,
  primaries: readonly string[],
  sdkNames: readonly string[],
  lookup: ManifestLookup,
): Promise<Result<Record<string, SdkClaim>>> {
  const claims: Record<string, SdkClaim> = {};
  for (const p of primaries) if (ranges[p] !== undefined) claims[p] = { range: ranges[p], through: [] };
  if (Object.keys(claims).length > 0) return ok(claims);
  const deps = Object.entries(ranges).filter(([name]) => !sdkNames.includes(name));
  const looked = await Promise.all(
    deps.map(([name, spec]) => lookup(name, spec).catch((error: unknown) => fail('infrastructure', `${name}: ${errorMessage(error)}`))),
  );
  const unread = looked.flatMap((r, i) => (!r.ok && r.error.kind === 'infrastructure' ? [`${deps[i]![0]} (${r.error.message})`] : []));
  if (unread.length > 0)
    return fail(
      'infrastructure',
      `could not read the manifest of ${unread.join(', ')}, through which the package may claim its SDK range; nothing was judged`,
    );
  const manifests = looked.map((r) => (r.ok ? r.value : undefined));
  for (const primary of primaries) {
    const through = deps.flatMap(([name], i) => {
      const m = manifests[i];
      const range = m?.ranges[primary];
      return m && range !== undefined ? [{ name, version: m.version, range }] : [];
    });
    const range = intersectRanges(through.map((l) => l.range));
    if (range !== undefined) claims[primary] = { range, through };
  }
  return ok(claims);
}

/** sdkClaims on each major's primary, with every package of every recipe counted as the SDK. */
export function majorClaims(
  ranges: Record<string, string>,
  majors: Record<string, MajorRecipe>,
  lookup: ManifestLookup,
): Promise<Result<Record<string, SdkClaim>>> {
  const recipes = Object.values(majors);
  const sdkNames = recipes.flatMap((m) => [...m.pinned, ...(m.companions ?? []).map((c) => c.name)]);
  return sdkClaims(
    ranges,
    recipes.map((m) => m.pinned[0]!),
    sdkNames,
    lookup,
  );
}

/** The claims' ranges by SDK package, over the declared ranges: what pins, lockstep and init read. */
export function effectiveRanges(ranges: Record<string, string>, claims: Record<string, SdkClaim> | undefined): Record<string, string> {
  const out = { ...ranges };
  for (const [name, claim] of Object.entries(claims ?? {})) out[name] = claim.range;
  return out;
}

/** `through fastmcp@3.1.0: @modelcontextprotocol/sdk ^1.17.2`; empty for a range declared by the package itself. */
export function chainText(primary: string, claim: SdkClaim | undefined): string {
  if (!claim || claim.through.length === 0) return '';
  return claim.through.map((l) => `through ${l.name}@${l.version}: ${primary} ${l.range}`).join('; ');
}

/** `the declared range "^1.2.0"`, or `the range "^1.17.2" claimed through fastmcp@3.1.0`: a range named in a message. */
export function rangeText(range: string, claim: SdkClaim | undefined): string {
  if (!claim || claim.through.length === 0) return `the declared range "${range}"`;
  return `the range "${range}" claimed through ${claim.through.map((l) => `${l.name}@${l.version}`).join(' and ')}`;
}

/** ` (through fastmcp@3.1.0: …)` after a range in a message, or nothing. */
export function chainNote(primary: string, claim: SdkClaim | undefined): string {
  const text = chainText(primary, claim);
  return text ? ` (${text})` : '';
}

/**
 * The range every one of `ranges` admits, as one range string (the cross product of their `||` sets);
 * undefined for none, the range itself for one. A spec that is not a semver range (a dist-tag, a URL, an alias)
 * cannot be intersected: the semver ones decide (the chain still names every link), and the first is kept when
 * none is one. Joining it as text made a range no version satisfies, which blamed the package for the harness.
 */
export function intersectRanges(ranges: readonly string[]): string | undefined {
  const valid = ranges.filter((r) => semver.validRange(r) !== null);
  if (valid.length <= 1) return valid[0] ?? ranges[0];
  let sets: string[][] = [[]];
  for (const range of valid.map((r) => new semver.Range(r)))
    sets = sets.flatMap((left) => range.set.map((comparators) => [...left, ...comparators.map((c) => c.value).filter((v) => v !== '')]));
  return sets.map((s) => (s.length === 0 ? '*' : s.join(' '))).join(' || ');
}
