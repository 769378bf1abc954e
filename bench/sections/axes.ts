// Section 5 (issue 12, issue 22 item 4): the project's cells crossed with 2 clients × 2 Node releases
// (16 variants) against the same cells alone, back to back in each repetition: the wall ratio and the
// CPU ratio, installs per kind, time per variant, the orchestrator's peak RSS.
import type { Options } from '../measure/args.js';
import type { Installs } from '../measure/spawns.js';
import type { Run } from '../measure/harness.js';
import type { Rep, Target } from './rep.js';
import { median, ratio, round } from '../measure/util.js';

type Pair = Rep & { axes: Run; axesAlone: Run };
const maxMb = (xs: (number | undefined)[]): number => round(Math.max(...xs.map((x) => x ?? 0)) / 1024, 1);

type AxesOptions = Pick<Options, 'axesClients' | 'axesNode'>;

export function summarizeAxes(reps: Rep[], o: AxesOptions, nCells: number, warmup: Run | undefined, withTime: boolean) {
  const ax = axesFigures(reps, o, nCells, warmup, withTime);
  return { ...ax, targets: axesTargets(ax, o.axesClients.length, o.axesNode.length) };
}
export type Axes = ReturnType<typeof summarizeAxes>;
type AxesFigures = ReturnType<typeof axesFigures>;

function axesFigures(reps: Rep[], o: AxesOptions, nCells: number, warmup: Run | undefined, withTime: boolean) {
  const pairs = reps.filter((r): r is Pair => Boolean(r.axes && r.axesAlone));
  const aloneMs = median(pairs.map((r) => r.axesAlone.wallMs))!;
  const axesMs = median(pairs.map((r) => r.axes.wallMs))!;
  const variants = pairs[0]!.axes.variants;
  const rows = pairs.flatMap((r) => r.axes.cells);
  // Median variant time by client and by Node release: where a variant's time goes.
  const by = (key: 'client' | 'node'): Record<string, number | undefined> =>
    Object.fromEntries(
      [...new Set(rows.map((c) => c[key] ?? 'own'))].map((k) => [
        k,
        round(median(rows.filter((c) => (c[key] ?? 'own') === k).map((c) => c.durationMs))),
      ]),
    );
  const phaseMedian = (phase: string): number | undefined => round(median(rows.map((c) => c.phases[phase]?.durationMs)));
  const installs = pairs.flatMap((r) => (r.axes.installs ? [r.axes.installs] : []));
  const last = installs.at(-1);
  const same = (k: 'server' | 'client' | 'runtime'): boolean => installs.every((x) => x[k] === last?.[k]);
  const loads = pairs.flatMap((r) => [...r.axes.load1, ...r.axesAlone.load1]);
  const ax = {
    clients: o.axesClients,
    node: o.axesNode,
    cells: nCells,
    variants,
    rowsPerRun: pairs[0]!.axes.cells.length,
    aloneWallMs: round(aloneMs),
    axesWallMs: round(axesMs),
    aloneCpuMs: round(median(pairs.map((r) => r.axesAlone.cpuMs))),
    axesCpuMs: round(median(pairs.map((r) => r.axes.cpuMs))),
    ratio: round(median(pairs.map((r) => r.axes.wallMs / r.axesAlone.wallMs)), 3),
    cpuRatio: round(median(pairs.map((r) => (r.axes.cpuMs ?? NaN) / (r.axesAlone.cpuMs ?? NaN))), 3),
    perVariantMs: round(axesMs / variants),
    perCellAloneMs: round(aloneMs / nCells),
    variantMedianMs: round(median(rows.map((c) => c.durationMs))),
    cellAloneMedianMs: round(median(pairs.flatMap((r) => r.axesAlone.cells.map((c) => c.durationMs)))),
    byClient: by('client'),
    byNode: by('node'),
    phases: Object.fromEntries(['environment', 'stdio', 'http', 'bind', 'conformance', 'leaks'].map((p) => [p, phaseMedian(p)])),
    installs: last && { ...last, steady: (['server', 'client', 'runtime'] as const).every(same) },
    aloneInstalls: pairs.at(-1)!.axesAlone.installs,
    work: workOf(pairs.map((r) => r.axes.installs)),
    aloneWork: workOf(pairs.map((r) => r.axesAlone.installs)),
    verdicts: [...new Set(pairs.flatMap((r) => [r.axes.verdict, r.axesAlone.verdict]))],
    warmupInstalls: warmup?.installs,
    warmupWallMs: warmup && round(warmup.wallMs),
    ownMaxRssMb: maxMb(pairs.map((r) => r.axes.ownMaxRssKb)),
    aloneOwnMaxRssMb: maxMb(pairs.map((r) => r.axesAlone.ownMaxRssKb)),
    treeMaxRssMb: withTime ? maxMb(pairs.map((r) => r.axes.treeMaxRssKb)) : undefined,
    notPassed: [
      ...new Set(pairs.flatMap((r) => [...r.axes.cells, ...r.axesAlone.cells].filter((c) => c.verdict !== 'passed').map((c) => c.id))),
    ],
    ratios: pairs.map((r) => round(r.axes.wallMs / r.axesAlone.wallMs, 2)),
    aloneWalls: pairs.map((r) => round(r.axesAlone.wallMs)),
    base: pairs.every((r) => r.axesBase) ? crossedRunsOf(pairs, 'axesBase') : undefined,
    cold: pairs.every((r) => r.axesCold) ? crossedRunsOf(pairs, 'axesCold') : undefined,
    load1: { median: round(median(loads), 2), max: round(Math.max(...loads), 2) },
  };
  return ax;
}

