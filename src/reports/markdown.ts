// matrix.md: the title, the table in ADR-0007's form, one section per failure, the environment,
// the warnings. Pure and deterministic: the same results.json always renders the same bytes.

import type { CellResult, RunResult } from '../results/types.js';
import { renderEnvironment } from './environment.js';
import { renderFailures } from './failures.js';
import { codeSpan, mdInline, seconds, shortHash } from './format.js';
import { cellOutcome, judgeBaseline, runReasons, storedFacts } from '../results/verdict.js';
import { allowanceNote, displayCells, httpLabel, leaksLabel, phaseLabel, phaseOf, pinLabel, runVerdictLabel } from './view.js';

interface Column {
  header: string;
  align: '---' | '---:';
  value(run: RunResult, cell: CellResult): string;
  /** A column whose value is the same on every row moves to the header (e.g. one Node.js for all cells). */
  constant?: string;
}

const count = (n: number | undefined): string => (n === undefined ? '—' : String(n));

const COLUMNS: Column[] = [
  { header: 'Pin (role)', align: '---', value: (_run, cell) => pinNotes(cell) },
  { header: 'Node.js', align: '---', value: (_run, cell) => cell.environment?.node ?? '—', constant: 'Node.js' },
  {
    header: 'package version',
    align: '---',
    value: (run, cell) => cell.environment?.package.version ?? run.plan.package.version,
    constant: 'package version',
  },
  { header: 'Tools', align: '---:', value: (_run, cell) => count(cell.summary.tools) },
  { header: 'Resources', align: '---:', value: (_run, cell) => count(cell.summary.resources) },
  { header: 'Resource templates', align: '---:', value: (_run, cell) => count(cell.summary.resourceTemplates) },
  { header: 'Prompts', align: '---:', value: (_run, cell) => count(cell.summary.prompts) },
  { header: 'protocol', align: '---', value: (_run, cell) => cell.summary.protocolVersion ?? '—' },
  { header: 'leaked handles', align: '---', value: (_run, cell) => leaksLabel(cell, phaseOf(cell, 'leaks')) },
  { header: 'stdio', align: '---', value: (_run, cell) => phaseLabel(cell, phaseOf(cell, 'stdio')) },
  { header: 'HTTP (401 + round trip)', align: '---', value: (_run, cell) => httpLabel(cell, phaseOf(cell, 'http')) },
  { header: 'bind refusal', align: '---', value: (_run, cell) => phaseLabel(cell, phaseOf(cell, 'bind')) },
  { header: 'time', align: '---', value: (_run, cell) => (cell.phases.length === 0 ? '—' : seconds(cell.durationMs)) },
];

/** Columns with one value on every row (two rows or more, cells without a result aside): name → value. */
export function constantColumns(run: RunResult): Map<string, string> {
  const cells = displayCells(run);
  const out = new Map<string, string>();
  if (cells.length < 2) return out;
  for (const column of COLUMNS) {
    if (!column.constant) continue;
    const values = new Set(cells.filter((c) => c.phases.length > 0).map((c) => column.value(run, c)));
    const [only] = values;
    if (values.size === 1 && only !== undefined && only !== '—') out.set(column.header, only);
  }
  return out;
}

/** `Node.js v22.11.0 · package version 0.3.0 (every cell)`; empty when no column is constant. */
export function renderConstants(run: RunResult): string {
  const constants = constantColumns(run);
  if (constants.size === 0) return '';
  return `${[...constants].map(([name, value]) => `${name} ${mdInline(value)}`).join(' · ')} (every cell)`;
}

