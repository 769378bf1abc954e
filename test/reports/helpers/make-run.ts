// Factories for RunResult fixtures: a passing 4-cell matrix by default, overridable per cell/phase.

import type { CellResult, PhaseName, PhaseResult, PlannedCellRef, RunResult } from '../../../src/results/types.js';
import { PHASES } from '../../../src/results/types.js';
import { cellOutcome, decideCell, decideRun } from '../../../src/results/verdict.js';

export const SHA512 = 'sha512-Q2FmZWJhYmVEZWFkQmVlZjAxMjM0NTY3ODlhYmNkZWY=';
export const CONFIG_HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

export interface CellSpec {
  id: string;
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

export function makeCell(spec: CellSpec): CellResult {
  const phases = PHASES.map((phase): PhaseResult => ({ phase, verdict: 'passed', durationMs: 1000, ...spec.phases?.[phase] }));
  const verdict = decideCell(phases);
  const allowedToFail = spec.allowedToFail ?? false;
  const set = installSet(spec.major, spec.version);
  return {
    id: spec.id,
    cell: spec.id,
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
      node: 'v22.11.0',
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

export function planRef(cell: CellResult): PlannedCellRef {
  const { id, pin, role, version, major, allowedToFail, installSet: set } = cell;
  return { id, variants: [{ id }], pin, ...(role ? { role } : {}), version, major, allowedToFail, installSet: set };
}

export function makeRun(specs: CellSpec[] = FOUR_CELLS, overrides: Partial<RunResult> = {}): RunResult {
  const cells = specs.map(makeCell);
  const interrupted = overrides.interrupted ?? false;
  return {
    schemaVersion: 1,
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
      cells: cells.map(planRef),
    },
    host: { node: 'v22.11.0', npm: '10.9.0', os: 'linux x64' },
    cells,
    ...decideRun(cells, interrupted),
    warnings: [],
    ...overrides,
  };
}

/** The single-cell piece of `run` for cell `id`, as `run --cell id` would write it. */
export function pieceOf(run: RunResult, id: string, startedAt: string, finishedAt: string): RunResult {
  const cells = run.cells.filter((c) => c.id === id);
  const plan = { ...run.plan, selected: [id] };
  return { ...run, plan, cells, startedAt, finishedAt, ...decideRun(cells, false, { expected: 1 }) };
}
