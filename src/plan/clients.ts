// The client axis: a client pin → the exact client package version and what its install holds. A client
// is installed apart from the server (once per run), so its required peers are chosen here, from the
// peer ranges the registry publishes, as companions are for a cell.
import semver from 'semver';
import type { MajorRecipe } from '../config/define.js';
import { CLIENT_PACKAGES } from '../config/majors.js';
import { cellIdFromPin } from '../config/schema-rules.js';
import type { ClientRef } from '../results/types.js';
import { resolvePin, stableVersions } from './pins.js';
import type { Registry } from './registry.js';
import { fail, ok, type Result } from '../util/result.js';

/** A resolved entry of the client axis; `id` is the variant id part and the install's directory name. */
export interface PlannedClient extends ClientRef {
  /** `client-1.0.0`, `client-latest-2`. */
  id: string;
  /** Exact versions installed in the client's own directory: the client package and its required peers. */
  installSet: Record<string, string>;
}

/** `client-latest-2`: the variant id part of a client pin. */
export function clientId(pin: string): string {
  return `client-${cellIdFromPin(pin)}`;
}

/** Pins resolve against the client package of each major; `floor@N` against the range the package declares for that major. */
function clientRecipes(): Record<string, MajorRecipe> {
  return Object.fromEntries(Object.entries(CLIENT_PACKAGES).map(([major, name]) => [major, { pinned: [name] }]));
}

/**
 * The range a client's floor is read from: one the package declares on the client package itself, else
 * the one it declares on that major's server package (the client and server of a major release together).
 */
function clientRanges(majors: Record<string, MajorRecipe>, declared: Record<string, string>): Record<string, string> {
  const ranges: Record<string, string> = {};
  for (const [major, name] of Object.entries(CLIENT_PACKAGES)) {
    const server = majors[major]?.pinned[0];
    const range = declared[name] ?? (server ? declared[server] : undefined);
    if (range) ranges[name] = range;
  }
  return ranges;
}

export async function resolveClient(
  pin: string,
  majors: Record<string, MajorRecipe>,
  registry: Registry,
  declared: Record<string, string>,
): Promise<Result<PlannedClient>> {
  const resolved = await resolvePin(pin, clientRecipes(), registry, clientRanges(majors, declared));
  if (!resolved.ok) return fail(resolved.error.kind, `client ${resolved.error.message}`, resolved.error.details);
  const { major, version, primary } = resolved.value;
  const peers = await requiredPeers(primary, version, registry);
  if (!peers.ok) return peers;
  return ok({ id: clientId(pin), pin, major, version, package: primary, installSet: { [primary]: version, ...peers.value } });
}

/** Each non-optional peer of `name@version`: the newest stable version its peer range admits. */
async function requiredPeers(name: string, version: string, registry: Registry): Promise<Result<Record<string, string>>> {
  const meta = await registry.meta(name);
  if (!meta.ok) return meta;
  const entry = meta.value.versions.get(version);
  const peers: Record<string, string> = {};
  for (const [peer, range] of Object.entries(entry?.peerDependencies ?? {})) {
    if (entry?.optionalPeers?.includes(peer)) continue;
    const peerMeta = await registry.meta(peer);
    if (!peerMeta.ok) return peerMeta;
    const newest = semver.maxSatisfying(stableVersions(peerMeta.value.versions.keys()), range);
    if (!newest) return fail('usage', `client ${name}@${version} needs ${peer}@${range}, and no published ${peer} satisfies it`);
    peers[peer] = newest;
  }
  return ok(peers);
}
