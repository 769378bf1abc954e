// Section 2: each cell of the concurrency-1 run against its floor (bare npm install + minimal client),
// phase by phase. The conformance phase, the lifecycle sub-checks of stdio and http, and http's spec sub-checks
// (Origin, Host, protocol version, session ids: ~12 raw requests) have no counterpart in the floor (checks the
// minimal client does not make): they are shown on their own (lifecycle.ts; the spec sub-checks' time as the
// driver recorded it) and left out of the overhead and of the stdio and http ratios, which compare like with
// like; the overhead with them counted is printed beside it. The cell's time outside its phases is split by the
// harness's own marks (src/util/marks.ts, read from the spawn probe's log).
import type { Floor } from '../measure/floor.js';
import type { CellRow } from '../measure/harness.js';
import type { Full } from './rep.js';
import { lifecycleMsOf, lifecycleRows, type LifecycleRow } from '../measure/lifecycle.js';
import type { CellTimeline } from '../measure/spawns.js';
import { median, round } from '../measure/util.js';

/** http's spec sub-checks' wall time as the driver recorded it (0 in results from before it did). */
export const specChecksMsOf = (c: CellRow): number => c.phases.http?.specChecksMs ?? 0;

/**
 * A cell's steps outside its driver, from the harness's marks: its directory made, install reuse's resolution,
 * the copy of the cached tree and its hash check (beside the resolution when a hint named the tree), what the
 * cell waited for them after the resolution, npm's install, storing a tree, the environment's static check
 * with the driver's ship (shipped while npm installs), the wait for the conformance suite, the spec written and
 * the fork, the judging after the driver, the lockfile re-check, and the directory's removal (off the cell's
 * path: the next cell does not wait for it). Undefined where a step did not happen.
 */
export function cellSteps(tl: CellTimeline | undefined) {
  const m = tl?.marks;
  if (!m) return undefined;
  const d = (a: number | undefined, b: number | undefined): number | undefined => (a !== undefined && b !== undefined ? b - a : undefined);
  return {
    dirMs: d(m['dir-start'], m['dir-end']),
    resolveMs: d(m['dir-end'], m['resolve-end']),
    // Started while npm resolves when a hint named the tree (prefetch-start), else once npm's resolution named it.
    copyMs: d(m['prefetch-start'] ?? m.found, m.copied),
    checkMs: d(m.copied, m['tree-checked'] ?? m.checked),
    // What the cell still waited for after npm's resolution: the copy, its check and its move into place.
    copyWaitMs: d(m['resolve-end'], m.checked),
    npmMs: d(m.checked ?? m['resolve-end'] ?? m['dir-end'], m['store-start'] ?? m['install-end']),
    storeMs: d(m['store-start'], m['store-end']),
    verifyShipMs: d(m['install-end'], m['ship-end']),
    suiteWaitMs: d(m['deps-end'], m['suite-end']),
    toForkMs: d(m['suite-end'] ?? m['deps-end'], tl?.driverStart),
    afterDriverMs: d(tl?.driverEnd, m.judged),
    recheckMs: d(m['last-variant-end'], m.rechecked),
    removalMs: d(m.rechecked, m.removed),
  };
}
type Steps = NonNullable<ReturnType<typeof cellSteps>>;
const STEP_KEYS: (keyof Steps)[] = [
  'dirMs',
  'resolveMs',
  'copyMs',
  'checkMs',
  'copyWaitMs',
  'npmMs',
  'storeMs',
  'verifyShipMs',
  'suiteWaitMs',
  'toForkMs',
  'afterDriverMs',
  'recheckMs',
  'removalMs',
];

const PHASES = ['environment', 'stdio', 'http', 'bind', 'conformance', 'leaks'] as const;

