// matrix.md: the title, the table in ADR-0007's form, one section per failure, the environment,
// the warnings. Pure and deterministic: the same results.json always renders the same bytes.

import type { CellResult, RunResult } from '../results/types.js';
import { renderEnvironment } from './environment.js';
import { renderFailures } from './failures.js';
import { codeSpan, mdInline, seconds, shortHash } from './format.js';
import { cellOutcome } from './verdict.js';
import { allowanceNote, displayCells, httpLabel, leaksLabel, phaseLabel, phaseOf, pinLabel, runVerdictLabel } from './view.js';

export const TABLE_HEADER = [
  'Pin (role)',
  'Node',
  'package version',
  'Tools',
  'Resource templates',
  'Prompts',
  'protocol',
  'leaked handles',
  'stdio',
  'HTTP (401 + round trip)',
  'bind refusal',
  'time',
] as const;

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
  const lines = [title, '', `${countLine(displayCells(run))} · exit code ${run.exitCode}`];
  if (run.interrupted) {
    lines.push('', 'The run was interrupted: cells and phases without a result are shown as not measured.');
  }
  return lines.join('\n');
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
  const rows = displayCells(run).map((cell) => tableRow(run, cell));
  const align = TABLE_HEADER.map((_, i) => (i >= 3 && i <= 5 ? '---:' : '---'));
  return [TABLE_HEADER, align, ...rows].map((cols) => `| ${cols.join(' | ')} |`).join('\n');
}

function tableRow(run: RunResult, cell: CellResult): string[] {
  const s = cell.summary;
  const count = (n: number | undefined): string => (n === undefined ? '—' : String(n));
  const environment = phaseOf(cell, 'environment');
  const notes = [pinLabel(cell)];
  if (cell.phases.length === 0) notes.push('no result');
  else if (environment.verdict !== 'passed') notes.push(`environment: ${phaseLabel(cell, environment)}`);
  const allowance = allowanceNote(cell);
  if (allowance) notes.push(allowance);
  const text = [
    notes.join(' — '),
    cell.environment?.node ?? '—',
    cell.environment?.package.version ?? run.plan.package.version,
    count(s.tools),
    count(s.resourceTemplates),
    count(s.prompts),
    s.protocolVersion ?? '—',
    leaksLabel(cell, phaseOf(cell, 'leaks')),
    phaseLabel(cell, phaseOf(cell, 'stdio')),
    httpLabel(cell, phaseOf(cell, 'http')),
    phaseLabel(cell, phaseOf(cell, 'bind')),
    cell.phases.length === 0 ? '—' : seconds(cell.durationMs),
  ];
  return text.map((t) => mdInline(t) || ' ');
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
  return `${line}\n\n${renderTable(run)}`;
}
