// Config + registry → the cells to run, each with its exact install set. Installs nothing.
import { createHash } from 'node:crypto';
import semver from 'semver';
import type { ResolvedConfig, ResolvedCell } from '../config/resolve.js';
import type { MajorRecipe } from '../config/define.js';
import { hashConfig } from '../config/resolve.js';
import { pinMajor } from '../config/majors.js';
import { checkEnginesLockstep, checkLockstep, type LockstepFinding } from './lockstep.js';
import { installSetFor } from './install-set.js';
import { pickBin, readPackageDir, readTarball, type PackageInfo } from './package-info.js';
import { planManifestLookup } from './claim-lookup.js';
import { effectiveRanges, majorClaims } from './sdk-claim.js';
import { resolvePin } from './pins.js';
import { resolveClient, type PlannedClient } from './clients.js';
import { nodeReleases, resolveNodeAxis, type PlannedNode } from './node-versions.js';
import type { PackageMeta, Registry } from './registry.js';
import { allProblems, fail, ok, type Result } from '../util/result.js';

export type { PlannedClient, PlannedNode };

/** One variant of a cell: the cell's server driven by a client (absent: the cell's own) on a Node (absent: the host's). */
export interface PlannedVariant {
  /** `<cell id>[~client-<pin>][~node-<spec>]`; the cell id alone without axes. */
  id: string;
  client?: PlannedClient;
  node?: PlannedNode;
}

export interface PlannedCell extends ResolvedCell {
  major: number;
  version: string;
  primary: string;
  installSet: Record<string, string>;
  /** At least one; `[{ id: cell id }]` without axes. */
  variants: PlannedVariant[];
}

export interface Plan {
  config: ResolvedConfig;
  package: PackageInfo;
  bin: { name: string; file: string };
  cells: PlannedCell[];
  lockstep: LockstepFinding[];
  /** Identity of config + resolved versions: pieces of one plan share it. */
  hash: string;
}

export async function buildPlan(config: ResolvedConfig, registry: Registry): Promise<Result<Plan>> {
  const info = config.source.kind === 'directory' ? await readPackageDir(config.source.dir) : await readTarball(config.source.file);
  if (!info.ok) return info;
  const bin = pickBin(info.value, config.bin);
  if (!bin.ok) return bin;
  const claimed = await majorClaims(info.value.ranges, config.majors, planManifestLookup(config.source, registry));
  if (!claimed.ok) return claimed;
  const sdkClaims = claimed.value;
  const pkg: PackageInfo = { ...info.value, sdkClaims };
  const ranges = effectiveRanges(pkg.ranges, sdkClaims);
  // Warm every look-up the plan reads at once; each package is fetched once per run, and no other is.
  const names = planLookupNames(config, ranges);
  await Promise.all([...names].map((n) => registry.meta(n)));

  const axes = await resolveAxes(config, registry, ranges);
  const resolved = await Promise.all(
    config.cells.map((cell) => (axes.ok ? planCell(cell, config, registry, ranges, axes.value) : Promise.resolve(axes))),
  );
  const problems = axes.ok ? resolved.flatMap((r) => (r.ok ? [] : [r.error])) : [axes.error];
  const failed = allProblems(problems, 'the plan has problems:');
  if (failed) return failed;
  const cells = resolved.flatMap((r) => (r.ok ? [r.value] : []));
  const metas = new Map<string, PackageMeta>();
  for (const n of names) {
    const m = await registry.meta(n);
    if (m.ok) metas.set(n, m.value);
  }
  const lockstep = config.lockstep === 'off' ? [] : checkLockstep(ranges, config.majors, metas, cells, sdkClaims);
  // engines.node against the Node axis (every distinct release any variant runs).
  const nodes = [...new Map(cells.flatMap((c) => c.variants.flatMap((v) => (v.node ? [[v.node.version, v.node] as const] : [])))).values()];
  if (config.lockstep !== 'off' && nodes.length > 0)
    lockstep.push(...checkEnginesLockstep(pkg.nodeRange, nodes, await nodeReleases(registry)));
  const hash = createHash('sha256')
    .update(hashConfig(config))
    // Without axes the identity is what it always was; a variant's client and Node are part of it.
    .update(
      JSON.stringify(cells.map((c) => (cellHasAxes(c) ? [c.id, c.installSet, c.variants.map(variantIdentity)] : [c.id, c.installSet]))),
    )
    .digest('hex');
  return ok({ config, package: pkg, bin: bin.value, cells, lockstep, hash });
}

