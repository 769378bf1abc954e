// Sections 1–4 summarised over the repetitions (medians), with their targets: concurrency, each cell
// against its floor, scaling, the orchestrator's memory and spawn behaviour.
import type { Options } from '../measure/args.js';
import { summarizeAllCells, summarizeCells, summarizeLifecycle } from './cells.js';
import type { Run } from '../measure/harness.js';
import type { Full, Target } from './rep.js';
import { CORES, median, pct, ratio, round } from '../measure/util.js';

const maxMb = (runs: Run[], k: 'ownMaxRssKb' | 'treeMaxRssKb'): number => round(Math.max(...runs.map((x) => x[k] ?? 0)) / 1024, 1);

export function summarize(reps: Full[], o: Pick<Options, 'scale'>, nCells: number, concurrency: number, withTime: boolean) {
  const s = figures(reps, o, nCells, concurrency, withTime);
  return { ...s, targets: targetsOf(s, o) };
}
export type Main = ReturnType<typeof summarize>;
type Figures = ReturnType<typeof figures>;

function figures(reps: Full[], o: Pick<Options, 'scale'>, nCells: number, concurrency: number, withTime: boolean) {
  const par = median(reps.map((r) => r.parallel.wallMs))!;
  const ser = median(reps.map((r) => r.serial.wallMs))!;
  const concurrencyRow = {
    default: concurrency,
    defaultWallMs: round(par),
    serialWallMs: round(ser),
    defaultCpuMs: round(median(reps.map((r) => r.parallel.cpuMs))),
    serialCpuMs: round(median(reps.map((r) => r.serial.cpuMs))),
    ratio: round(median(reps.map((r) => r.parallel.wallMs / r.serial.wallMs)), 3),
    speedupIdeal: round(1 / Math.min(concurrency, nCells), 3),
    floorSerialWallMs: round(median(reps.map((r) => r.floorSerialWallMs))),
    floorSerialCpuMs: round(median(reps.map((r) => r.floorSerialCpuMs))),
    floorParallelWallMs: round(median(reps.map((r) => r.floorParallelWallMs))),
    floorRatio: round(median(reps.map((r) => r.floorParallelWallMs / r.floorSerialWallMs)), 3),
  };
  const cells = summarizeCells(reps);
  const allCells = summarizeAllCells(reps);
  const lifecycle = summarizeLifecycle(reps);
  const scale = o.scale.map((n) => {
    const runs = reps.map((r) => r.scale[n]!);
    const wall = median(runs.map((x) => x.wallMs))!;
    return {
      cells: n,
      wallMs: round(wall),
      cpuMs: round(median(runs.map((x) => x.cpuMs))),
      perCellMs: round(wall / n),
      cellDurationMs: round(median(runs.flatMap((x) => x.cells.map((c) => c.durationMs)))),
      installMs: round(median(runs.flatMap((x) => x.cells.map((c) => c.installMs)))),
      ownMaxRssMb: maxMb(runs, 'ownMaxRssKb'),
      treeMaxRssMb: maxMb(runs, 'treeMaxRssKb'),
      failedCells: median(runs.map((x) => x.cells.filter((c) => c.verdict !== 'passed').length)),
    };
  });
  const all = reps.flatMap((r) => [r.parallel, r.serial, ...Object.values(r.scale)]);
  const memory = { ownMaxRssMb: maxMb(all, 'ownMaxRssKb'), treeMaxRssMb: withTime ? maxMb(all, 'treeMaxRssKb') : undefined };
  const orchestrator = orchestratorOf(reps, o);
  // Whole-matrix shares at concurrency 1
  const serialInstall = median(reps.map((r) => r.serial.cells.reduce((a, c) => a + (c.installMs ?? 0), 0)))!;
  const shares = {
    serialInstallShare: round(serialInstall / ser, 3),
    serialFloorShare: round(median(reps.map((r) => r.floors.reduce((a, f) => a + f.floorMs, 0) / r.serial.wallMs)), 3),
  };
  const loads = all.flatMap((x) => x.load1 ?? []);
  const load1 = { median: round(median(loads), 2), max: round(Math.max(...loads, 0), 2) };
  return { concurrency: concurrencyRow, cells, allCells, lifecycle, scale, memory, orchestrator, shares, load1, cores: CORES };
}

