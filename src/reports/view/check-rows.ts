// What matrix.md's and matrix.html's sub-check tables (checks.ts, html/checks.ts) read alike: their rows
// (every sub-check a variant recorded, named `phase › id`), a row's check in one variant, and the
// requirement a row names, so both tables list the same rows in the same order with the same words.

import type { CellResult, SubCheckResult } from '../../results/types.js';

export interface CheckRow {
  key: string;
  first: SubCheckResult;
}

/** Every sub-check the cells recorded, in the order the first cell that has it recorded it. */
export function checkRows(cells: readonly CellResult[]): CheckRow[] {
  const out = new Map<string, CheckRow>();
  for (const cell of cells)
    for (const phase of cell.phases)
      for (const c of phase.checks ?? []) {
        const key = `${phase.phase} › ${c.id}`;
        if (!out.has(key)) out.set(key, { key, first: c });
      }
  return [...out.values()];
}

export function checkOf(cell: CellResult, key: string): SubCheckResult | undefined {
  for (const phase of cell.phases) for (const c of phase.checks ?? []) if (`${phase.phase} › ${c.id}` === key) return c;
  return undefined;
}

/** The MCP revision a variant's checks were judged by (the one it negotiated), when one was read. */
export function revisionOf(cell: CellResult): string | undefined {
  for (const phase of cell.phases) for (const c of phase.checks ?? []) if (c.revision !== undefined) return c.revision;
  return undefined;
}

/** `MUST · 2025-11-25 basic/transports#…`; a check without one names its judge, else the harness. */
export function requirementOf(c: SubCheckResult): string {
  return c.requirement ? `${c.requirement}${c.spec ? ` · ${c.spec.revision} ${c.spec.section}` : ''}` : (c.judge ?? 'harness');
}
