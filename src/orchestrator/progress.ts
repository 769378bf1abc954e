// Progress: the run's units go through here, at most `concurrency` at once (slots.ts), each showing what it
// does and the mark its result earns. A TTY gets listr2's live tree; `simple`, CI and any non-TTY get one line
// per event. Marks: ✔ passed, ✖ failed (allowed failures too: they need reading), ⊘ not measured, ↓ skipped.
import { Listr, ListrDefaultRendererLogLevels, type ListrTask } from 'listr2';
import type { PlannedCell } from '../plan/plan.js';
import { PHASES, type CellOutcome, type CellResult, type PhaseName, type PhaseResult, type Verdict } from '../results/types.js';
import type { DriverHooks } from '../cells/driver-launch.js';
import { seconds } from '../reports/view/format.js';
import { pool } from './slots.js';

/** What progress shows: one variant (without axes, its cell): its id, the cell's version and role. */
export type ProgressUnit = Pick<PlannedCell, 'id' | 'version' | 'role'> & { cell?: Pick<PlannedCell, 'install'> };

type CellRunner<U extends ProgressUnit> = (unit: U, hooks: DriverHooks) => Promise<CellResult>;

export type ProgressMode = 'default' | 'simple' | 'silent';

/** An install as a progress line shows it. */
export interface InstallProgress {
  ok: boolean;
  durationMs: number;
  attempts: number;
  /** How many variants share this install (shown when more than one). */
  sharedBy?: number;
}

const VERDICT_MARK: Record<Verdict, string> = { passed: '✔', failed: '✖', 'not-measured': '⊘', skipped: '↓' };

const OUTCOME_MARK: Record<CellOutcome, string> = {
  passed: '✔',
  failed: '✖',
  'allowed-failure': '✖',
  'stale-allowance': '✖',
  'not-measured': '⊘',
};

const OUTCOME_TEXT: Record<CellOutcome, string> = {
  passed: 'passed',
  failed: 'FAILED',
  'allowed-failure': 'failed (allowed to fail)',
  'stale-allowance': 'stale allowance: passed but marked allowedToFail',
  'not-measured': 'not measured',
};

export function cellTitle(cell: Pick<PlannedCell, 'id' | 'version' | 'role'>): string {
  return `${cell.id}  ${cell.version}${cell.role ? ` (${cell.role})` : ''}`;
}

/** The install a cell runs, by the tool that runs it: a strict leg is pnpm's or Yarn's, not npm's. */
export function installStep(install: PlannedCell['install']): string {
  if (install === 'pnpm-strict') return 'pnpm install (strict)';
  if (install === 'yarn-pnp') return 'yarn install (PnP)';
  return 'npm install';
}

/** `✔ npm install (6.5 s)` / `✖ npm install (2 attempts, 30.0 s)`. */
export function installLine(outcome: InstallProgress, step = 'npm install'): string {
  const tries = outcome.attempts > 1 ? `${outcome.attempts} attempts, ` : '';
  const shared = outcome.sharedBy && outcome.sharedBy > 1 ? `, shared by ${outcome.sharedBy} variants` : '';
  return `${outcome.ok ? '✔' : '✖'} ${step} (${tries}${seconds(outcome.durationMs)}${shared})`;
}

/** One phase's line: its mark, its name, its time or its reason. */
export function phaseLine(r: PhaseResult): string {
  const mark = VERDICT_MARK[r.verdict];
  // A result another variant measured (bind, shared within a cell and Node release) names that variant.
  const by = typeof r.details?.measuredBy === 'string' ? r.details.measuredBy : undefined;
  switch (r.verdict) {
    case 'passed':
      return by ? `${mark} ${r.phase} (as measured by ${by})` : `${mark} ${r.phase} (${r.durationMs} ms)`;
    case 'skipped':
      return `${mark} ${r.phase}: skipped (${r.message ?? 'disabled'})`;
    case 'not-measured':
      return `${mark} ${r.phase}: not measured: ${r.message ?? ''}`;
    case 'failed':
      return `${mark} ${r.phase}: ${r.message ?? 'failed'}${by ? ` (as measured by ${by})` : ''}`;
  }
}

/** The cell's closing line: its mark from its outcome, and which phases did not pass. */
export function cellLine(result: CellResult): string {
  const problems = result.phases.filter((p) => p.verdict === 'failed' || p.verdict === 'not-measured');
  const which = problems.length ? ` (${problems.map((p) => `${p.phase} ${p.verdict}`).join(', ')})` : '';
  return `${OUTCOME_MARK[result.outcome]} ${result.id}: ${OUTCOME_TEXT[result.outcome]}${which} in ${seconds(result.durationMs)}`;
}