/** Orchestrator behaviour, from the spawn log of the default-concurrency runs. */
function orchestratorOf(reps: Full[], o: Pick<Options, 'scale'>) {
  const orch = reps.flatMap((r) => (r.parallel.orchestrator ? [r.parallel.orchestrator] : []));
  const orchSerial = reps.flatMap((r) => (r.serial.orchestrator ? [r.serial.orchestrator] : []));
  const at16 = reps[0]!.scale[16]?.orchestrator;
  return {
    spawnCounts: orch[0]?.counts,
    spawnCountsAt: Object.fromEntries(o.scale.map((n) => [n, reps[0]!.scale[n]?.orchestrator?.counts])),
    beforeFirstSpawnMs: round(median(orch.map((x) => x.beforeFirstSpawnMs))),
    packStartMs: round(median(orch.map((x) => x.packStartMs))),
    packMs: round(median(orch.map((x) => x.packMs))),
    packBeforeInstalls: orch.every((x) => x.packBeforeInstalls),
    firstInstallMs: round(median(orch.map((x) => x.firstInstallMs))),
    installsDuringOtherPhases: orch.map((x) => `${x.installsDuringOtherPhases}/${x.installs}`),
    averageBusyCells: round(median(orch.map((x) => x.averageBusyCells)), 2),
    averageBusyCellsAt16: at16 ? round(median(reps.map((r) => r.scale[16]?.orchestrator?.averageBusyCells)), 2) : undefined,
    installEndToDriverStartMs: round(median(orch.map((x) => x.installEndToDriverStartMs))),
    afterLastCellMs: round(median(orch.map((x) => x.afterLastCellMs))),
    serialRunBeforeFirstInstallMs: round(median(orchSerial.map((x) => x.firstInstallMs))),
  };
}

function targetsOf(s: Figures, o: Pick<Options, 'scale'>): Target[] {
  const worst = (k: 'overheadShare' | 'stdioRatio'): number => Math.max(...s.cells.map((c) => c[k] ?? Infinity));
  const first = s.scale.find((x) => x.cells === Math.min(...o.scale));
  const last = s.scale.find((x) => x.cells === Math.max(...o.scale));
  const flat = first && last && first !== last ? last.perCellMs / first.perCellMs : undefined;
  const le = (name: string, value: number | undefined, limit: number, shown: (x: number | undefined) => string): Target => ({
    name,
    value,
    limit,
    shown: shown(value),
    pass: value === undefined ? null : value <= limit,
  });
  return [
    le('default-concurrency matrix ≤ 0.6 × concurrency-1', s.concurrency.ratio, 0.6, ratio),
    le(
      'harness overhead ≤ 10% of cell time (all cells; conformance phase, lifecycle and http spec sub-checks aside)',
      s.allCells.overheadShare,
      0.1,
      pct,
    ),
    le('stdio phase (lifecycle sub-checks aside) ≤ 1.5 × minimal client (all cells)', s.allCells.stdioRatio, 1.5, ratio),
    le(
      'harness overhead ≤ 10% of a cell (worst cell; conformance phase, lifecycle and http spec sub-checks aside)',
      worst('overheadShare'),
      0.1,
      pct,
    ),
    le('stdio phase (lifecycle sub-checks aside) ≤ 1.5 × minimal client (worst cell)', worst('stdioRatio'), 1.5, ratio),
    {
      name: 'orchestrator peak RSS < 200 MB',
      value: s.memory.ownMaxRssMb,
      limit: 200,
      shown: `${s.memory.ownMaxRssMb} MB`,
      pass: s.memory.ownMaxRssMb < 200,
    },
    {
      name: `time per cell flat ${first?.cells}→${last?.cells} cells (≤ 1.10×)`,
      value: flat,
      limit: 1.1,
      shown: flat === undefined ? 'n/a' : ratio(flat),
      pass: flat === undefined ? null : flat <= 1.1,
    },
  ];
}
