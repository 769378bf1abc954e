// The units a run schedules: each variant with its cell, in the order they start and the order their rows
// are reported, and the command that runs one of them alone.
import type { PlannedCell, PlannedVariant } from '../plan/plan.js';

/** A variant to run, with its cell: what progress shows and the pool schedules. */
export interface RunUnit {
  id: string;
  version: string;
  role?: string;
  cell: PlannedCell;
  variant: PlannedVariant;
}

/**
 * Variants round-robin over cells (every cell's first variant, then every second …): the first in line
 * start every cell's install, so cells install and run in parallel as they did before axes.
 */
export function interleave(cells: PlannedCell[]): RunUnit[] {
  const units: RunUnit[] = [];
  const longest = Math.max(0, ...cells.map((c) => c.variants.length));
  for (let i = 0; i < longest; i++)
    for (const cell of cells) {
      const variant = cell.variants[i];
      if (variant) units.push({ id: variant.id, version: cell.version, ...(cell.role ? { role: cell.role } : {}), cell, variant });
    }
  return units;
}

/** Each variant's place in the plan (cells, then their variants): the order rows are reported in. */
export function planOrder(cells: PlannedCell[]): Map<string, number> {
  return new Map(cells.flatMap((c) => c.variants).map((v, i) => [v.id, i]));
}

/** The command that runs this variant alone (without axes: its cell). */
export function reproCommand(
  variant: Pick<PlannedVariant, 'id'>,
  configFlag?: string,
  tarball?: string,
  command = 'npx mcp-matrix',
): string {
  const parts = [command, 'run', '--cell', variant.id];
  if (configFlag) parts.push('--config', configFlag);
  if (tarball) parts.push('--tarball', tarball);
  return parts.join(' ');
}
