// Factories for RunResult fixtures: a passing 4-cell matrix by default, overridable per cell/phase.

import type { CellResult, ClientRef, NodeRef, PhaseName, PhaseResult, PlannedCellRef, RunResult } from '../../../src/results/types.js';
import { PHASES } from '../../../src/results/types.js';
import { cellOutcome, decideCell, decideRun } from '../../../src/judge/verdict.js';

export const SHA512 = 'sha512-Q2FmZWJhYmVEZWFkQmVlZjAxMjM0NTY3ODlhYmNkZWY=';
export const CONFIG_HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

export interface CellSpec {
  /** The row's id: the cell id, or a variant id (see `variantOf`). */
  id: string;
  /** The cell a variant belongs to (default: `id`, a cell without axes). */
  cell?: string;
  client?: ClientRef;
  node?: NodeRef;
  pin: string;
  version: string;
  role?: string;
  major: number;
  allowedToFail?: boolean;
  phases?: Partial<Record<PhaseName, Partial<PhaseResult>>>;
  summary?: Partial<CellResult['summary']>;
}

export const FOUR_CELLS: CellSpec[] = [
  { id: 'v1-floor', pin: '1.24.0', version: '1.24.0', role: 'lower supported boundary', major: 1 },
  { id: 'v1-latest', pin: 'latest@1', version: '1.32.2', role: 'latest supported 1.x', major: 1 },
  { id: 'v2-rep', pin: '2.0.0', version: '2.0.0', role: 'representative 2.x', major: 2 },
  { id: 'v2-latest', pin: 'latest@2', version: '2.1.0', role: 'latest supported 2.x', major: 2 },
];

export function installSet(major: number, version: string): Record<string, string> {
  if (major === 1) return { '@modelcontextprotocol/sdk': version };
  return {
    '@modelcontextprotocol/server': version,
    '@modelcontextprotocol/client': version,
    '@modelcontextprotocol/node': version,
  };
}

