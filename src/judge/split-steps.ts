// A configured step that failed on some rows only, judged across them: each failing row names what the others
// answered. An `isError` without `expect` is `contested`, not blamed, since the config does not say which row is right.

import { COMPARED_KEY, type FailedStep } from '../contract/compared.js';
import { withDetails } from '../contract/fields.js';
import type { CellResult, PhaseResult, SubCheckResult } from '../results/types.js';
import { diffSurfaces, nameRows, show, valueAt } from '../results/surface.js';
import { decideCellResult, decidePhase } from './verdict.js';

/** The sub-check that carries a phase's configured steps. */
const STEP_CHECK: Partial<Record<PhaseResult['phase'], string>> = { stdio: 'session', http: 'round-trip' };
const NOTE = 'the other cells answered';

type Row = { row: CellResult; phase: PhaseResult; value: unknown; failed: FailedStep | undefined };

/** The rows with each split step judged: messages (and for a contested step, verdicts) rewritten; the rest as they were. */
export function judgeSplitSteps(cells: readonly CellResult[]): CellResult[] {
  const byItem = new Map<string, Row[]>();
  for (const row of cells)
    for (const phase of row.phases) {
      const compared = record(phase.details?.[COMPARED_KEY]);
      const failed = phase.details?.failedSteps ?? [];
      for (const [item, value] of Object.entries(compared)) {
        const key = `${phase.phase} ${item}`;
        byItem.set(key, [...(byItem.get(key) ?? []), { row, phase, value, failed: failed.find((f) => f.item === item) }]);
      }
    }
  const edits = new Map<PhaseResult, { notes: string[]; contested: { item: string; step: string; message: string }[] }>();
  const edit = (p: PhaseResult) => edits.get(p) ?? edits.set(p, { notes: [], contested: [] }).get(p)!;
  const rows = [...cells];
  for (const [key, having] of byItem) {
    const failing = having.filter((h) => h.failed);
    const answered = having.filter((h) => !h.failed);
    if (failing.length === 0 || answered.length === 0) continue;
    const item = key.slice(key.indexOf(' ') + 1);
    if (failing.every((h) => h.failed!.unexpectedIsError)) {
      const split = `${byValue(
        having.map((h) => ({ row: h.row, value: isErrorOf(h.value) })),
        rows,
      )}`;
      const step = failing[0]!.failed!.step;
      const message = `${step}: not judged: the cells disagree whether the call failed (isError ${split}) and the step has no \`expect\` to say which is right (see the answer parity finding)`;
      for (const h of having) if (!contestedIn(h.phase).includes(item)) edit(h.phase).contested.push({ item, step, message });
      continue;
    }
    for (const h of failing) {
      const note = `${NOTE}: ${differences(key, h, answered, rows)}`;
      edit(h.phase).notes.push(note);
    }
  }
  if (edits.size === 0) return [...cells];
  return cells.map((row) => {
    if (!row.phases.some((p) => edits.has(p))) return row;
    const phases = row.phases.map((p) => {
      const e = edits.get(p);
      return e ? rejudged(p, e.notes, e.contested) : p;
    });
    return { ...row, phases, ...decideCellResult(phases, row.allowedToFail) };
  });
}

function rejudged(phase: PhaseResult, notes: string[], contested: { item: string; step: string; message: string }[]): PhaseResult {
  const fresh = notes.filter((n) => !(phase.message ?? '').includes(n));
  const out: PhaseResult = fresh.length ? { ...phase, message: [phase.message, ...fresh].filter(Boolean).join('; ') } : phase;
  if (contested.length === 0) return out;
  const id = STEP_CHECK[phase.phase];
  const failed = (phase.details?.failedSteps ?? []).map((f) => f.item);
  const already = contestedIn(phase);
  const items = contested.map((c) => c.item);
  // The step check still fails when a step it ran failed for another reason: only the note is added then.
  const stillFailed = failed.some((f) => !items.includes(f) && !already.includes(f));
  const contestedSteps = [...already, ...items];
  const text = contested.map((c) => c.message).join('; ');
  const check = phase.checks?.find((c) => c.id === id);
  if (!check || check.level === 'off' || stillFailed)
    return withDetails({ ...out, message: [out.message, text].filter(Boolean).join('; ') }, { contestedSteps });
  // Measured, not infrastructure: neither failed nor passed on this row (never `not-measured`, which is the machine's).
  const replaced: SubCheckResult = { ...check, outcome: 'contested', message: text, short: 'contested', step: contested[0]!.step };
  const checks = phase.checks!.map((c) => (c === check ? replaced : c));
  const message =
    out.message && check.message && out.message.includes(check.message)
      ? out.message.replace(check.message, text)
      : [text, out.message].filter(Boolean).join('; ');
  const verdict = decidePhase(checks);
  // The contested step decides nothing: a phase that still fails or is not measured names the check that decides it.
  const decisive = checks.find((c) => c.level === 'require' && (c.outcome === 'failed' || c.outcome === 'not-measured'));
  const judged: PhaseResult = withDetails({ ...out, checks, verdict, message }, { contestedSteps });
  delete judged.step;
  return decisive?.step ? { ...judged, step: decisive.step } : judged;
}

/** What the rows that did not fail answered where this failing row's answer differs: `isError false on latest-2 (2.4.0)`. */
function differences(key: string, failing: Row, answered: readonly Row[], rows: readonly CellResult[]): string {
  const paths = new Set<string>();
  for (const h of answered) for (const d of diffSurfaces({ [key]: failing.value }, { [key]: h.value })) paths.add(d.path);
  if (paths.size === 0)
    return `the same answer without failing (${nameRows(
      answered.map((h) => h.row),
      rows,
      true,
    )})`;
  return [...paths]
    .map(
      (path) =>
        `${path || 'the answer'} ${byValue(
          answered.map((h) => ({ row: h.row, value: valueAt({ [key]: h.value }, key, path) })),
          rows,
        )}`,
    )
    .join('; ');
}

function byValue(values: readonly { row: CellResult; value: unknown }[], rows: readonly CellResult[]): string {
  const groups = new Map<string, CellResult[]>();
  for (const { row, value } of values) groups.set(show(value), [...(groups.get(show(value)) ?? []), row]);
  return [...groups].map(([value, on]) => `${value} on ${nameRows(on, rows, true)}`).join('; ');
}

function isErrorOf(value: unknown): unknown {
  return record(value).isError;
}

function contestedIn(phase: PhaseResult): string[] {
  return phase.details?.contestedSteps ?? [];
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
