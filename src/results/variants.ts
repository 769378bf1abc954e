// Which variants a plan holds and which of them a run was asked for: run, merge and every report
// count and order rows with these, so that a missing variant is never silently dropped.

import type { PlannedCellRef, RunResult, VariantRef } from './types.js';

export interface PlannedRow {
  cell: PlannedCellRef;
  variant: VariantRef;
}

/** Every variant of the plan, cell by cell in plan order (so rows are grouped by cell). */
export function plannedVariants(plan: Pick<RunResult['plan'], 'cells'>): PlannedRow[] {
  return plan.cells.flatMap((cell) => cell.variants.map((variant) => ({ cell, variant })));
}

/**
 * The variants a run was asked for: all of them, or those `selected` names (`--cell` takes a variant
 * id, or a cell id meaning every variant of that cell).
 */
export function selectedVariants(plan: Pick<RunResult['plan'], 'cells' | 'selected'>): PlannedRow[] {
  const all = plannedVariants(plan);
  const { selected } = plan;
  if (!selected) return all;
  return all.filter((row) => selected.includes(row.variant.id) || selected.includes(row.cell.id));
}

/** Does the run use an axis (a client or a Node other than the cell's own and the host's)? */
export function hasAxes(plan: Pick<RunResult['plan'], 'cells'>): boolean {
  return plannedVariants(plan).some((row) => row.variant.client !== undefined || row.variant.node !== undefined);
}