/** Every distinct client pin and Node spec of the config, each resolved once for the whole plan. */
interface Axes {
  clients: Map<string, PlannedClient>;
  node: Map<string, PlannedNode>;
}

async function resolveAxes(config: ResolvedConfig, registry: Registry, ranges: Record<string, string>): Promise<Result<Axes>> {
  const pins = [...new Set(config.cells.flatMap((c) => c.clients ?? []))];
  const specs = [...new Set(config.cells.flatMap((c) => c.node ?? []))];
  const [clients, node] = await Promise.all([
    Promise.all(pins.map((pin) => resolveClient(pin, config.majors, registry, ranges))),
    specs.length > 0 ? resolveNodeAxis(specs, registry) : Promise.resolve(ok<PlannedNode[]>([])),
  ]);
  const problems = [...clients, node].flatMap((r) => (r.ok ? [] : [r.error]));
  const failed = allProblems(problems, 'the axes have problems:');
  if (failed) return failed;
  return ok({
    clients: new Map(clients.flatMap((r, i) => (r.ok ? [[pins[i]!, r.value] as const] : []))),
    node: new Map((node.ok ? node.value : []).map((n) => [n.spec, n] as const)),
  });
}

async function planCell(
  cell: ResolvedCell,
  config: ResolvedConfig,
  registry: Registry,
  ranges: Record<string, string>,
  axes: Axes,
): Promise<Result<PlannedCell>> {
  const pin = await resolvePin(cell.pin, config.majors, registry, ranges);
  if (!pin.ok) return pin;
  const recipe = config.majors[String(pin.value.major)]!;
  const set = await installSetFor(pin.value.version, recipe, registry);
  if (!set.ok) return set;
  return ok({ ...cell, ...pin.value, installSet: set.value, variants: expandVariants(cell, axes) });
}

/** cell × clients × Node, clients outer; an absent axis is one entry: the cell's own client, the host's Node. */
function expandVariants(cell: ResolvedCell, axes: Axes): PlannedVariant[] {
  const clients = cell.clients?.map((pin) => axes.clients.get(pin)!) ?? [undefined];
  const nodes = cell.node?.map((spec) => axes.node.get(spec)!) ?? [undefined];
  return clients.flatMap((client) =>
    nodes.map((node) => ({
      id: variantId(cell.id, client?.id, node?.id),
      ...(client ? { client } : {}),
      ...(node ? { node } : {}),
    })),
  );
}

/** `latest-2~client-1.0.0~node-22`; the cell id alone without axes. */
export function variantId(cellId: string, clientId?: string, nodeId?: string): string {
  return [cellId, clientId, nodeId].filter((part) => part !== undefined).join('~');
}

export function cellHasAxes(cell: Pick<PlannedCell, 'variants'>): boolean {
  return cell.variants.some((v) => v.client !== undefined || v.node !== undefined);
}

function variantIdentity(v: PlannedVariant): unknown[] {
  return [v.id, v.client?.installSet ?? null, v.node?.version ?? null];
}

/**
 * Keep what a `--cell` filter names: a cell (by id, pin or resolved version: every variant of it) or
 * one variant (by its id). Cells keep plan order and only their selected variants.
 */
