// The lifecycle sub-checks (unknown method, unknown tool, invalid arguments, a second initialize with a call
// in flight, a cancellation), shown apart from the phases that run them: requests the minimal client does not
// make, which mostly wait by design. Their times come from the driver itself (`details.lifecycle` of the stdio
// and http phases, src/driver/lifecycle/checks.ts), never guessed from outside: each check's wall time and the
// waits it made, each with its deadline when it waits for nothing to come (the late window, the exit watch, the
// call under way), or none when it waits for an answer (the call in flight, as long as the config's slow step).
import type { LifecycleDetails, LifecycleTimes } from '../../src/results/types.js';
import { ms, round, sum, table } from './util.js';

/** One phase's lifecycle sub-checks as the bench keeps them (bench/results/*.json). */
export interface PhaseLifecycle {
  /** Their wall time, inside the phase's. */
  ms: number;
  /** Waited for nothing to come, up to a deadline (the late window, the exit watch, the call under way). */
  deadlineWaitMs: number;
  /** The sum of those deadlines. */
  deadlinesMs: number;
  /** Waited for an answer that takes its own time (the call in flight: the config's slow step). */
  answerWaitMs: number;
  checks: LifecycleTimes['checks'];
}

/** What a phase's results say about its lifecycle sub-checks; undefined: none ran (or a results.json from before they reported it). */
export function phaseLifecycle(details: LifecycleDetails | undefined): PhaseLifecycle | undefined {
  const t = details?.lifecycle;
  if (!t || typeof t.durationMs !== 'number' || !Array.isArray(t.checks)) return undefined;
  const waits = t.checks.flatMap((c) => c.waits ?? []);
  const bounded = waits.filter((w) => w.deadlineMs !== undefined);
  return {
    ms: t.durationMs,
    deadlineWaitMs: sum(bounded.map((w) => w.ms)),
    deadlinesMs: sum(bounded.map((w) => w.deadlineMs!)),
    answerWaitMs: sum(waits.filter((w) => w.deadlineMs === undefined).map((w) => w.ms)),
    checks: t.checks,
  };
}

interface Phases {
  phases: Record<string, { lifecycle?: PhaseLifecycle }>;
}

/** The lifecycle sub-checks' wall time in a cell's stdio and http phases (0 when none ran). */
export const lifecycleMsOf = (c: Phases, phase?: 'stdio' | 'http'): number =>
  sum((phase ? [phase] : ['stdio', 'http']).map((p) => c.phases[p]?.lifecycle?.ms ?? 0));

/** Per phase and per check, over the cells of one run: wall time, the waits by design, and the rest. */
export function lifecycleRows(cells: readonly Phases[]) {
  const rows: { what: string; ms: number; deadlineWaitMs: number; deadlinesMs: number; answerWaitMs: number }[] = [];
  for (const phase of ['stdio', 'http'] as const) {
    const runs = cells.flatMap((c) => (c.phases[phase]?.lifecycle ? [c.phases[phase].lifecycle] : []));
    if (!runs.length) continue;
    const ids = [...new Set(runs.flatMap((r) => r.checks.map((c) => c.id)))];
    const of = (id: string) => runs.flatMap((r) => r.checks.filter((c) => c.id === id));
    for (const id of ids) {
      const waits = of(id).flatMap((c) => c.waits ?? []);
      const bounded = waits.filter((w) => w.deadlineMs !== undefined);
      rows.push({
        what: `${phase} ${id}`,
        ms: sum(of(id).map((c) => c.durationMs)),
        deadlineWaitMs: sum(bounded.map((w) => w.ms)),
        deadlinesMs: sum(bounded.map((w) => w.deadlineMs!)),
        answerWaitMs: sum(waits.filter((w) => w.deadlineMs === undefined).map((w) => w.ms)),
      });
    }
    // The rest of their time: http's own session (initialize, initialized, DELETE) and the loop itself.
    const checksMs = sum(runs.flatMap((r) => r.checks.map((c) => c.durationMs)));
    rows.push({
      what: `${phase}, outside the checks`,
      ms: sum(runs.map((r) => r.ms)) - checksMs,
      deadlineWaitMs: 0,
      deadlinesMs: 0,
      answerWaitMs: 0,
    });
  }
  return rows;
}
export type LifecycleRow = ReturnType<typeof lifecycleRows>[number];

/** The table: each check's wall time beside the waits it is designed to make, so what is left is the check's own work. */
export function renderLifecycle(rows: readonly LifecycleRow[], cells: number): string {
  const all = {
    what: 'all lifecycle sub-checks',
    ms: sum(rows.map((r) => r.ms)),
    deadlineWaitMs: sum(rows.map((r) => r.deadlineWaitMs)),
    deadlinesMs: sum(rows.map((r) => r.deadlinesMs)),
    answerWaitMs: sum(rows.map((r) => r.answerWaitMs)),
  };
  return table(
    `   lifecycle sub-checks, apart (concurrency-1 run, ${cells} cells summed): their wall time beside the waits they are designed to make`,
    ['sub-check', 'wall', 'waited to a deadline', 'deadlines', 'waited for the slow call', 'the rest', 'the rest, share'],
    [...rows, all].map((r) => {
      const rest = r.ms - r.deadlineWaitMs - r.answerWaitMs;
      return [
        r.what,
        ms(r.ms),
        ms(r.deadlineWaitMs),
        ms(r.deadlinesMs),
        ms(r.answerWaitMs),
        ms(rest),
        r.ms > 0 ? `${round((100 * rest) / r.ms, 1)} %` : '–',
      ];
    }),
  );
}
