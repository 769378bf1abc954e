// Surface parity and the surface snapshot: what every stdio run listed (tools, resource templates,
// prompts; normalised by the driver) must be the same on every cell, and the same as the committed
// mcp-surface.json when there is one. Each difference names the item, the JSON path and the cells.

import type { CellResult, SurfaceAllowance, SurfaceCheck } from './types.js';

export type SurfaceItems = Record<string, unknown>;

export const SNAPSHOT_FILE = 'mcp-surface.json';
const MAX_VALUE_CHARS = 80;

interface Difference {
  item: string;
  /** Dotted JSON path inside the item; '' when the item itself is missing on one side. */
  path: string;
  a: unknown;
  b: unknown;
}

/** The surface a cell's stdio run recorded, if it got that far. */
export function cellSurface(cell: Pick<CellResult, 'phases'>): SurfaceItems | undefined {
  const parity = cell.phases.find((p) => p.phase === 'stdio')?.details?.parity;
  return isRecord(parity) ? parity : undefined;
}

/** Every leaf difference between two surfaces, in a stable order. */
export function diffSurfaces(a: SurfaceItems, b: SurfaceItems): Difference[] {
  const out: Difference[] = [];
  for (const item of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) diffValue(item, '', a[item], b[item], out);
  return out;
}

function diffValue(item: string, path: string, a: unknown, b: unknown, out: Difference[]): void {
  if (isRecord(a) && isRecord(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      diffValue(item, path ? `${path}.${key}` : key, a[key], b[key], out);
    return;
  }
  // Lists of objects (prompt arguments) by position, so the path names the field; lists of names whole.
  if (Array.isArray(a) && Array.isArray(b) && [...a, ...b].some(isRecord)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValue(item, `${path}[${i}]`, a[i], b[i], out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ item, path, a, b });
}

export function isAllowed(allow: readonly SurfaceAllowance[], item: string, path: string): boolean {
  return allow.some(
    (rule) =>
      rule.item === item &&
      (rule.path === undefined || path === rule.path || path.startsWith(`${rule.path}.`) || path.startsWith(`${rule.path}[`)),
  );
}

/**
 * Parity across the cells whose stdio run recorded a surface. Each differing (item, path) is one
 * finding listing every value with the cells that saw it; allowed ones are kept apart.
 */
export function compareCells(cells: readonly CellResult[], allow: readonly SurfaceAllowance[]): Omit<SurfaceCheck, 'allow' | 'drift'> {
  const seen = cells.flatMap((cell) => {
    const items = cellSurface(cell);
    return items ? [{ row: cell, items }] : [];
  });
  const first = seen[0];
  const keys = new Map<string, { item: string; path: string }>();
  for (const other of seen.slice(1))
    for (const d of diffSurfaces(first!.items, other.items)) keys.set(`${d.item}\u0000${d.path}`, { item: d.item, path: d.path });
  const findings: string[] = [];
  const allowed: string[] = [];
  const rows = seen.map((s) => s.row);
  for (const { item, path } of keys.values()) {
    const byValue = new Map<string, CellResult[]>();
    for (const { row, items } of seen) {
      const shown = show(valueAt(items, item, path));
      byValue.set(shown, [...(byValue.get(shown) ?? []), row]);
    }
    const line = `${where(item, path)} ${[...byValue].map(([value, on]) => `${value} on ${nameRows(on, rows, true)}`).join('; ')}`;
    (isAllowed(allow, item, path) ? allowed : findings).push(line);
  }
  return { cells: rows.map((c) => c.id), findings, allowed };
}

/**
 * The rows that saw a value, named briefly: a cell whose every compared variant is among them is named once
 * (`floor-1 (1.23.0, all 12 variants)`), else each variant by its id.
 */
export function nameRows(on: readonly CellResult[], compared: readonly CellResult[], withVersion: boolean): string {
  const names: string[] = [];
  const done = new Set<string>();
  for (const row of on) {
    const cell = row.cell;
    if (done.has(cell)) continue;
    const ofCell = compared.filter((r) => r.cell === cell);
    const here = on.filter((r) => r.cell === cell);
    const version = withVersion ? row.version : undefined;
    if (ofCell.length > 1 && here.length === ofCell.length) {
      done.add(cell);
      names.push(`${cell} (${version ? `${version}, ` : ''}all ${ofCell.length} variants)`);
    } else names.push(version ? `${row.id} (${version})` : row.id);
  }
  return names.join(', ');
}

/** Differences between the committed snapshot and what each cell saw: `item: path old → new (cells)`. */
export function compareSnapshot(snapshot: SurfaceItems, cells: readonly CellResult[], allow: readonly SurfaceAllowance[]): string[] {
  const lines = new Map<string, CellResult[]>();
  const compared = cells.filter((cell) => cellSurface(cell));
  for (const cell of compared) {
    for (const d of diffSurfaces(snapshot, cellSurface(cell)!)) {
      if (isAllowed(allow, d.item, d.path)) continue;
      const line = `${where(d.item, d.path)} ${show(d.a)} → ${show(d.b)}`;
      lines.set(line, [...(lines.get(line) ?? []), cell]);
    }
  }
  return [...lines].map(([line, on]) => `${line} (${nameRows(on, compared, false)})`);
}

/** The snapshot a run writes: the surface of its first cell that recorded one. */
export function snapshotOf(cells: readonly CellResult[]): SurfaceItems | undefined {
  for (const cell of cells) {
    const items = cellSurface(cell);
    if (items) return items;
  }
  return undefined;
}

/** `compared`: the values answer parity compares (src/results/parity.ts), kept beside the surface. */
export function renderSnapshot(packageName: string, items: SurfaceItems, compared?: Record<string, unknown>): string {
  return `${JSON.stringify({ package: packageName, items, ...(compared ? { compared } : {}) }, null, 2)}\n`;
}

export function parseSnapshot(
  text: string,
): { ok: true; items: SurfaceItems; compared?: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && isRecord(parsed.items))
      return { ok: true, items: parsed.items, ...(isRecord(parsed.compared) ? { compared: parsed.compared } : {}) };
    return { ok: false, error: 'not a surface snapshot (no "items" object); regenerate it with `mcp-matrix run --update-surface`' };
  } catch (error) {
    return { ok: false, error: `not JSON (${(error as Error).message}); regenerate it with \`mcp-matrix run --update-surface\`` };
  }
}

