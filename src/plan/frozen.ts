// One frozen plan for every job of a fan-out: the plan job resolves once and writes plan.json (this module: its
// shape, written and read); each cell job thaws it (thaw.ts) and never resolves again.
import { readFile } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/resolve.js';
import type { LockstepFinding } from './lockstep.js';
import type { Plan, PlannedCell } from './plan.js';
import { fail, ok, type Result } from '../util/result.js';
import { sha256 } from '../util/sha256.js';

export const FROZEN_PLAN_VERSION = 1;

export interface FrozenPlan {
  version: typeof FROZEN_PLAN_VERSION;
  /** The plan's hash (results' configHash): every piece of the fan-out carries it. */
  hash: string;
  /** The config without its environment values (see configShape): a cell job's config must have the same. */
  shape: string;
  cells: PlannedCell[];
  lockstep: LockstepFinding[];
}

/**
 * The config's identity without the values of its environment maps: the plan job runs without the
 * cell jobs' secrets (and a fork's run has none), so their values may differ between jobs of one run.
 * Their names still count.
 */
export function configShape(config: ResolvedConfig): string {
  const { file: _file, dir: _dir, source: _source, ...rest } = config;
  const text = JSON.stringify(rest, (key, value: unknown) =>
    key === 'env' && value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort() : value,
  );
  return sha256(text);
}

export function freezePlan(plan: Plan): FrozenPlan {
  return { version: FROZEN_PLAN_VERSION, hash: plan.hash, shape: configShape(plan.config), cells: plan.cells, lockstep: plan.lockstep };
}

/** A frozen plan read from plan.json (`plan --json`'s output, its `frozen` member), checked for shape only. */
export function parseFrozenPlan(json: unknown, file: string): Result<FrozenPlan> {
  const frozen = (json as { frozen?: unknown } | null)?.frozen as Partial<FrozenPlan> | undefined;
  const bad = (why: string) =>
    fail('usage', `--plan ${file}: ${why}; write it with \`mcp-matrix plan --json > plan.json\` (of this mcp-matrix version)`);
  if (!frozen || typeof frozen !== 'object') return bad('no frozen plan in it (no "frozen" member)');
  if (frozen.version !== FROZEN_PLAN_VERSION) return bad(`frozen plan version ${String(frozen.version)}, expected ${FROZEN_PLAN_VERSION}`);
  if (typeof frozen.hash !== 'string' || typeof frozen.shape !== 'string') return bad('its hash or shape is missing');
  if (!Array.isArray(frozen.cells) || frozen.cells.length === 0) return bad('it plans no cell');
  for (const c of frozen.cells) {
    const cell = c as Partial<PlannedCell> | null;
    if (
      !cell ||
      typeof cell.id !== 'string' ||
      typeof cell.version !== 'string' ||
      typeof cell.installSet !== 'object' ||
      !Array.isArray(cell.variants) ||
      cell.variants.length === 0
    )
      return bad('a cell lacks its id, version, install set or variants');
  }
  return ok({ ...(frozen as FrozenPlan), lockstep: Array.isArray(frozen.lockstep) ? frozen.lockstep : [] });
}

/** plan.json's frozen plan; a file that is missing or not JSON is bad input. */
export async function readFrozenPlan(file: string, shown: string): Promise<Result<FrozenPlan>> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return fail('usage', `--plan: cannot read ${file}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('usage', `--plan ${shown}: not JSON (write it with \`mcp-matrix plan --json > plan.json\`)`);
  }
  return parseFrozenPlan(json, shown);
}