export function selectCells(cells: PlannedCell[], wanted: string[]): Result<PlannedCell[]> {
  if (wanted.length === 0) return ok(cells);
  const namesCell = (c: PlannedCell, w: string) => c.id === w || c.pin === w || c.version === w;
  const unknown = wanted.filter((w) => !cells.some((c) => namesCell(c, w) || c.variants.some((v) => v.id === w)));
  if (unknown.length > 0) {
    const variants = cells.flatMap((c) => c.variants.filter((v) => v.id !== c.id).map((v) => v.id));
    return fail(
      'usage',
      `--cell ${unknown.join(', ')} matches no cell${variants.length > 0 ? ' or variant' : ''}; the plan has: ${cells.map((c) => `${c.id}${c.version !== c.pin ? ` (${c.version})` : ''}`).join(', ')}${variants.length > 0 ? `; variants: ${variants.join(', ')}` : ''}`,
    );
  }
  return ok(
    cells.flatMap((c) => {
      if (wanted.some((w) => namesCell(c, w))) return [c];
      const variants = c.variants.filter((v) => wanted.includes(v.id));
      return variants.length > 0 ? [{ ...c, variants }] : [];
    }),
  );
}

/**
 * The `--cell` names no cell of the config can answer to, known before any look-up: not a cell's id or pin, not a
 * version (what a pin may resolve to), not a variant's id (`<cell id>~…`). selectCells judges the rest once planned.
 */
export function refuseUnknownCells(cells: readonly Pick<ResolvedCell, 'id' | 'pin'>[], wanted: readonly string[]): Result<void> {
  const unknown = wanted.filter(
    (w) => !cells.some((c) => c.id === w || c.pin === w || w.startsWith(`${c.id}~`)) && semver.valid(w) === null,
  );
  if (unknown.length === 0) return ok(undefined);
  const known = cells.map((c) => (c.pin === c.id ? c.id : `${c.id} (${c.pin})`)).join(', ');
  return fail(
    'usage',
    `--cell ${unknown.join(', ')} matches no cell; the config's cells: ${known} (a cell is named by its id, its pin or the version it resolves to; a variant by its id, <cell id>~…)`,
  );
}

/** The ids a run records as `plan.selected`: a whole cell by its id, else each chosen variant; undefined when all ran. */
export function selectedIds(all: PlannedCell[], selected: PlannedCell[]): string[] | undefined {
  const count = (cells: PlannedCell[]) => cells.reduce((n, c) => n + c.variants.length, 0);
  if (count(selected) === count(all)) return undefined;
  return selected.flatMap((c) => {
    const whole = all.find((a) => a.id === c.id)?.variants.length === c.variants.length;
    return whole ? [c.id] : c.variants.map((v) => v.id);
  });
}

/** Each major's primary and its companions: what its cells read from the registry. */
export function lookupNames(majors: Record<string, MajorRecipe>): Set<string> {
  return new Set(Object.values(majors).flatMap((m) => [m.pinned[0]!, ...(m.companions ?? []).map((c) => c.name)]));
}

/**
 * The look-ups the cells' pins need, known from the config alone: the majors a pin names (every major for
 * `floor`, which may resolve to any). Each look-up is an `npm view` (~0.4 CPU-s): a major no cell pins costs
 * nothing, unless the lockstep check reads it (planLookupNames).
 */
export function pinLookupNames(config: Pick<ResolvedConfig, 'cells' | 'majors'>): Set<string> {
  const pinned = new Set(config.cells.map((c) => pinMajor(c.pin)));
  const majors = Object.entries(config.majors).filter(([major]) => pinned.has(undefined) || pinned.has(major));
  return lookupNames(Object.fromEntries(majors));
}

/** Every look-up the plan reads: the pins' and, unless lockstep is off, the primary of each major the package declares a range on. */
export function planLookupNames(
  config: Pick<ResolvedConfig, 'cells' | 'majors' | 'lockstep'>,
  ranges: Record<string, string>,
): Set<string> {
  const names = pinLookupNames(config);
  if (config.lockstep !== 'off')
    for (const recipe of Object.values(config.majors)) if (ranges[recipe.pinned[0]!]) names.add(recipe.pinned[0]!);
  return names;
}