/** The surface check as the run records it, from the cells, the config's allowances and the snapshot drift. */
export function surfaceCheck(cells: readonly CellResult[], allow: readonly SurfaceAllowance[], drift?: readonly string[]): SurfaceCheck {
  return { ...compareCells(cells, allow), allow: [...allow], ...(drift ? { drift: [...drift] } : {}) };
}

/** The lines that fail the run: parity findings and snapshot drift. */
export function surfaceFailures(check: SurfaceCheck | undefined): string[] {
  if (!check) return [];
  return [...check.findings.map((f) => `surface: ${f}`), ...(check.drift ?? []).map((d) => `surface snapshot: ${d}`)];
}

export function where(item: string, path: string): string {
  return path ? `${item}: ${path}` : `${item}:`;
}

export function valueAt(items: SurfaceItems, item: string, path: string): unknown {
  let value: unknown = items[item];
  for (const key of path.match(/[^.[\]]+/g) ?? [])
    value = isRecord(value) ? value[key] : Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : undefined;
  return value;
}

/** A value in a finding, its keys sorted as results.json stores them: report and merge recompute the same text from the file. */
export function show(value: unknown): string {
  if (value === undefined) return 'absent';
  const sorted = (_key: string, v: unknown): unknown =>
    isRecord(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v;
  const text = JSON.stringify(value, sorted).replace(/"/g, "'");
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
