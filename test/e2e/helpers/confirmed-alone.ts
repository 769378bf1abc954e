// What a side-by-side run of a correct server may confirm alone (docs/phases.md, "A variant's phases side by side").
import { expect } from 'vitest';
import type { CellResult } from '../../../src/results/types.js';

/**
 * Every phase the row confirmed alone was sent there by a cause heavy load can give: its run beside the others did not
 * pass (a lifecycle check's timing window, a port race), or its group's leaks phase was not clean (a server slow to
 * exit), which sends every phase of that group (`phaseRuns.sideBySide`). A phase whose run beside passed while the rest
 * of its group stood was sent for its findings alone: for a correct server, the warn checks of its own answers that
 * src/judge/beside-proof.ts lets stand. Each confirmed phase reports its lone run, so the row's verdicts are asserted
 * apart, as in turn. `mustConfirm`: phases the row must have confirmed (a failure of the server's own).
 */
export function expectConfirmedAloneForCause(cell: CellResult, mustConfirm: string[] = []): void {
  const runs = cell.phaseRuns!;
  const confirmed = runs.confirmedAlone;
  expect(confirmed).toEqual(expect.arrayContaining(mustConfirm));
  for (const name of confirmed) {
    const details = cell.phases.find((p) => p.phase === name)?.details as { confirmedAlone?: { beside: { verdict: string } } } | undefined;
    const beside = details?.confirmedAlone?.beside;
    expect(beside, `${cell.id} ${name}: confirmed alone, with what it reported beside`).toBeDefined();
    if (beside!.verdict !== 'passed') continue;
    const group = runs.sideBySide.find((g) => g.includes(name)) ?? [name];
    expect(
      group.filter((p) => !confirmed.includes(p)),
      `${cell.id} ${name} passed beside the others and was confirmed alone while the rest of its group stood`,
    ).toEqual([]);
  }
  // Each phase confirmed alone says so, and no other does.
  expect(cell.phases.filter((p) => p.details?.confirmedAlone !== undefined).map((p) => p.phase)).toEqual(confirmed);
}
