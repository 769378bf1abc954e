// How recorded-value parity (src/results/parity.ts) is shown: the matrix.md line under the surface line,
// the terminal's error lines, and a JUnit suite with one test case per compared item (plus one per
// stale allowance), so a CI test view names the step that differs.

import type { ParityCheck, RunResult } from '../../results/types.js';
import { hasAxes } from '../../results/variants.js';
import { SNAPSHOT_FILE } from '../../results/surface.js';
import { mdInline, xmlAttr, xmlText } from './format.js';

/** The `parity:` line of matrix.md and its findings, drift, stale and allowed differences. */
export function parityMarkdown(run: RunResult): string[] {
  const p = run.parity;
  if (!p) return [];
  const n = p.cells.length;
  const unit = `${hasAxes(run.plan) ? 'variant' : 'cell'}${n === 1 ? '' : 's'}`;
  const failing = failingCount(p);
  const snapshot = p.drift === undefined ? '' : p.drift.length === 0 ? ` · snapshot: matches ${SNAPSHOT_FILE}` : '';
  const head =
    n === 0
      ? 'answers: not compared (no row recorded an answer)'
      : failing === 0
        ? `answers: ${p.items.length} item${p.items.length === 1 ? '' : 's'} identical on ${n} ${unit}${p.allowed.length ? ` but for ${p.allowed.length} allowed difference${p.allowed.length === 1 ? '' : 's'}` : ''}${snapshot}`
        : `answers: ${failing} difference${failing === 1 ? '' : 's'} in ${p.items.length} item${p.items.length === 1 ? '' : 's'} on ${n} ${unit}`;
  return [
    '',
    head,
    ...p.findings.map((f) => `- differs: ${mdInline(f)}`),
    ...(p.drift ?? []).map((d) => `- changed since ${SNAPSHOT_FILE}: ${mdInline(d)}`),
    ...p.stale.map((s) => `- stale: ${mdInline(s)}`),
    ...p.allowed.map((a) => `- allowed: ${mdInline(a)}`),
  ];
}

/** The terminal's lines for what fails the run. */
export function parityLog(run: RunResult): string[] {
  const p = run.parity;
  if (!p) return [];
  return [
    ...p.findings.map((f) => `answer differs: ${f}`),
    ...(p.drift ?? []).map((d) => `answer changed since ${SNAPSHOT_FILE}: ${d}  (commit the change with --update-surface)`),
    ...p.stale.map((s) => `stale: ${s}`),
  ];
}

/** The JUnit `parity` suite (empty when parity was off or nothing was recorded). */
export function parityJunit(run: RunResult): { suite: string; tests: number; failures: number } | undefined {
  const p = run.parity;
  if (!p || p.cells.length === 0) return undefined;
  const lines = [...p.findings, ...(p.drift ?? [])];
  const owner = (line: string): string | undefined =>
    p.items.filter((item) => line.startsWith(`${item}:`)).sort((a, b) => b.length - a.length)[0];
  const orphans = lines.filter((l) => owner(l) === undefined);
  const cases = [...p.items, ...(orphans.length ? ['snapshot'] : [])].map((item) => {
    const failed = item === 'snapshot' && !p.items.includes('snapshot') ? orphans : lines.filter((l) => owner(l) === item);
    const open = `    <testcase${attrs({ classname: 'parity', name: item, time: '0.000' })}`;
    if (failed.length === 0) return { failed: false, text: `${open}/>` };
    const message = failed.join('; ');
    return {
      failed: true,
      text: `${open}>\n      <failure${attrs({ message, type: 'parity' })}>${xmlText(`\n${failed.join('\n')}\n      `)}</failure>\n    </testcase>`,
    };
  });
  const stale = p.stale.map((s) => ({
    failed: true,
    text: `    <testcase${attrs({ classname: 'parity', name: 'parity.allow', time: '0.000' })}>\n      <failure${attrs({ message: s, type: 'stale-allowance' })}>${xmlText(`\n${s}\n      `)}</failure>\n    </testcase>`,
  }));
  const all = [...cases, ...stale];
  const failures = all.filter((c) => c.failed).length;
  const open = `  <testsuite${attrs({ name: 'parity', tests: all.length, failures, errors: 0, skipped: 0, time: '0.000' })}>`;
  return { suite: [open, ...all.map((c) => c.text), '  </testsuite>'].join('\n'), tests: all.length, failures };
}

function failingCount(p: ParityCheck): number {
  return p.findings.length + (p.drift?.length ?? 0) + p.stale.length;
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
}
