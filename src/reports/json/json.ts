// results.json: render (stable bytes) and parse back (with a validation that says what is wrong).

import type { RunResult } from '../../results/types.js';
import { RESULTS_SCHEMA_VERSION } from '../../results/types.js';
import { validateRun } from './validate.js';

/** The skip message of the conformance phase in evidence recorded before the phase existed. */
export const BEFORE_CONFORMANCE = 'recorded before the conformance phase';

export type ParseResult = { ok: true; run: RunResult } | { ok: false; error: string };

/**
 * Stable JSON: object keys sorted (so two producers that build the same run differently write the
 * same bytes), `schemaVersion` first, 2-space indent, trailing newline.
 */
export function renderJson(run: RunResult): string {
  const { schemaVersion, ...rest } = run;
  return `${JSON.stringify({ schemaVersion, ...(sortKeys(rest) as object) }, null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/** Parses and validates a results.json text. Errors name the problem and what to do about it. */
export function parseResults(text: string): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: `not valid JSON (${reason}). The file may be truncated or not a results.json; re-run \`mcp-matrix run\` to write it again.`,
    };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, error: 'expected a JSON object written by `mcp-matrix run` (results.json), got something else.' };
  }
  const version = (data as { schemaVersion?: unknown }).schemaVersion;
  if (version === undefined) {
    return {
      ok: false,
      error: 'no `schemaVersion`: this is not a results.json written by mcp-matrix. Pass the results.json from the run output directory.',
    };
  }
  if (version !== RESULTS_SCHEMA_VERSION && version !== 1) {
    const newer = typeof version === 'number' && version > RESULTS_SCHEMA_VERSION;
    return {
      ok: false,
      error: newer
        ? `schemaVersion ${version} is newer than this mcp-matrix understands (it reads 1 and ${RESULTS_SCHEMA_VERSION}): upgrade mcp-matrix to read it.`
        : `schemaVersion ${JSON.stringify(version)} is not supported (this mcp-matrix reads 1 and ${RESULTS_SCHEMA_VERSION}): re-run the matrix with this version to produce a compatible results.json.`,
    };
  }
  if (version === 1) upgradeV1(data as Record<string, unknown>);
  withConformanceRow(data as Record<string, unknown>);
  const problems = validateRun(data);
  if (problems.length > 0) {
    const shown = problems.slice(0, 10).map((p) => `  - ${p}`);
    if (problems.length > 10) shown.push(`  - … and ${problems.length - 10} more`);
    return {
      ok: false,
      error: `results.json (schema ${RESULTS_SCHEMA_VERSION}) has an invalid shape:\n${shown.join('\n')}\nIt was probably edited by hand or written by a broken run; re-run \`mcp-matrix run\` to regenerate it.`,
    };
  }
  return { ok: true, run: data as RunResult };
}

/**
 * Schema 1 (before the client and Node axes) read as schema 2: each row is the only variant of its
 * cell (`cell = id`, `variants = [{ id }]`), so stored evidence stays readable. Shape errors are left
 * for the validation to name.
 */
function upgradeV1(data: Record<string, unknown>): void {
  data.schemaVersion = RESULTS_SCHEMA_VERSION;
  for (const row of Array.isArray(data.cells) ? data.cells : [])
    if (isObject(row) && row.cell === undefined && typeof row.id === 'string') row.cell = row.id;
  const plan = data.plan;
  for (const ref of isObject(plan) && Array.isArray(plan.cells) ? plan.cells : [])
    if (isObject(ref) && ref.variants === undefined && typeof ref.id === 'string') ref.variants = [{ id: ref.id }];
}

/** Evidence recorded before the conformance phase existed: the phase reads as skipped (never run), before leaks. */
function withConformanceRow(data: Record<string, unknown>): void {
  for (const row of Array.isArray(data.cells) ? data.cells : []) {
    if (!isObject(row) || !Array.isArray(row.phases)) continue;
    const phases = row.phases as unknown[];
    if (phases.some((p) => isObject(p) && p.phase === 'conformance')) continue;
    const leaks = phases.findIndex((p) => isObject(p) && p.phase === 'leaks');
    const skipped = { phase: 'conformance', verdict: 'skipped', durationMs: 0, message: BEFORE_CONFORMANCE };
    phases.splice(leaks === -1 ? phases.length : leaks, 0, skipped);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