/** A client of the `clients` axis: `clientRef('1.0.0')`, `clientRef('latest@2', '2.1.0')`. */
export function clientRef(pin: string, version = pin): ClientRef {
  const major = Number(version.split('.')[0]);
  return { pin, major, version, package: major === 1 ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client' };
}

/** A Node of the `node` axis: `nodeRef('22', '22.11.0')`. */
export function nodeRef(spec: string, version = spec): NodeRef {
  return { spec, version };
}

/** The variant id of the contract: `<cell>[~client-<pin with @→->][~node-<spec>]`. */
export function variantId(cell: string, axes: { client?: ClientRef; node?: NodeRef }): string {
  return [
    cell,
    ...(axes.client ? [`client-${axes.client.pin.replace(/@/g, '-')}`] : []),
    ...(axes.node ? [`node-${axes.node.spec}`] : []),
  ].join('~');
}

/** A variant row of the cell `base`: its id, its cell, its client and Node, plus any overrides. */
export function variantOf(base: CellSpec, axes: { client?: ClientRef; node?: NodeRef }, extra: Partial<CellSpec> = {}): CellSpec {
  return { ...base, ...axes, ...extra, id: variantId(base.id, axes), cell: base.id };
}

export function makeCell(spec: CellSpec): CellResult {
  const phases = PHASES.map((phase) => ({ phase, verdict: 'passed', durationMs: 1000, ...spec.phases?.[phase] }) as PhaseResult);
  const verdict = decideCell(phases);
  const allowedToFail = spec.allowedToFail ?? false;
  const set = installSet(spec.major, spec.version);
  return {
    id: spec.id,
    cell: spec.cell ?? spec.id,
    ...(spec.client ? { client: spec.client } : {}),
    ...(spec.node ? { node: spec.node } : {}),
    pin: spec.pin,
    ...(spec.role ? { role: spec.role } : {}),
    major: spec.major,
    version: spec.version,
    allowedToFail,
    installSet: set,
    verdict,
    outcome: cellOutcome(verdict, allowedToFail),
    phases,
    environment: {
      harnessVersion: '0.1.0',
      node: spec.node ? `v${spec.node.version}` : 'v22.11.0',
      npm: '10.9.0',
      os: 'linux x64',
      package: { name: '@acme/notes-mcp', version: '0.3.0' },
      tarball: { file: 'acme-notes-mcp-0.3.0.tgz', size: 24_310, sha512: SHA512 },
      sdkPackages: Object.entries(set).map(([name, version]) => ({ name, version, path: `node_modules/${name}` })),
      lockfileSha256: 'ab'.repeat(32),
      installMs: 8400,
      installAttempts: 1,
      declaredRanges: { '@modelcontextprotocol/sdk': '>=1.24.0 <3' },
    },
    summary: {
      serverName: 'notes',
      serverVersion: '0.3.0',
      protocolVersion: '2025-06-18',
      tools: 5,
      resourceTemplates: 2,
      prompts: 2,
      leakedHandles: [],
      ...spec.summary,
    },
    durationMs: 5000,
    repro: `npx mcp-matrix run --cell ${spec.id}`,
  };
}

/** The plan entry of a cell from its rows (one per variant; a cell without axes has one row, its own). */
export function planRef(cell: CellResult, rows: readonly CellResult[] = [cell]): PlannedCellRef {
  const { pin, role, version, major, allowedToFail, installSet: set } = cell;
  const variants = rows.map((r) => ({ id: r.id, ...(r.client ? { client: r.client } : {}), ...(r.node ? { node: r.node } : {}) }));
  return { id: cell.cell, variants, pin, ...(role ? { role } : {}), version, major, allowedToFail, installSet: set };
}

/** Plan entries for rows grouped by cell, in the order cells first appear. */
export function planRefs(rows: readonly CellResult[]): PlannedCellRef[] {
  const byCell = new Map<string, CellResult[]>();
  for (const row of rows) byCell.set(row.cell, [...(byCell.get(row.cell) ?? []), row]);
  return [...byCell.values()].map((group) => planRef(group[0]!, group));
}

export function makeRun(specs: CellSpec[] = FOUR_CELLS, overrides: Partial<RunResult> = {}): RunResult {
  const cells = specs.map(makeCell);
  const interrupted = overrides.interrupted ?? false;
  return {
    schemaVersion: 2,
    tool: { name: 'mcp-matrix', version: '0.1.0' },
    startedAt: '2026-08-25T10:00:00.000Z',
    finishedAt: '2026-08-25T10:01:00.000Z',
    durationMs: 60_000,
    interrupted,
    plan: {
      configHash: CONFIG_HASH,
      configFile: 'matrix.config.ts',
      package: { name: '@acme/notes-mcp', version: '0.3.0' },
      tarball: { file: 'acme-notes-mcp-0.3.0.tgz', size: 24_310, sha512: SHA512 },
      cells: planRefs(cells),
    },
    host: { node: 'v22.11.0', npm: '10.9.0', os: 'linux x64' },
    cells,
    ...decideRun(cells, interrupted),
    warnings: [],
    ...overrides,
  };
}

/** The single-variant piece of `run` for the row `id` (a cell id without axes), as `run --cell id` would write it. */
export function pieceOf(run: RunResult, id: string, startedAt: string, finishedAt: string): RunResult {
  const cells = run.cells.filter((c) => c.id === id);
  const plan = { ...run.plan, selected: [id] };
  return { ...run, plan, cells, startedAt, finishedAt, ...decideRun(cells, false, { expected: 1 }) };
}

export const CLIENT_OLD = clientRef('1.0.0');
export const CLIENT_NEW = clientRef('latest@2', '2.1.0');
export const NODE_22 = nodeRef('22', '22.11.0');
export const NODE_20 = nodeRef('20', '20.19.5');

/**
 * Every variant of `cells` × `clients` × `nodes` (an empty list is an absent axis), cell by cell,
 * each row overridable by its variant id: `variantSpecs({ 'v2-latest~client-1.0.0~node-22': { phases: … } })`.
 */
export function variantSpecs(
  overrides: Record<string, Partial<CellSpec>> = {},
  cells: readonly CellSpec[] = [FOUR_CELLS[1]!, FOUR_CELLS[3]!],
  clients: readonly (ClientRef | undefined)[] = [CLIENT_OLD, CLIENT_NEW],
  nodes: readonly (NodeRef | undefined)[] = [NODE_22],
): CellSpec[] {
  const specs = cells.flatMap((cell) =>
    (clients.length ? clients : [undefined]).flatMap((client) =>
      (nodes.length ? nodes : [undefined]).map((node) => variantOf(cell, { ...(client ? { client } : {}), ...(node ? { node } : {}) })),
    ),
  );
  const unknown = Object.keys(overrides).filter((id) => !specs.some((s) => s.id === id));
  if (unknown.length) throw new Error(`variantSpecs: no variant ${unknown.join(', ')} (have ${specs.map((s) => s.id).join(', ')})`);
  return specs.map((s) => ({ ...s, ...overrides[s.id] }));
}
