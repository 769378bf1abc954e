// Values a phase records for run-level parity: each is compared across every cell and variant by
// src/results/parity.ts (a step's normalised answer, a lifecycle behaviour). The run names an item
// `<phase> <item>`; a row that did not record an item is not compared for it.

import type { CommonDetails, FailedStep } from '../results/types.js';

export type { FailedStep };

/** Where a phase's details keep the values parity compares. */
export const COMPARED_KEY = 'compared';

/** Record `value` under `item` in the phase's details (an item recorded twice keeps the last value). */
export function recordCompared(details: Pick<CommonDetails, 'compared'>, item: string, value: unknown): void {
  (details.compared ??= {})[item] = value;
}

/** `label`, or `label #2` … when the phase already recorded an item of that name (a step run twice). */
export function uniqueItem(details: Pick<CommonDetails, 'compared'>, label: string): string {
  const compared = details.compared ?? {};
  if (!(label in compared)) return label;
  let n = 2;
  while (`${label} #${n}` in compared) n++;
  return `${label} #${n}`;
}

/** Where a phase's details list the configured steps whose answer failed their check (the phase failed at the first). */
export const FAILED_STEPS = 'failedSteps';

/**
 * Every failed step failed on `isError` alone (no `expect`): the server answered each, and the run may find the row
 * contested across cells (src/judge/split-steps.ts), judged by its other checks, so those still run.
 */
export function onlyUnexpectedIsError(failed: readonly FailedStep[] | undefined): boolean {
  return failed !== undefined && failed.length > 0 && failed.every((f) => f.unexpectedIsError === true);
}
