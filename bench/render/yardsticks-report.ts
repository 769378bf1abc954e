// Section 6 summarised (medians over the repetitions) and rendered, with the targets of issue 22 item 4.
import type { Rep, Target } from '../sections/rep.js';
import type { Measured, Reading } from '../sections/yardsticks.js';
import { CORES, median, ratio, round, sec, table } from '../measure/util.js';

interface Figure {
  label: string;
  wallMs: number | undefined;
  cpuMs: number | undefined;
  /** Against the naive loop (or, for the edited cell, its reference run): wall and CPU. */
  ratio?: number | undefined;
  cpuRatio?: number | undefined;
  against?: string;
}

const LIKE = "the loop's checks only, ";
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
  const readingRows = (tag: string, rs: Reading[]): Figure[] => {
    const es = rs.flatMap((r) => (r.edit ? [r.edit] : []));
    return [
      row(
        `${tag}cold: ${rs[0]!.cold.cells.length} cells, empty harness caches, warm npm cache`,
        rs.map((r) => r.cold),
        vsNaive,
      ),
      row(
        `${tag}warm re-run of the same cells`,
        rs.map((r) => r.warm),
        vsNaive,
      ),
      ...(es.length
        ? [
            row(
              `${tag}run --cell ${cell} after an edit, reference: ${es[0]!.referenceBy}`,
              es.map((e) => e.reference),
            ),
            row(
              `${tag}run --cell ${cell} after an edit, warm`,
              es.map((e) => e.warm),
              { name: 'reference', runs: es.map((e) => e.reference) },
            ),
          ]
        : []),
    ];
  };
  const likes = ys.flatMap((y) => (y.like ? [y.like] : []));
  const figures: Figure[] = [
    ...(naive.length ? [row('naive loop (sequential shell loop, fewer checks)', naive)] : []),
    ...readingRows('all checks, ', ys),
    ...(likes.length === ys.length ? readingRows(LIKE, likes) : []),
  ];
  const notPassed = [
    ...new Set(
      ys.flatMap((y) =>
        [y, ...(y.like ? [y.like] : [])]
          .flatMap((r) => [r.cold, r.warm, ...(r.edit ? [r.edit.warm, r.edit.reference] : [])])
          .filter((r) => r.verdict !== 'passed')
          .map((r) => r.label),
      ),
    ),
  ];
  const naiveFailed = [...new Set(naive.flatMap((n) => Object.entries(n.verdicts).flatMap(([k, v]) => (v === 'PASS' ? [] : [k]))))];
  const conformanceMs = m(ys.map((y) => y.cold.cells.reduce((a, c) => a + (c.phases.conformance?.durationMs ?? 0), 0)));
  return { figures, notPassed, naiveFailed, naiveSkipped: ys[0]!.naiveSkipped, conformanceMs, cell, likeOff: likes[0]?.off };
}

/**
 * Judged on the like-for-like reading when the run has it (the targets were set before the conformance phase and
 * the lifecycle and spec sub-checks existed; like-for-like.ts), with the all-checks figure shown beside.
 */
function targetsOf(s: Figures): Target[] {
  const pick = (tag: string) => {
    const rows = s.figures.filter((f) => f.label.startsWith(tag));
    return { cold: rows[0], warm: rows[1], edit: rows[3] };
  };
  const all = pick('all checks, ');
  const like = s.figures.some((f) => f.label.startsWith(LIKE)) ? pick(LIKE) : undefined;
  const judged = like ?? all;
  const besides = (f: Figure | undefined, g: Figure | undefined): string =>
    like ? `${ratio(f?.ratio)} (all checks: ${ratio(g?.ratio)})` : ratio(f?.ratio);
  const le = (name: string, f: Figure | undefined, g: Figure | undefined, limit: number): Target => ({
    name,
    value: f?.ratio,
    limit,
    shown: besides(f, g),
    pass: f?.ratio === undefined ? null : f.ratio <= limit,
  });
  const editShown = (e: Figure | undefined): string => (e ? `${sec(e.wallMs)}, ${ratio(e.ratio)}` : 'n/a');
  const edit = judged.edit;
  const editPass = edit === undefined ? null : (edit.wallMs ?? Infinity) <= 4000 || (edit.ratio ?? Infinity) <= 0.45;
  const on = like ? " (the loop's checks only)" : '';
  return [
    le(`cold 4-cell run ≤ 0.65 × the naive loop (wall; 0.5× is the aim)${on}`, judged.cold, all.cold, 0.65),
    le(`warm re-run ≤ 0.35 × the naive loop (wall)${on}`, judged.warm, all.warm, 0.35),
    {
      name: `warm run --cell after an edit ≤ 4 s wall, or ≤ 0.45 × its reference in the same run${on}`,
      value: edit?.wallMs,
      shown: like ? `${editShown(edit)} (all checks: ${editShown(all.edit)})` : editShown(edit),
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
    `   the all-checks runs carry the conformance phase the loop does not: ${sec(y.conformanceMs)} of cell time in the cold run`,
    ...(y.likeOff ? [`   "the loop's checks only": the same runs with these off (bench/measure/like-for-like.ts): ${y.likeOff}`] : []),
    ...(y.naiveSkipped ? [`   naive loop not run: ${y.naiveSkipped}`] : []),
  ].join('\n');
}
