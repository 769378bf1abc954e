// Progress display (listr2): a task per cell, its phases as subtasks. Display only; results come from runCell.
import { Listr, type ListrTask } from 'listr2';
import type { PlannedCell } from '../plan/plan.js';
import { PHASES, type CellResult, type PhaseName, type PhaseResult } from '../results/types.js';
import type { DriverHooks } from '../cells/driver-launch.js';

type CellRunner = (cell: PlannedCell, hooks: DriverHooks) => Promise<CellResult>;

interface Deferred {
  promise: Promise<PhaseResult>;
  resolve(r: PhaseResult): void;
}

function deferred(): Deferred {
  let resolve!: (r: PhaseResult) => void;
  const promise = new Promise<PhaseResult>((r) => (resolve = r));
  return { promise, resolve };
}

export type ProgressMode = 'default' | 'simple' | 'silent';

/** Run every cell with at most `concurrency` at once; keeps going after failures. */
export async function runWithProgress(
  cells: PlannedCell[],
  concurrency: number,
  mode: ProgressMode,
  runOne: CellRunner,
): Promise<CellResult[]> {
  const results = new Map<string, CellResult>();
  const tasks: ListrTask[] = cells.map((cell) => ({
    title: `${cell.id}  ${cell.version}${cell.role ? ` (${cell.role})` : ''}`,
    task: (_ctx, task) => {
      const phases = new Map<PhaseName, Deferred>(PHASES.map((p) => [p, deferred()]));
      const finished = runOne(cell, { onPhaseResult: (r) => phases.get(r.phase)?.resolve(r) }).then((result) => {
        results.set(cell.id, result);
        for (const p of result.phases) phases.get(p.phase)?.resolve(p);
        return result;
      });
      return task.newListr(
        [
          ...PHASES.map<ListrTask>((phase) => ({
            title: phase,
            task: async (_c, sub) => {
              const r = await phases.get(phase)!.promise;
              if (r.verdict === 'skipped') sub.skip(`${phase}: skipped (${r.message ?? 'disabled'})`);
              else if (r.verdict === 'not-measured') sub.skip(`${phase}: not measured: ${r.message ?? ''}`);
              else if (r.verdict === 'failed') throw new Error(`${phase}: ${r.message ?? 'failed'}`);
              else sub.title = `${phase} (${r.durationMs} ms)`;
            },
          })),
          { title: 'done', task: async () => void (await finished) },
        ],
        { concurrent: false, exitOnError: false },
      );
    },
  }));
  const list = new Listr(tasks, {
    concurrent: Math.max(1, concurrency),
    exitOnError: false,
    collectErrors: 'minimal',
    registerSignalListeners: false,
    renderer: mode === 'silent' ? 'silent' : mode === 'simple' ? 'simple' : 'default',
    fallbackRenderer: 'simple',
    // 'silent' must stay silent: the fallback applies to 'simple' and to 'default' off a TTY.
    fallbackRendererCondition: () => mode === 'simple' || (mode === 'default' && (!process.stdout.isTTY || Boolean(process.env.CI))),
    rendererOptions: { collapseSubtasks: false },
  });
  await list.run().catch(() => undefined);
  return cells.map((c) => results.get(c.id)).filter((r): r is CellResult => r !== undefined);
}
