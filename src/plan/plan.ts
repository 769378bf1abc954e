// Config + registry → the cells to run, each with its exact install set. Installs nothing.
import { createHash } from 'node:crypto';
import type { ResolvedConfig, ResolvedCell } from '../config/resolve.js';
import type { MajorRecipe } from '../config/define.js';
import { hashConfig } from '../config/resolve.js';
import { checkLockstep, type LockstepFinding } from './lockstep.js';
import { installSetFor } from './install-set.js';
import { pickBin, readPackageDir, readTarball, type PackageInfo } from './package-info.js';
import { resolvePin } from './pins.js';
import type { PackageMeta, Registry } from './registry.js';
import { fail, ok, type Result } from '../util/result.js';

export interface PlannedCell extends ResolvedCell {
  major: number;
  version: string;
  primary: string;
  installSet: Record<string, string>;
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
  // Warm every primary and companion look-up at once; each package is fetched once per run.
  const names = lookupNames(config.majors);
  await Promise.all([...names].map((n) => registry.meta(n)));

  const resolved = await Promise.all(config.cells.map((cell) => planCell(cell, config, registry, info.value)));
  const problems = resolved.flatMap((r) => (r.ok ? [] : [r.error]));
  if (problems.length > 0) {
    const kind = problems.some((p) => p.kind === 'infrastructure') ? 'infrastructure' : 'usage';
    return problems.length === 1
      ? { ok: false, error: problems[0]! }
      : fail(
          kind,
          'the plan has problems:',
          problems.map((p) => p.message),
        );
  }
  const cells = resolved.flatMap((r) => (r.ok ? [r.value] : []));
  const metas = new Map<string, PackageMeta>();
  for (const n of names) {
    const m = await registry.meta(n);
    if (m.ok) metas.set(n, m.value);
  }
  const lockstep = config.lockstep === 'off' ? [] : checkLockstep(info.value.ranges, config.majors, metas, cells);
  const hash = createHash('sha256')
    .update(hashConfig(config))
    .update(JSON.stringify(cells.map((c) => [c.id, c.installSet])))
    .digest('hex');
  return ok({ config, package: info.value, bin: bin.value, cells, lockstep, hash });
}

async function planCell(cell: ResolvedCell, config: ResolvedConfig, registry: Registry, info: PackageInfo): Promise<Result<PlannedCell>> {
  const pin = await resolvePin(cell.pin, config.majors, registry, info.ranges);
  if (!pin.ok) return pin;
  const recipe = config.majors[String(pin.value.major)]!;
  const set = await installSetFor(pin.value.version, recipe, registry);
  if (!set.ok) return set;
  return ok({ ...cell, ...pin.value, installSet: set.value });
}

/** Keep the cells a `--cell` filter names (by id, pin or resolved version). */
export function selectCells(cells: PlannedCell[], wanted: string[]): Result<PlannedCell[]> {
  if (wanted.length === 0) return ok(cells);
  const unknown = wanted.filter((w) => !cells.some((c) => c.id === w || c.pin === w || c.version === w));
  if (unknown.length > 0) {
    return fail(
      'usage',
      `--cell ${unknown.join(', ')} matches no cell; the plan has: ${cells.map((c) => `${c.id}${c.version !== c.pin ? ` (${c.version})` : ''}`).join(', ')}`,
    );
  }
  return ok(cells.filter((c) => wanted.some((w) => c.id === w || c.pin === w || c.version === w)));
}

/** The packages a plan reads from the registry: each major's primary and its companions. */
export function lookupNames(majors: Record<string, MajorRecipe>): Set<string> {
  return new Set(Object.values(majors).flatMap((m) => [m.pinned[0]!, ...(m.companions ?? []).map((c) => c.name)]));
}