function axesTargets(ax: AxesFigures, nClients: number, nNode: number): Target[] {
  const last = ax.installs;
  const w = ax.warmupInstalls;
  const cold = ax.cold;
  const c = cold?.installs;
  const counted = [
    `server ${last?.server}, client ${last?.client}, runtime ${last?.runtime}`,
    c && `client cache off: server ${c.server}, client ${c.client}, suite ${c.suite}`,
    w &&
      `warm-up, cold client and runtime caches: server ${w.server} in ${w.distinct?.server} cells (+${w.resolutions} resolutions), client ${w.client} of ${w.distinct?.client} sets (+suite ${w.suite}), runtime ${w.runtime} of ${w.distinct?.runtime} releases`,
  ]
    .filter(Boolean)
    .join('; ');
  return [
    {
      name: `axes: ${ax.variants} variants ≤ 2.0 × the same ${ax.cells} cells alone`,
      value: ax.ratio,
      limit: 2,
      shown: ratio(ax.ratio),
      pass: (ax.ratio ?? Infinity) <= 2,
    },
    {
      name: `axes: ${ax.variants} variants ≤ 1.6 × the same ${ax.cells} cells alone (issue 22; CPU ratio ${ratio(ax.cpuRatio)})`,
      value: ax.ratio,
      limit: 1.6,
      shown: ratio(ax.ratio),
      pass: (ax.ratio ?? Infinity) <= 1.6,
    },
    ...(cold
      ? [
          {
            name: `axes: the same with the client cache off (each client installed by the run; shown, not a target)`,
            value: cold.ratio,
            shown: ratio(cold.ratio),
            pass: null,
          },
        ]
      : []),
    {
      // A distinct set: a cell's dependency tree (one per cell, whatever its Node variants: they run on copies of
      // it), a client's install set, a Node release. Installs equal to the distinct sets: nothing installed twice.
      // A local run reuses a pin's resolution and tree within the window (issue 34): its steady runs install none.
      name: `axes: one install per distinct set (steady, reuse window and caches warm: none; cold caches: each set once, server ≤ ${ax.cells}, client ${nClients}, runtime ≤ 1 per release)`,
      value: counted,
      shown: counted,
      pass:
        last?.server === 0 &&
        last.resolutions === 0 &&
        last.client === 0 &&
        last.suite === 0 &&
        last.runtime === 0 &&
        last.steady &&
        (!c || (c.server === 0 && c.client === nClients && c.distinct?.client === nClients)) &&
        (!w ||
          (w.server <= ax.cells &&
            w.server === w.distinct?.server &&
            w.resolutions <= ax.cells &&
            w.client === nClients &&
            w.distinct.client === nClients &&
            w.suite <= 1 &&
            w.runtime === w.distinct.runtime &&
            // The axis's releases, and the conformance suite's own Node on a host below its major.
            w.runtime <= nNode + 1)),
    },
    {
      name: 'axes: orchestrator peak RSS < 200 MB',
      value: ax.ownMaxRssMb,
      limit: 200,
      shown: `${ax.ownMaxRssMb} MB`,
      pass: ax.ownMaxRssMb < 200,
    },
    {
      name: 'axes: every variant and cell passed (in every run)',
      value: ax.notPassed.length,
      shown: ax.notPassed.length ? `not passed: ${ax.notPassed.join(', ')}` : `all passed; runs: ${ax.verdicts.join(', ')}`,
      pass:
        ax.notPassed.length === 0 &&
        ax.verdicts.every((v) => v === 'passed') &&
        (!cold || (cold.notPassed.length === 0 && cold.verdicts.every((v) => v === 'passed'))),
    },
  ];
}

/** Medians over the runs of the work per kind (summed process lifetimes), each kind's median and when it first began. */
export function workOf(runs: (Installs | undefined)[]) {
  const xs = runs.filter((x): x is Installs => Boolean(x?.work));
  if (!xs.length) return undefined;
  const m = (f: (x: Installs) => number | undefined): number | undefined => round(median(xs.map(f)));
  return {
    serverMs: m((x) => x.work.serverMs),
    clientMs: m((x) => x.work.clientMs),
    driverMs: m((x) => x.work.driverMs),
    server: m((x) => x.medianMs.server),
    client: m((x) => x.medianMs.client),
    driver: m((x) => x.medianMs.driver),
    firstServer: m((x) => x.firstMs.server),
    firstClient: m((x) => x.firstMs.client),
    firstDriver: m((x) => x.firstMs.driver),
    lastEnd: m((x) => x.lastEndMs),
  };
}

/** Another set of crossed runs (the baseline checkout's, or with the client cache off), each against the cells-alone run of its own repetition. */
function crossedRunsOf(pairs: Pair[], key: 'axesBase' | 'axesCold') {
  const runs = pairs.map((r) => ({ run: r[key]!, alone: r.axesAlone }));
  const rows = runs.flatMap((r) => r.run.cells);
  return {
    wallMs: round(median(runs.map((r) => r.run.wallMs))),
    cpuMs: round(median(runs.map((r) => r.run.cpuMs))),
    ratio: round(median(runs.map((r) => r.run.wallMs / r.alone.wallMs)), 3),
    ratios: runs.map((r) => round(r.run.wallMs / r.alone.wallMs, 2)),
    variantMedianMs: round(median(rows.map((c) => c.durationMs))),
    bindMedianMs: round(median(rows.map((c) => c.phases.bind?.durationMs))),
    installs: runs.at(-1)!.run.installs,
    ownMaxRssMb: maxMb(runs.map((r) => r.run.ownMaxRssKb)),
    work: workOf(runs.map((r) => r.run.installs)),
    verdicts: [...new Set(runs.map((r) => r.run.verdict))],
    notPassed: [...new Set(rows.filter((c) => c.verdict !== 'passed').map((c) => c.id))],
  };
}
