// Loading a results.json (`report`, and the programmatic API's loadResults): read, parse, check its schema version and shape, and refuse a file
// whose stored verdicts contradict its phases (as `report` does). Every failure is a value naming the
// file and what to do, never an exception.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseResults } from './json.js';
import type { RunResult } from '../../results/types.js';
import { auditRun } from '../../judge/verdict.js';
import type { Failure } from '../../util/result.js';

export type LoadResultsOutcome = { ok: true; run: RunResult } | { ok: false; error: Failure };

/** A results.json text, checked: a schema 1 file is read as the current schema; another version is refused by name. */
export function parseResultsText(text: string, shown = 'results.json'): LoadResultsOutcome {
  const parsed = parseResults(text);
  if (!parsed.ok) return { ok: false, error: { kind: 'usage', message: `${shown}: ${parsed.error}` } };
  const problems = auditRun(parsed.run);
  if (problems.length > 0)
    return {
      ok: false,
      error: {
        kind: 'usage',
        message: `${shown} contradicts itself; refusing to render it (re-run \`mcp-matrix run\` to regenerate it):`,
        details: problems,
      },
    };
  return { ok: true, run: parsed.run };
}

/** Reads and checks the results.json at `file` (relative to `cwd`). */
export async function loadResults(file: string, cwd = process.cwd()): Promise<LoadResultsOutcome> {
  const target = path.resolve(cwd, file);
  const text = await readFile(target, 'utf8').catch(() => undefined);
  if (text === undefined)
    return { ok: false, error: { kind: 'usage', message: `cannot read ${target}: pass the results.json a run wrote` } };
  return parseResultsText(text, target);
}
