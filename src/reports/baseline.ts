// The baseline of known failures (mcp-matrix.baseline.json): cell × phase, a message pattern, a reason.
// Parsed and rendered here (one entry a line, so a stale one names the line to delete); judged in verdict.ts.

import { PHASES, type BaselineEntry, type PhaseName, type RunResult } from '../results/types.js';
import { baselineMatches } from '../judge/verdict.js';
import { fail, ok, type Result } from '../util/result.js';

export const DEFAULT_BASELINE = 'mcp-matrix.baseline.json';

/** Parses a baseline file's text: `{ "expectedFailures": [{ "cell", "phase", "message"?, "reason" }, …] }`. */
export function parseBaseline(text: string, file: string): Result<BaselineEntry[]> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail('usage', `${file}: not valid JSON (${(error as Error).message})`);
  }
  const list = (data as { expectedFailures?: unknown } | null)?.expectedFailures;
  if (!Array.isArray(list)) return fail('usage', `${file}: expected { "expectedFailures": [ … ] }`);
  const lines = text.split('\n');
  // Each entry's line: the nth line that opens an entry object with a "cell" key.
  const entryLines = lines.flatMap((l, i) => (/"cell"\s*:/.test(l) ? [i + 1] : []));
  const entries: BaselineEntry[] = [];
  for (const [i, raw] of list.entries()) {
    const where = `${file}: expectedFailures[${i}]`;
    const e = raw as Record<string, unknown>;
    if (typeof e !== 'object' || e === null) return fail('usage', `${where}: an object { cell, phase, message?, reason }`);
    const unknown = Object.keys(e).filter((k) => !['cell', 'phase', 'message', 'reason'].includes(k));
    if (unknown.length)
      return fail(
        'usage',
        `${where}: unknown key ${unknown.map((k) => JSON.stringify(k)).join(', ')} (keys: cell, phase, message, reason)`,
      );
    if (typeof e.cell !== 'string' || e.cell === '') return fail('usage', `${where}.cell: a cell id`);
    if (typeof e.phase !== 'string' || !PHASES.includes(e.phase as PhaseName))
      return fail('usage', `${where}.phase: one of ${PHASES.join(', ')} (got ${JSON.stringify(e.phase)})`);
    if (typeof e.reason !== 'string' || e.reason.trim() === '')
      return fail('usage', `${where}.reason: why this failure is known (required)`);
    if (e.message !== undefined) {
      if (typeof e.message !== 'string') return fail('usage', `${where}.message: a regular expression as a string`);
      try {
        new RegExp(e.message);
      } catch (error) {
        return fail('usage', `${where}.message: not a valid regular expression (${(error as Error).message})`);
      }
    }
    entries.push({
      cell: e.cell,
      phase: e.phase as PhaseName,
      ...(e.message !== undefined ? { message: e.message as string } : {}),
      reason: e.reason,
      line: entryLines[i] ?? 0,
    });
  }
  return ok(entries);
}

/**
 * The baseline that lists exactly the run's current failures (cells not allowed to fail): an existing
 * entry that still matches keeps its message pattern and reason; a new one gets a reason to edit.
 */
export function baselineFromRun(run: Pick<RunResult, 'cells'>, previous: readonly BaselineEntry[]): Omit<BaselineEntry, 'line'>[] {
  const entries = run.cells
    .filter((c) => !c.allowedToFail)
    .flatMap((c) =>
      c.phases
        .filter((p) => p.verdict === 'failed')
        .map((p) => {
          const kept = previous.find((e) => baselineMatches(e, c, p));
          return kept
            ? { cell: kept.cell, phase: kept.phase, ...(kept.message !== undefined ? { message: kept.message } : {}), reason: kept.reason }
            : {
                cell: c.id,
                phase: p.phase,
                reason: `known failure (added by --update-baseline): ${(p.message ?? 'failed').slice(0, 200)}`,
              };
        }),
    );
  // An entry naming a cell covers each of its failing variants: kept once.
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = JSON.stringify(e);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** The file's text: one entry per line. */
export function renderBaseline(entries: readonly Omit<BaselineEntry, 'line'>[]): string {
  if (entries.length === 0) return '{\n  "expectedFailures": []\n}\n';
  const body = entries.map(
    (e) =>
      `    ${JSON.stringify({ cell: e.cell, phase: e.phase, ...(e.message !== undefined ? { message: e.message } : {}), reason: e.reason })}`,
  );
  return `{\n  "expectedFailures": [\n${body.join(',\n')}\n  ]\n}\n`;
}
