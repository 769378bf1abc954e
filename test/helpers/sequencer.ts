// The order test files start in, so that the suite's wall time is close to its CPU floor. Unit and e2e files
// run in one pool (vitest.config.ts): an e2e file mostly keeps the cores busy (pack, npm, servers), a unit file
// mostly waits on timers and real processes. Started unit files first and e2e files after, the unit files' waits
// left both cores idle for minutes. So the files are dealt out as a pool with these workers would take them,
// by each file's wall time measured in a whole-suite run (test/helpers/file-walls.json): the longest first (a
// long file started last is the run's tail), and at any time UNIT_LANES of the workers on unit files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Workers on unit files at any time; the others run e2e files. */
export const UNIT_LANES = 1;

/** A file missing from file-walls.json (new since it was measured): an e2e file starts early, a unit file late. */
const UNKNOWN_S = { e2e: 120, unit: 5 };

/** Wall seconds per file (its path from the repository root), from a run with MM_TEST_TIMINGS. */
export function fileWalls(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path.join(root, 'test/helpers/file-walls.json'), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export interface Timed<T> {
  item: T;
  unit: boolean;
  seconds: number;
}

/**
 * The order a pool of `workers` takes files in: each file goes to the worker free first; that worker takes an e2e
 * file while fewer than `workers - unitLanes` run, else a unit file (the other kind when one kind is used up).
 */
export function dealOut<T>(files: Timed<T>[], workers: number, unitLanes = UNIT_LANES): T[] {
  const longestFirst = (a: Timed<T>, b: Timed<T>): number => b.seconds - a.seconds;
  const units = files.filter((f) => f.unit).sort(longestFirst);
  const e2e = files.filter((f) => !f.unit).sort(longestFirst);
  const running: { ends: number; unit: boolean }[] = [];
  const order: T[] = [];
  let now = 0;
  while (units.length || e2e.length) {
    if (running.length >= workers) {
      running.sort((a, b) => a.ends - b.ends);
      now = running.shift()!.ends;
    }
    const e2eRunning = running.filter((r) => !r.unit).length;
    const next = (e2eRunning < workers - unitLanes && e2e.length) || !units.length ? e2e.shift()! : units.shift()!;
    running.push({ ends: now + next.seconds, unit: next.unit });
    order.push(next.item);
  }
  return order;
}

export default class WallSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const walls = fileWalls(root);
    const workers = Math.max(...files.map((f) => f.project.config.maxWorkers || 1));
    const timed = files.map((spec): Timed<TestSpecification> => {
      const unit = spec.project.name.startsWith('unit');
      const seconds = walls[path.relative(root, spec.moduleId)] ?? (unit ? UNKNOWN_S.unit : UNKNOWN_S.e2e);
      return { item: spec, unit, seconds };
    });
    return dealOut(timed, workers);
  }
}
