// Section 6 summarised (medians over the repetitions) and rendered, with the targets of issue 22 item 4.
import type { Rep, Target } from './rep.js';
import type { Measured } from './yardsticks.js';
import { CORES, median, ratio, round, sec, table } from './util.js';

interface Figure {
  label: string;
  wallMs: number | undefined;
  cpuMs: number | undefined;
  /** Against the naive loop (or, for the edited cell, its reference run): wall and CPU. */
  ratio?: number | undefined;
  cpuRatio?: number | undefined;
  against?: string;
}

const m = (xs: (number | undefined)[], d = 0): number | undefined => round(median(xs), d);
const over = (a: Measured | undefined, b: Measured | undefined, k: 'wallMs' | 'cpuMs'): number | undefined =>
  a?.[k] !== undefined && b?.[k] ? a[k]! / b[k]! : undefined;

export function summarizeYardsticks(reps: Rep[]) {
  const s = figuresOf(reps);
  return s && { ...s, targets: targetsOf(s) };
}
export type YardstickSummary = NonNullable<ReturnType<typeof summarizeYardsticks>>;
type Figures = NonNullable<ReturnType<typeof figuresOf>>;

function figuresOf(reps: Rep[]) {
  const ys = reps.flatMap((r) => (r.yardsticks ? [r.yardsticks] : []));
  if (!ys.length) return undefined;
  const naive = ys.flatMap((y) => (y.naive ? [y.naive] : []));
  const edits = ys.flatMap((y) => (y.edit ? [y.edit] : []));
  const row = (label: string, runs: Measured[], against?: { name: string; runs: (Measured | undefined)[] }): Figure => ({
    label,
    wallMs: m(runs.map((r) => r.wallMs)),
    cpuMs: m(runs.map((r) => r.cpuMs)),
    ...(against
      ? {
          against: against.name,
          ratio: m(
            runs.map((r, i) => over(r, against.runs[i], 'wallMs')),
            3,
          ),
          cpuRatio: m(
            runs.map((r, i) => over(r, against.runs[i], 'cpuMs')),
            3,
          ),
        }
      : {}),
  });
  const vsNaive = naive.length === ys.length ? { name: 'naive loop', runs: ys.map((y) => y.naive) } : undefined;
  const cell = edits[0]?.cell;
  const figures: Figure[] = [
    ...(naive.length ? [row('naive loop (sequential shell loop, fewer checks)', naive)] : []),
    row(
      `cold: ${ys[0]!.cold.cells.length} cells, empty harness caches, warm npm cache`,
      ys.map((y) => y.cold),
      vsNaive,
    ),
    row(
      'warm re-run of the same cells',
      ys.map((y) => y.warm),
      vsNaive,
    ),
    ...(edits.length
      ? [
          row(
            `run --cell ${cell} after an edit, reference: ${edits[0]!.referenceBy}`,
            edits.map((e) => e.reference),
          ),
          row(
            `run --cell ${cell} after an edit, warm`,
            edits.map((e) => e.warm),
            { name: 'reference', runs: edits.map((e) => e.reference) },
          ),
        ]
      : []),
  ];
  const notPassed = [
    ...new Set(
      ys.flatMap((y) =>
        [y.cold, y.warm, ...(y.edit ? [y.edit.warm, y.edit.reference] : [])].filter((r) => r.verdict !== 'passed').map((r) => r.label),
      ),
    ),
  ];
  const naiveFailed = [...new Set(naive.flatMap((n) => Object.entries(n.verdicts).flatMap(([k, v]) => (v === 'PASS' ? [] : [k]))))];
  const conformanceMs = m(ys.map((y) => y.cold.cells.reduce((a, c) => a + (c.phases.conformance?.durationMs ?? 0), 0)));
  return { figures, notPassed, naiveFailed, naiveSkipped: ys[0]!.naiveSkipped, conformanceMs, cell };
}

function targetsOf(s: Figures): Target[] {
  const [cold, warm, , edit] = s.figures.filter((f) => !f.label.startsWith('naive'));
  const le = (name: string, value: number | undefined, limit: number): Target => ({
    name,
    value,
    limit,
    shown: ratio(value),
    pass: value === undefined ? null : value <= limit,
  });
  const editPass = edit === undefined ? null : (edit.wallMs ?? Infinity) <= 4000 || (edit.ratio ?? Infinity) <= 0.45;
  return [
    le('cold 4-cell run ≤ 0.65 × the naive loop (wall; 0.5× is the aim)', cold?.ratio, 0.65),
    le('warm re-run ≤ 0.35 × the naive loop (wall)', warm?.ratio, 0.35),
    {
      name: 'warm run --cell after an edit ≤ 4 s wall, or ≤ 0.45 × its reference in the same run',
      value: edit?.wallMs,
      shown: edit ? `${sec(edit.wallMs)}, ${ratio(edit.ratio)}` : 'n/a',
      pass: editPass,
    },
    {
      name: 'yardsticks: every harness run passed, and the naive loop passed every pin',
      value: s.notPassed.length + s.naiveFailed.length,
      shown:
        s.notPassed.length || s.naiveFailed.length
          ? `not passed: ${[...s.notPassed, ...s.naiveFailed.map((p) => `naive ${p}`)].join(', ')}`
          : 'all passed',
      pass: s.notPassed.length === 0 && s.naiveFailed.length === 0,
    },
  ];
}

export function renderYardsticks(y: YardstickSummary): string {
  const rows = y.figures.map((f) => [
    f.label,
    sec(f.wallMs),
    sec(f.cpuMs),
    f.cpuMs === undefined ? '–' : sec(f.cpuMs / CORES),
    f.cpuMs && f.wallMs ? ratio(f.wallMs / (f.cpuMs / CORES)) : '–',
    f.against ? `${ratio(f.ratio)} wall, ${ratio(f.cpuRatio)} CPU` : '',
  ]);
  return [
    table(
      '6. yardsticks: the naive loop, cold, warm and the edit loop, in one repetition',
      ['run', 'wall', 'CPU', `CPU floor (/${CORES})`, 'wall / floor', 'against the naive loop (edit: its reference)'],
      rows,
    ),
    `   the harness runs carry the conformance phase the loop does not: ${sec(y.conformanceMs)} of cell time in the cold run`,
    ...(y.naiveSkipped ? [`   naive loop not run: ${y.naiveSkipped}`] : []),
  ].join('\n');
}