/** Lines for a log (simple/CI): every line names its cell when more than one cell runs at once. */
export function lineProgress(write: (line: string) => void, concurrent: boolean) {
  return (cell: ProgressUnit) => {
    const prefix = concurrent ? `[${cell.id}] ` : '  ';
    const step = installStep(cell.cell?.install);
    const hooks: DriverHooks = {
      onInstallStart: () => write(`${prefix}… ${step}`),
      onInstallEnd: (o) => write(`${prefix}${installLine(o, step)}`),
      onPhaseResult: (r) => write(`${prefix}${phaseLine(r)}`),
    };
    return {
      start: () => write(`${concurrent ? prefix : ''}▶ ${cellTitle(cell)}`),
      hooks,
      end: (result: CellResult) => write(`${concurrent ? prefix : ''}${cellLine(result)}`),
    };
  };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(r: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (r: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Run every cell with at most `concurrency` at once; keeps going after failures. */
export async function runWithProgress<U extends ProgressUnit>(
  cells: U[],
  concurrency: number,
  mode: ProgressMode,
  runOne: CellRunner<U>,
  write: (line: string) => void = () => undefined,
): Promise<CellResult[]> {
  const lines = mode === 'simple' || (mode === 'default' && (!process.stdout.isTTY || Boolean(process.env.CI)));
  const run = mode === 'silent' ? runQuiet : lines ? runLines : runTree;
  return run(cells, Math.max(1, concurrency), runOne, write);
}

async function runQuiet<U extends ProgressUnit>(cells: U[], concurrency: number, runOne: CellRunner<U>): Promise<CellResult[]> {
  return pool(cells, concurrency, (cell) => runOne(cell, {}));
}

async function runLines<U extends ProgressUnit>(
  cells: U[],
  concurrency: number,
  runOne: CellRunner<U>,
  write: (line: string) => void,
): Promise<CellResult[]> {
  const display = lineProgress(write, concurrency > 1 && cells.length > 1);
  return pool(cells, concurrency, async (cell) => {
    const shown = display(cell);
    shown.start();
    const result = await runOne(cell, shown.hooks);
    shown.end(result);
    return result;
  });
}

async function runTree<U extends ProgressUnit>(cells: U[], concurrency: number, runOne: CellRunner<U>): Promise<CellResult[]> {
  const results = new Map<string, CellResult>();
  // Every line carries its own mark (the same text as the simple renderer's), so listr2's own icon for a finished
  // task is blanked: a failed phase or cell is never shown with listr2's ⚠ or ↓ beside or instead of ours.
  // The phases are returned as the cell's subtasks, so the one root renderer draws the whole tree in place.
  const tasks: ListrTask[] = cells.map((cell) => ({
    title: cellTitle(cell),
    task: (_ctx, task) => {
      const phases = new Map<PhaseName, Deferred<PhaseResult>>(PHASES.map((p) => [p, deferred<PhaseResult>()]));
      const install = deferred<InstallProgress | undefined>();
      const finished = runOne(cell, {
        onInstallEnd: (o) => install.resolve(o),
        onPhaseResult: (r) => phases.get(r.phase)?.resolve(r),
      }).then((result) => {
        results.set(cell.id, result);
        install.resolve(undefined);
        for (const p of result.phases) phases.get(p.phase)?.resolve(p);
        return result;
      });
      // A runner that rejects settles every line (as failed) instead of leaving it waiting.
      const settled = <T>(p: Promise<T>): Promise<T> => Promise.race([p, finished.then(() => p)]);
      return task.newListr(
        [
          {
            title: installStep(cell.cell?.install),
            task: async (_c, t) => {
              const o = await settled(install.promise);
              const step = installStep(cell.cell?.install);
              t.title = o ? installLine(o, step) : `↓ ${step}: not run`;
            },
          },
          ...PHASES.map<ListrTask>((phase) => ({
            title: phase,
            task: async (_c, t) => {
              t.title = phaseLine(await settled(phases.get(phase)!.promise));
            },
          })),
          {
            // Untitled: draws nothing; gives the cell its closing line once the result is known.
            task: async () => {
              task.title = cellLine(await finished);
            },
          },
        ],
        { concurrent: false, exitOnError: false },
      );
    },
  }));
  const list = new Listr(tasks, {
    concurrent: concurrency,
    exitOnError: false,
    collectErrors: 'minimal',
    registerSignalListeners: false,
    renderer: 'default',
    rendererOptions: { collapseSubtasks: false, icon: { [ListrDefaultRendererLogLevels.COMPLETED]: '' } },
  });
  await list.run().catch(() => undefined);
  return cells.map((c) => results.get(c.id)).filter((r): r is CellResult => r !== undefined);
}
