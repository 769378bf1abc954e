// Section 2: each cell of the concurrency-1 run against its floor (bare npm install + minimal client),
// phase by phase. The conformance phase has no counterpart in the floor (the official suite is a check
// the floor does not make): it is shown on its own and left out of the overhead, which compares like with like.
import type { Floor } from './floor.js';
import type { CellRow } from './harness.js';
import type { Full } from './rep.js';
import { median, round } from './util.js';

const PHASES = ['environment', 'stdio', 'http', 'bind', 'conformance', 'leaks'] as const;

function perCell(r: Full, id: string) {
  const c = r.serial.cells.find((x) => x.id === id)!;
  const f = r.floors.find((x) => x.id === id)!;
  const ph = (p: string): number => c.phases[p]?.durationMs ?? 0;
  const phaseSum = PHASES.reduce((a, p) => a + ph(p), 0);
  const tl = r.serial.orchestrator?.perCell?.[id];
  const driverPhases = ['stdio', 'http', 'bind', 'conformance', 'leaks'].reduce((a, p) => a + ph(p), 0);
  const driverLife = tl?.driverEnd !== undefined && tl.driverStart !== undefined ? tl.driverEnd - tl.driverStart : undefined;
  // The cell as the floor sees it: without the conformance phase the floor does not run.
  const cellMs = c.durationMs - ph('conformance');
  return {
    driverLifeMs: driverLife,
    driverOutsidePhasesMs: driverLife === undefined ? undefined : driverLife - driverPhases,
    installToDriverMs: tl?.driverStart !== undefined ? tl.driverStart - tl.installEnd : undefined,
    outsideSpawnsMs: tl?.driverEnd !== undefined ? c.durationMs - (tl.driverEnd - tl.installStart) : undefined,
    notPassed: Object.entries(c.phases)
      .filter(([, v]) => v.verdict !== 'passed' && v.verdict !== 'skipped')
      .map(([k]) => k),
    cellMs,
    floorMs: f.floorMs,
    installMs: c.installMs,
    floorInstallMs: f.installMs,
    conformanceMs: ph('conformance'),
    overhead: {
      install: (c.installMs ?? 0) - f.installMs,
      verify: ph('environment'),
      stdio: ph('stdio') - f.stdioMs,
      http: ph('http') - f.httpMs,
      bind: ph('bind') - f.bindMs,
      leaks: ph('leaks') - (f.stdioExitMs + f.httpExitMs),
      other: c.durationMs - (c.installMs ?? 0) - phaseSum,
    },
    stdioMs: ph('stdio'),
    minStdioMs: f.stdioMs,
    minStdioExitMs: f.stdioExitMs,
    httpMs: ph('http'),
    minHttpMs: f.httpMs,
    minHttpExitMs: f.httpExitMs,
    minHttpReadyMs: f.httpReadyMs,
    bindMs: ph('bind'),
    minBindMs: f.bindMs,
    leaksMs: ph('leaks'),
    minExitMs: f.stdioExitMs + f.httpExitMs,
    floorRmMs: f.rmMs,
    ratio: cellMs / f.floorMs,
    overheadShare: (cellMs - f.floorMs) / cellMs,
    stdioRatio: ph('stdio') / f.stdioMs,
    // The phase waits for the server's exit after EOF; the minimal client counts that as its exit time.
    stdioWithExitRatio: ph('stdio') / (f.stdioMs + f.stdioExitMs),
    installShare: (c.installMs ?? 0) / c.durationMs,
  };
}
type PerCell = ReturnType<typeof perCell>;
type NumKey = { [K in keyof PerCell]: PerCell[K] extends number | undefined ? K : never }[keyof PerCell];

export function summarizeCells(reps: Full[]) {
  const ids = reps[0]!.serial.cells.map((c) => c.id);
  return ids.map((id) => {
    const per = reps.map((r) => perCell(r, id));
    const m = (k: NumKey, d = 0): number | undefined => round(median(per.map((p) => p[k])), d);
    const mo = (k: keyof PerCell['overhead']): number | undefined => round(median(per.map((p) => p.overhead[k])));
    const keys = [
      ...['cellMs', 'floorMs', 'installMs', 'floorInstallMs', 'conformanceMs', 'stdioMs', 'minStdioMs', 'minStdioExitMs', 'httpMs'],
      ...['minHttpMs', 'minHttpExitMs', 'minHttpReadyMs', 'bindMs', 'minBindMs', 'leaksMs', 'minExitMs', 'floorRmMs', 'driverLifeMs'],
      ...['driverOutsidePhasesMs', 'installToDriverMs', 'outsideSpawnsMs'],
    ] as NumKey[];
    const figures = Object.fromEntries(keys.map((k) => [k, m(k)])) as Record<NumKey, number | undefined>;
    return {
      ...figures,
      id,
      version: reps[0]!.serial.cells.find((c) => c.id === id)!.version,
      ratio: m('ratio', 3),
      overheadShare: m('overheadShare', 3),
      installShare: m('installShare', 3),
      stdioRatio: m('stdioRatio', 3),
      stdioWithExitRatio: m('stdioWithExitRatio', 3),
      overheadMs: {
        install: mo('install'),
        verify: mo('verify'),
        stdio: mo('stdio'),
        http: mo('http'),
        bind: mo('bind'),
        leaks: mo('leaks'),
        other: mo('other'),
      },
      notPassed: [...new Set(per.flatMap((p) => p.notPassed))],
    };
  });
}

export type CellSummary = ReturnType<typeof summarizeCells>[number];

/** All cells together (per repetition, then the median): steadier than any one cell on a busy machine. */
export function summarizeAllCells(reps: Full[]) {
  const sumOf = (r: Full, f: (c: CellRow, fl: Floor) => number): number =>
    r.serial.cells.reduce(
      (a, c) =>
        a +
        f(
          c,
          r.floors.find((x) => x.id === c.id)!,
        ),
      0,
    );
  const conf = (c: CellRow): number => c.phases.conformance?.durationMs ?? 0;
  const agg = reps.map((r) => ({
    cellMs: sumOf(r, (c) => c.durationMs - conf(c)),
    floorMs: sumOf(r, (_c, f) => f.floorMs),
    stdioMs: sumOf(r, (c) => c.phases.stdio?.durationMs ?? 0),
    minStdioMs: sumOf(r, (_c, f) => f.stdioMs),
    minStdioExitMs: sumOf(r, (_c, f) => f.stdioExitMs),
    httpMs: sumOf(r, (c) => c.phases.http?.durationMs ?? 0),
    minHttpMs: sumOf(r, (_c, f) => f.httpMs),
    conformanceMs: sumOf(r, conf),
  }));
  const m = (f: (a: (typeof agg)[number]) => number, d = 0): number | undefined => round(median(agg.map(f)), d);
  return {
    cellMs: m((a) => a.cellMs),
    floorMs: m((a) => a.floorMs),
    conformanceMs: m((a) => a.conformanceMs),
    ratio: m((a) => a.cellMs / a.floorMs, 3),
    overheadShare: m((a) => (a.cellMs - a.floorMs) / a.cellMs, 3),
    stdioMs: m((a) => a.stdioMs),
    minStdioMs: m((a) => a.minStdioMs),
    stdioRatio: m((a) => a.stdioMs / a.minStdioMs, 3),
    stdioWithExitRatio: m((a) => a.stdioMs / (a.minStdioMs + a.minStdioExitMs), 3),
    httpMs: m((a) => a.httpMs),
    minHttpMs: m((a) => a.minHttpMs),
    httpRatio: m((a) => a.httpMs / a.minHttpMs, 3),
  };
}
