// Parity of recorded values: what a cell's phases recorded under `details.compared` (contract/compared.ts)
// must be the same on every row that recorded it and as in the committed mcp-surface.json. Each difference
// names the item, the path and which rows have which value; an allowance that matches nothing is stale.

import type { CellResult, ParityAllowance, ParityCheck } from './types.js';
import { diffSurfaces, isAllowed, nameRows, show, valueAt, where } from './surface.js';

export type Recorded = Record<string, unknown>;

/** Every value a row's phases recorded, named `<phase> <item>` (e.g. `stdio tools/call add`); undefined when none. */
export function recordedValues(cell: Pick<CellResult, 'phases'>): Recorded | undefined {
  const out: Recorded = {};
  for (const phase of cell.phases) {
    const compared = phase.details?.compared;
    if (!isRecord(compared)) continue;
    for (const [item, value] of Object.entries(compared)) out[`${phase.phase} ${item}`] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Parity across the rows, and drift from `snapshot` when given. An item is compared among the rows that
 * recorded it (a row whose phase failed before it has that failure already).
 */
export function compareRecorded(cells: readonly CellResult[], allow: readonly ParityAllowance[], snapshot?: Recorded): ParityCheck {
  const seen = cells.flatMap((row) => {
    const values = recordedValues(row);
    return values ? [{ row, values }] : [];
  });
  const rows = seen.map((s) => s.row);
  const items = [...new Set(seen.flatMap((s) => Object.keys(s.values)))].sort();
  const used = new Set<ParityAllowance>();
  const judge = (item: string, path: string): boolean => {
    const rule = allow.find((a) => isAllowed([a], item, path));
    if (rule) used.add(rule);
    return rule !== undefined;
  };
  const findings: string[] = [];
  const allowed: string[] = [];
  const recordedBy = new Map<string, number>();
  for (const item of items) {
    const having = seen.filter((s) => item in s.values);
    recordedBy.set(item, having.length);
    const paths = new Set<string>();
    for (const other of having.slice(1))
      for (const d of diffSurfaces({ [item]: having[0]!.values[item] }, { [item]: other.values[item] })) paths.add(d.path);
    for (const path of paths) {
      const byValue = new Map<string, CellResult[]>();
      for (const { row, values } of having) {
        const shown = show(valueAt(values, item, path));
        byValue.set(shown, [...(byValue.get(shown) ?? []), row]);
      }
      const line = `${where(item, path)} ${[...byValue].map(([value, on]) => `${value} on ${nameRows(on, rows, true)}`).join('; ')}`;
      const rule = allow.find((a) => isAllowed([a], item, path));
      if (rule) {
        used.add(rule);
        allowed.push(`${line} (${rule.reason})`);
      } else findings.push(line);
    }
  }
  const drift = snapshot && snapshotDrift(snapshot, seen, rows, judge);
  const stale = allow
    .filter((a) => !used.has(a) && ((recordedBy.get(a.item) ?? 0) >= 2 || (!recordedBy.has(a.item) && rows.length >= 2)))
    .map(
      (a) =>
        `parity.allow ${where(a.item, a.path ?? '')} (${a.reason}) matches no difference: ${recordedBy.has(a.item) ? `the ${recordedBy.get(a.item)} rows that recorded it agree` : 'no row recorded that item'}; delete it`,
    );
  return { cells: rows.map((r) => r.id), items, findings, allowed, stale, allow: [...allow], ...(drift ? { drift } : {}) };
}

/** Differences from the snapshot's values, for the items each row recorded: `item: path old → new (rows)`. */
function snapshotDrift(
  snapshot: Recorded,
  seen: readonly { row: CellResult; values: Recorded }[],
  rows: readonly CellResult[],
  allowed: (item: string, path: string) => boolean,
): string[] {
  const lines = new Map<string, CellResult[]>();
  for (const { row, values } of seen)
    for (const d of diffSurfaces(pick(snapshot, Object.keys(values)), values)) {
      if (allowed(d.item, d.path)) continue;
      const line = `${where(d.item, d.path)} ${show(d.a)} → ${show(d.b)}`;
      lines.set(line, [...(lines.get(line) ?? []), row]);
    }
  const out = [...lines].map(([line, on]) => `${line} (${nameRows(on, rows, false)})`);
  // An item the snapshot has and no row recorded: the step was removed or renamed, or never answered.
  if (seen.length > 0)
    for (const item of Object.keys(snapshot).sort())
      if (!seen.some((s) => item in s.values) && !allowed(item, '')) out.push(`${item}: in the snapshot, recorded by no row`);
  return out;
}

/** The values a run writes to the snapshot: the first row's that recorded any. */
export function recordedSnapshot(cells: readonly CellResult[]): Recorded | undefined {
  for (const cell of cells) {
    const values = recordedValues(cell);
    if (values) return values;
  }
  return undefined;
}

/** The lines that fail the run: differences between rows, snapshot drift and stale allowances. */
export function parityFailures(check: ParityCheck | undefined): string[] {
  if (!check) return [];
  return [
    ...check.findings.map((f) => `parity: ${f}`),
    ...(check.drift ?? []).map((d) => `parity snapshot: ${d}`),
    ...check.stale.map((s) => `parity: stale ${s}`),
  ];
}

function pick(values: Recorded, keys: readonly string[]): Recorded {
  return Object.fromEntries(keys.filter((k) => k in values).map((k) => [k, values[k]]));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
