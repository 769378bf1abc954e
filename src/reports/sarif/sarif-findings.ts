// What matrix.sarif reports: every failed sub-check, every failed phase no check explains, the environment's
// problems and the run's own findings. It only reads verdicts: not-measured is the harness's problem, never a finding.

import type { CellResult, PhaseResult, PhaseResultOf, RunResult } from '../../results/types.js';
import { baselineMatches, cellOutcome } from '../../judge/verdict.js';
import { checkSource } from '../../contract/checks.js';
import { ruleForCheck, specUri, type RuleDef } from './sarif-rules.js';
import { displayCells, handleText } from '../view/view.js';
import { cleanText } from '../view/format.js';

export type FindingLevel = 'error' | 'warning' | 'note';

/** One finding of one variant, before findings of one cell that say the same are grouped. */
export interface Finding {
  rule: RuleDef | string;
  level: FindingLevel;
  text: string;
  /** `package` (the package's package.json), `config`, `snapshot` (mcp-surface.json), or a file of the package and its line. */
  where: 'package' | 'config' | 'snapshot' | { file: string; line: number };
  phase?: string;
  step?: string;
  cell?: CellResult;
  /** A check's finding: the text of the revision it was judged by (the negotiated one), as a link. */
  specUri?: string;
}

/** Every finding of the run, in display order (variants in plan order, phases in order, then the run's). */
export function findingsOf(run: RunResult): Finding[] {
  const shown = displayCells(run).filter((c) => c.phases.length > 0);
  const ids = new Set(shown.map((c) => c.id));
  const out: Finding[] = [];
  for (const cell of shown) {
    for (const phase of cell.phases) out.push(...phaseFindings(run, cell, phase, ids));
    if (cellOutcome(cell.verdict, cell.allowedToFail) === 'stale-allowance')
      out.push({
        rule: 'config/stale-allowance',
        level: 'error',
        text: 'every phase passed, but the cell is marked allowedToFail',
        where: 'config',
        cell,
      });
  }
  for (const f of run.surface?.findings ?? []) out.push({ rule: 'surface/parity', level: 'error', text: f, where: 'config' });
  for (const d of run.surface?.drift ?? []) out.push({ rule: 'surface/drift', level: 'error', text: d, where: 'snapshot' });
  for (const f of run.parity?.findings ?? []) out.push({ rule: 'answers/parity', level: 'error', text: f, where: 'config' });
  for (const d of run.parity?.drift ?? []) out.push({ rule: 'answers/drift', level: 'error', text: d, where: 'snapshot' });
  for (const s of run.parity?.stale ?? []) out.push({ rule: 'answers/stale-allowance', level: 'error', text: s, where: 'config' });
  const failing = new Set(run.lockstepErrors ?? []);
  for (const w of run.warnings)
    if (w.startsWith('lockstep: '))
      out.push({
        rule: 'config/lockstep',
        level: failing.has(w) ? 'error' : 'warning',
        text: w.slice('lockstep: '.length),
        where: 'config',
      });
  return out;
}