/** The whole report: title, table, failures, environment, warnings. */
export function renderMarkdown(run: RunResult): string {
  const parts = [renderTitle(run), renderTable(run), renderFailures(run), renderEnvironment(run), renderWarnings(run)];
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

/** `# mcp-matrix: PASSED · 2026-08-25 · pkg@1.0.0 · …` plus a one-line count of outcomes. */
export function renderTitle(run: RunResult): string {
  const pkg = `${run.plan.package.name}@${run.plan.package.version}`;
  const title = [
    `# mcp-matrix: ${runVerdictLabel(run.verdict)}`,
    mdInline(run.startedAt.slice(0, 10)),
    codeSpan(pkg),
    `sha512 ${codeSpan(shortHash(run.plan.tarball.sha512))}`,
    `config ${codeSpan(shortHash(run.plan.configHash))}`,
    ...(run.plan.package.commit ? [`commit ${codeSpan(run.plan.package.commit)}`] : []),
  ].join(' · ');
  const lines = [title, '', `${countLine(displayCells(run))} · exit code ${run.exitCode}`, ...surfaceLines(run)];
  const reasons = runReasons(displayCells(run), run.interrupted, storedFacts(run));
  if (reasons.length > 0) lines.push('', `**Why ${runVerdictLabel(run.verdict)}:** ${reasons.map(mdInline).join('; ')}`);
  const expected = judgeBaseline(displayCells(run), run.baseline?.entries ?? []).expected;
  if (expected.length > 0)
    lines.push(
      '',
      `Expected failures (${mdInline(run.baseline?.file ?? 'baseline')}): ${expected.map((x) => mdInline(`${x.cell} · ${x.phase} (line ${x.entry.line}: ${x.entry.reason})`)).join('; ')}`,
    );
  const constants = renderConstants(run);
  if (constants) lines.push('', constants);
  if (run.interrupted) {
    lines.push('', 'The run was interrupted: cells and phases without a result are shown as not measured.');
  }
  return lines.join('\n');
}

/** The surface-parity line (and its findings, allowed differences and snapshot drift) under the headline. */
export function surfaceLines(run: RunResult): string[] {
  const s = run.surface;
  if (!s) return [];
  const n = s.cells.length;
  const failing = s.findings.length + (s.drift?.length ?? 0);
  const snapshot = s.drift === undefined ? '' : s.drift.length === 0 ? ' · snapshot: matches mcp-surface.json' : '';
  const head =
    n === 0
      ? 'surface: not compared (no stdio run listed a surface)'
      : failing === 0
        ? `surface: identical on ${n} cell${n === 1 ? '' : 's'}${s.allowed.length ? ` but for ${s.allowed.length} allowed difference${s.allowed.length === 1 ? '' : 's'}` : ''}${snapshot}`
        : `surface: ${failing} difference${failing === 1 ? '' : 's'} on ${n} cell${n === 1 ? '' : 's'}`;
  return [
    '',
    head,
    ...s.findings.map((f) => `- differs: ${mdInline(f)}`),
    ...(s.drift ?? []).map((d) => `- changed since mcp-surface.json: ${mdInline(d)}`),
    ...s.allowed.map((a) => `- allowed: ${mdInline(a)}`),
  ];
}

function countLine(cells: CellResult[]): string {
  const labels = {
    passed: 'passed',
    failed: 'failed',
    'allowed-failure': 'allowed failure',
    'stale-allowance': 'stale allowance',
    'not-measured': 'not measured',
  } as const;
  const counts = new Map<string, number>();
  for (const cell of cells) {
    const label = labels[cellOutcome(cell.verdict, cell.allowedToFail)];
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const parts = Object.values(labels)
    .filter((label) => counts.has(label))
    .map((label) => `${counts.get(label)} ${label}`);
  return `${cells.length} ${cells.length === 1 ? 'cell' : 'cells'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** The table alone, one row per planned cell (what `publishInto` puts between the markers). */
export function renderTable(run: RunResult): string {
  const constants = constantColumns(run);
  const columns = COLUMNS.filter((c) => !constants.has(c.header));
  const rows = displayCells(run).map((cell) => columns.map((c) => mdInline(c.value(run, cell)) || ' '));
  return [columns.map((c) => c.header), columns.map((c) => c.align), ...rows].map((cols) => `| ${cols.join(' | ')} |`).join('\n');
}

function pinNotes(cell: CellResult): string {
  const environment = phaseOf(cell, 'environment');
  const notes = [pinLabel(cell)];
  if (cell.phases.length === 0) notes.push('no result');
  else if (environment.verdict !== 'passed') notes.push(`environment: ${phaseLabel(cell, environment)}`);
  const allowance = allowanceNote(cell);
  if (allowance) notes.push(allowance);
  return notes.join(' — ');
}

/** `## Warnings` with one escaped item per warning; empty when there are none. */
export function renderWarnings(run: RunResult): string {
  if (run.warnings.length === 0) return '';
  return ['## Warnings', '', ...run.warnings.map((w) => `- ${mdInline(w)}`)].join('\n');
}

/** What `--publish` puts between the markers: when and from what the table was measured, then the table. */
export function renderPublished(run: RunResult): string {
  const from = run.plan.package.commit ? ` from commit ${codeSpan(run.plan.package.commit)}` : '';
  const line = `${runVerdictLabel(run.verdict)} · ${mdInline(run.startedAt.slice(0, 16).replace('T', ' '))} UTC${from} · mcp-matrix ${mdInline(run.tool.version)} · ${codeSpan(`${run.plan.package.name}@${run.plan.package.version}`)}`;
  const constants = renderConstants(run);
  return `${line}${constants ? `\n\n${constants}` : ''}\n\n${renderTable(run)}`;
}