function perCell(r: Full, id: string) {
  const c = r.serial.cells.find((x) => x.id === id)!;
  const f = r.floors.find((x) => x.id === id)!;
  const ph = (p: string): number => c.phases[p]?.durationMs ?? 0;
  const phaseSum = PHASES.reduce((a, p) => a + ph(p), 0);
  const tl = r.serial.orchestrator?.perCell?.[id];
  const driverPhases = ['stdio', 'http', 'bind', 'conformance', 'leaks'].reduce((a, p) => a + ph(p), 0);
  const driverLife = tl?.driverEnd !== undefined && tl.driverStart !== undefined ? tl.driverEnd - tl.driverStart : undefined;
  // The phases as the floor sees them: without the checks it does not make.
  const lcStdio = lifecycleMsOf(c, 'stdio');
  const lcHttp = lifecycleMsOf(c, 'http');
  const spec = specChecksMsOf(c);
  const stdioOwn = ph('stdio') - lcStdio;
  const httpOwn = ph('http') - lcHttp - spec;
  const cellMs = c.durationMs - ph('conformance') - lcStdio - lcHttp - spec;
  return {
    driverLifeMs: driverLife,
    driverOutsidePhasesMs: driverLife === undefined ? undefined : driverLife - driverPhases,
    installToDriverMs: tl?.driverStart !== undefined ? tl.driverStart - tl.installEnd : undefined,
    steps: cellSteps(tl),
    notPassed: Object.entries(c.phases)
      .filter(([, v]) => v.verdict !== 'passed' && v.verdict !== 'skipped')
      .map(([k]) => k),
    cellMs,
    floorMs: f.floorMs,
    installMs: c.installMs,
    floorInstallMs: f.installMs,
    conformanceMs: ph('conformance'),
    // Undefined: results from before the driver timed them (stdio and http then include them).
    lifecycleMs: c.phases.stdio?.lifecycle || c.phases.http?.lifecycle ? lcStdio + lcHttp : undefined,
    specChecksMs: c.phases.http?.specChecksMs,
    overhead: {
      install: (c.installMs ?? 0) - f.installMs,
      verify: ph('environment'),
      stdio: stdioOwn - f.stdioMs,
      http: httpOwn - f.httpMs,
      bind: ph('bind') - f.bindMs,
      leaks: ph('leaks') - (f.stdioExitMs + f.httpExitMs),
      other: c.durationMs - (c.installMs ?? 0) - phaseSum,
    },
    stdioMs: stdioOwn,
    minStdioMs: f.stdioMs,
    minStdioExitMs: f.stdioExitMs,
    httpMs: httpOwn,
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
    // Shown, not judged: the same with the spec sub-checks counted as overhead (how the bench read before them).
    overheadShareWithSpecChecks: (cellMs + spec - f.floorMs) / (cellMs + spec),
    stdioRatio: stdioOwn / f.stdioMs,
    // The phase waits for the server's exit after EOF; the minimal client counts that as its exit time.
    stdioWithExitRatio: stdioOwn / (f.stdioMs + f.stdioExitMs),
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
      ...[
        'cellMs',
        'floorMs',
        'installMs',
        'floorInstallMs',
        'conformanceMs',
        'lifecycleMs',
        'specChecksMs',
        'stdioMs',
        'minStdioMs',
        'minStdioExitMs',
        'httpMs',
      ],
      ...['minHttpMs', 'minHttpExitMs', 'minHttpReadyMs', 'bindMs', 'minBindMs', 'leaksMs', 'minExitMs', 'floorRmMs', 'driverLifeMs'],
      ...['driverOutsidePhasesMs', 'installToDriverMs'],
    ] as NumKey[];
    const figures = Object.fromEntries(keys.map((k) => [k, m(k)])) as Record<NumKey, number | undefined>;
    return {
      ...figures,
      id,
      version: reps[0]!.serial.cells.find((c) => c.id === id)!.version,
      ratio: m('ratio', 3),
      overheadShare: m('overheadShare', 3),
      overheadShareWithSpecChecks: m('overheadShareWithSpecChecks', 3),
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
      steps: per.some((p) => p.steps)
        ? (Object.fromEntries(STEP_KEYS.map((k) => [k, round(median(per.map((p) => p.steps?.[k])))])) as Record<
            keyof Steps,
            number | undefined
          >)
        : undefined,
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
    cellMs: sumOf(r, (c) => c.durationMs - conf(c) - lifecycleMsOf(c) - specChecksMsOf(c)),
    specChecksMs: sumOf(r, (c) => specChecksMsOf(c)),
    floorMs: sumOf(r, (_c, f) => f.floorMs),
    lifecycleMs: sumOf(r, (c) => lifecycleMsOf(c)),
    stdioLifecycleMs: sumOf(r, (c) => lifecycleMsOf(c, 'stdio')),
    stdioMs: sumOf(r, (c) => (c.phases.stdio?.durationMs ?? 0) - lifecycleMsOf(c, 'stdio')),
    minStdioMs: sumOf(r, (_c, f) => f.stdioMs),
    minStdioExitMs: sumOf(r, (_c, f) => f.stdioExitMs),
    httpMs: sumOf(r, (c) => (c.phases.http?.durationMs ?? 0) - lifecycleMsOf(c, 'http') - specChecksMsOf(c)),
    minHttpMs: sumOf(r, (_c, f) => f.httpMs),
    conformanceMs: sumOf(r, conf),
  }));
  const m = (f: (a: (typeof agg)[number]) => number, d = 0): number | undefined => round(median(agg.map(f)), d);
  return {
    cellMs: m((a) => a.cellMs),
    floorMs: m((a) => a.floorMs),
    conformanceMs: m((a) => a.conformanceMs),
    lifecycleMs: reps.some((r) => r.serial.cells.some((c) => c.phases.stdio?.lifecycle || c.phases.http?.lifecycle))
      ? m((a) => a.lifecycleMs)
      : undefined,
    ratio: m((a) => a.cellMs / a.floorMs, 3),
    overheadShare: m((a) => (a.cellMs - a.floorMs) / a.cellMs, 3),
    // Shown, not judged: the same with the lifecycle sub-checks counted as overhead (how the bench read before them).
    overheadShareWithLifecycle: m((a) => (a.cellMs + a.lifecycleMs - a.floorMs) / (a.cellMs + a.lifecycleMs), 3),
    // Shown, not judged: http's spec sub-checks (requests the minimal client does not make), as the driver timed them.
    specChecksMs: reps.some((r) => r.serial.cells.some((c) => c.phases.http?.specChecksMs !== undefined))
      ? m((a) => a.specChecksMs)
      : undefined,
    overheadShareWithSpecChecks: m((a) => (a.cellMs + a.specChecksMs - a.floorMs) / (a.cellMs + a.specChecksMs), 3),
    overheadShareWithBoth: m(
      (a) => (a.cellMs + a.specChecksMs + a.lifecycleMs - a.floorMs) / (a.cellMs + a.specChecksMs + a.lifecycleMs),
      3,
    ),
    httpWithSpecChecksRatio: m((a) => (a.httpMs + a.specChecksMs) / a.minHttpMs, 3),
    stdioWithLifecycleRatio: m((a) => (a.stdioMs + a.stdioLifecycleMs) / a.minStdioMs, 3),
    stdioMs: m((a) => a.stdioMs),
    minStdioMs: m((a) => a.minStdioMs),
    stdioRatio: m((a) => a.stdioMs / a.minStdioMs, 3),
    stdioWithExitRatio: m((a) => a.stdioMs / (a.minStdioMs + a.minStdioExitMs), 3),
    httpMs: m((a) => a.httpMs),
    minHttpMs: m((a) => a.minHttpMs),
    httpRatio: m((a) => a.httpMs / a.minHttpMs, 3),
  };
}

/** The lifecycle sub-checks per phase and check (lifecycle.ts), each figure the median over the repetitions. */
export function summarizeLifecycle(reps: Full[]): LifecycleRow[] {
  const per = reps.map((r) => lifecycleRows(r.serial.cells));
  const m = (what: string, k: Exclude<keyof LifecycleRow, 'what'>): number =>
    median(per.map((rows) => rows.find((x) => x.what === what)?.[k])) ?? 0;
  return per[0]!.map(({ what }) => ({
    what,
    ms: m(what, 'ms'),
    deadlineWaitMs: m(what, 'deadlineWaitMs'),
    deadlinesMs: m(what, 'deadlinesMs'),
    answerWaitMs: m(what, 'answerWaitMs'),
  }));
}