function phaseFindings(run: RunResult, cell: CellResult, phase: PhaseResult, shown: ReadonlySet<string>): Finding[] {
  // A bind measured once for the cell's Node release is reported by the variant that measured it.
  const measuredBy = phase.details?.measuredBy;
  if (typeof measuredBy === 'string' && measuredBy !== cell.id && shown.has(measuredBy)) return [];
  const expected = expectedNote(run, cell, phase);
  const level = (l: FindingLevel): FindingLevel => (expected && l === 'error' ? 'note' : l);
  const base = { phase: phase.phase, cell, where: 'package' as const };
  const out: Finding[] = [];
  let explained = false;
  for (const c of phase.checks ?? []) {
    if (c.outcome !== 'failed' || c.level === 'off') continue;
    // leaks' own shutdown is the phase's failure: reported as leaks/failed below, at the leaked handle's source line.
    if (phase.phase === 'leaks' && c.id === 'shutdown') continue;
    if (c.level === 'require') explained = true;
    out.push({
      ...base,
      rule: ruleForCheck(phase.phase, c),
      level: level(c.level === 'require' ? 'error' : 'warning'),
      text: `${phase.phase} › ${c.id}: ${c.message} [${checkSource(c)}]${expected}`,
      ...(c.step ? { step: c.step } : {}),
      ...(specUri(c.spec) ? { specUri: specUri(c.spec)! } : {}),
    });
  }
  // The environment's checks explain only their own part: its other problems are reported beside them.
  if (phase.verdict !== 'failed' || (explained && phase.phase !== 'environment')) return out;
  const step = phase.step ? { step: phase.step } : {};
  const finding = (rule: string, text: string, where: Finding['where'] = 'package'): Finding => ({
    ...base,
    ...step,
    rule,
    level: level('error'),
    text: `${phase.phase}: ${text}${expected}`,
    where,
  });
  switch (phase.phase) {
    case 'environment':
      return [...out, ...environmentProblems(phase).map(([rule, text]) => finding(rule, text))];
    case 'bind': {
      const outcome = phase.details?.outcome;
      return [
        ...out,
        finding(outcome === 'listened' || outcome === 'tried-to-listen' ? 'bind/exposed' : 'bind/no-refusal', message(phase)),
      ];
    }
    case 'leaks': {
      const at = (cell.summary.leakedHandles ?? []).map((h) => ({ h, file: sourceLine(h.location) })).find((x) => x.file);
      const handles = (cell.summary.leakedHandles ?? []).map(handleText);
      const text = `${message(phase)}${handles.length ? ` · live handles: ${handles.join('; ')}` : ''}`;
      return [...out, finding('leaks/failed', text, at?.file ?? 'package')];
    }
    default:
      return [...out, finding(`${phase.phase}/failed`, message(phase))];
  }
}

function message(phase: PhaseResult): string {
  return cleanText(phase.message ?? 'failed').replace(/\s*\n\s*/g, ' ');
}

/** The environment's problems, each under its rule: the declared range, the SDK the servers loaded, the rest. */
function environmentProblems(phase: PhaseResultOf<'environment'>): [string, string][] {
  const details = phase.details;
  const runtime = details?.runtime;
  const runtimeMessages = runtime?.verdict === 'failed' && Array.isArray(runtime.messages) ? runtime.messages.map(String) : [];
  const listed = details?.problems;
  // A failed check's line (`undeclared-imports: …`) is reported by the check's own rule.
  const byCheck = (p: string) => (phase.checks ?? []).some((c) => c.outcome === 'failed' && p.startsWith(`${c.id}: `));
  const problems = (Array.isArray(listed) && listed.length > 0 ? listed.map(String) : [message(phase)]).filter((p) => !byCheck(p));
  return problems.map((p) => [
    runtimeMessages.includes(p)
      ? 'environment/runtime-sdk'
      : /is outside the range|declares no range/.test(p)
        ? 'environment/sdk-range'
        : 'environment/install',
    cleanText(p),
  ]);
}

/** ` (expected: …)` when the failure does not fail the run (allowed to fail, or listed in the baseline); else ''. */
function expectedNote(run: RunResult, cell: CellResult, phase: PhaseResult): string {
  if (phase.verdict !== 'failed') return '';
  if (cell.allowedToFail) return ' (expected: the cell is allowed to fail)';
  const entry = run.baseline?.entries.find((e) => baselineMatches(e, cell, phase));
  return entry ? ` (expected: listed in ${run.baseline!.file}: ${entry.reason})` : '';
}

/** `bin/server.js:32` → that file and line, when it is a path inside the package (not node_modules, not absolute). */
function sourceLine(location: string | undefined): { file: string; line: number } | undefined {
  const m = location ? /^([\w@.-][\w@./-]*\.[cm]?[jt]sx?):(\d+)(?::\d+)?$/.exec(location) : null;
  if (!m || m[1]!.split('/').some((s) => s === '..' || s === 'node_modules')) return undefined;
  return { file: m[1]!, line: Number(m[2]) };
}
