// matrix.md: the title, the table in ADR-0007's form, the sub-checks, one section per failure, the environment,
// the warnings. Pure and deterministic: the same results.json always renders the same bytes.

import type { CellResult, RunResult } from '../../results/types.js';
import { renderEnvironment } from './environment.js';
import { renderChecks } from './checks.js';
import { BEFORE_CONFORMANCE } from '../json/json.js';
import { renderFailures } from './failures.js';
import { codeSpan, mdInline, seconds, shortHash } from '../view/format.js';
import { cellOutcome, judgeBaseline, runReasons, storedFacts } from '../../judge/verdict.js';
import { hasAxes } from '../../results/variants.js';
import { parityMarkdown } from '../view/parity-lines.js';
import {
  allowanceNote,
  clientLabel,
  displayCells,
  conformanceLabel,
  httpLabel,
  leaksLabel,
  nodeLabel,
  phaseLabel,
  phaseOf,
  pinLabel,
  runVerdictLabel,
  stdioLabel,
} from '../view/view.js';

interface Column {
  header: string;
  align: '---' | '---:';
  value(run: RunResult, cell: CellResult): string;
  /** A column whose value is the same on every row moves to the header (e.g. one Node.js for all cells). */
  constant?: string;
}

const CLIENT = 'Client (pin → version, protocol)';
const PROTOCOL = 'protocol';
const CONFORMANCE = 'conformance suite';

const count = (n: number | undefined): string => (n === undefined ? '—' : String(n));

const COLUMNS: Column[] = [
  { header: 'Pin (role)', align: '---', value: (_run, cell) => pinNotes(cell) },
  { header: CLIENT, align: '---', value: (_run, cell) => clientLabel(cell) },
  { header: 'Node.js', align: '---', value: (_run, cell) => nodeLabel(cell), constant: 'Node.js' },
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
  { header: PROTOCOL, align: '---', value: (_run, cell) => cell.summary.protocolVersion ?? '—' },
  { header: 'leaked handles', align: '---', value: (_run, cell) => leaksLabel(cell, phaseOf(cell, 'leaks')) },
  { header: 'stdio', align: '---', value: (_run, cell) => stdioLabel(cell, phaseOf(cell, 'stdio')) },
  { header: 'HTTP (401 + round trip)', align: '---', value: (_run, cell) => httpLabel(cell, phaseOf(cell, 'http')) },
  { header: 'bind refusal', align: '---', value: (_run, cell) => phaseLabel(cell, phaseOf(cell, 'bind')) },
  { header: CONFORMANCE, align: '---', value: (_run, cell) => conformanceLabel(cell, phaseOf(cell, 'conformance')) },
  { header: 'time', align: '---', value: (_run, cell) => (cell.phases.length === 0 ? '—' : seconds(cell.durationMs)) },
];

/** With a client axis the Client column (pin → version, protocol) replaces the protocol column; without, the table is as it always was. */
function columnsOf(run: RunResult): Column[] {
  const clients = displayCells(run).some((c) => c.client !== undefined);
  // Evidence recorded before the phase existed renders as it did: without the column.
  const before = run.cells.every((c) => phaseOf(c, 'conformance').message === BEFORE_CONFORMANCE);
  return COLUMNS.filter((c) => c.header !== (clients ? PROTOCOL : CLIENT) && !(before && c.header === CONFORMANCE));
}

/** Columns with one value on every row (two rows or more, cells without a result aside): name → value. */
export function constantColumns(run: RunResult): Map<string, string> {
  const cells = displayCells(run);
  const out = new Map<string, string>();
  if (cells.length < 2) return out;
  for (const column of columnsOf(run)) {
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
  return `${[...constants].map(([name, value]) => `${name} ${mdInline(value)}`).join(' · ')} (every ${hasAxes(run.plan) ? 'variant' : 'cell'})`;
}

/** The whole report: title, table, sub-checks, failures, environment, warnings. */
export function renderMarkdown(run: RunResult): string {
  const parts = [renderTitle(run), renderTable(run), renderChecks(run), renderFailures(run), renderEnvironment(run), renderWarnings(run)];
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
  const lines = [title, '', `${countLine(run)} · exit code ${run.exitCode}`, ...surfaceLines(run), ...parityMarkdown(run)];
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
  const unit = (k: number): string => `${hasAxes(run.plan) ? 'variant' : 'cell'}${k === 1 ? '' : 's'}`;
  const failing = s.findings.length + (s.drift?.length ?? 0);
  const snapshot = s.drift === undefined ? '' : s.drift.length === 0 ? ' · snapshot: matches mcp-surface.json' : '';
  const head =
    n === 0
      ? 'surface: not compared (no stdio run listed a surface)'
      : failing === 0
        ? `surface: identical on ${n} ${unit(n)}${s.allowed.length ? ` but for ${s.allowed.length} allowed difference${s.allowed.length === 1 ? '' : 's'}` : ''}${snapshot}`
        : `surface: ${failing} difference${failing === 1 ? '' : 's'} on ${n} ${unit(n)}`;
  return [
    '',
    head,
    ...s.findings.map((f) => `- differs: ${mdInline(f)}`),
    ...(s.drift ?? []).map((d) => `- changed since mcp-surface.json: ${mdInline(d)}`),
    ...s.allowed.map((a) => `- allowed: ${mdInline(a)}`),
  ];
}

/** `4 cells: 3 passed, 1 failed`; with axes `8 variants of 4 cells: …`. */
function countLine(run: RunResult): string {
  const cells = displayCells(run);
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
  const counted = parts.length ? `: ${parts.join(', ')}` : '';
  if (!hasAxes(run.plan)) return `${cells.length} ${cells.length === 1 ? 'cell' : 'cells'}${counted}`;
  const groups = new Set(cells.map((c) => c.cell)).size;
  return `${cells.length} ${cells.length === 1 ? 'variant' : 'variants'} of ${groups} ${groups === 1 ? 'cell' : 'cells'}${counted}`;
}

/** The table alone, one row per planned variant grouped by cell (what `publishInto` puts between the markers). */
export function renderTable(run: RunResult): string {
  const constants = constantColumns(run);
  const columns = columnsOf(run).filter((c) => !constants.has(c.header));
  const cells = displayCells(run);
  const rows = cells.map((cell, i) =>
    columns.map((c) => {
      // A cell's later variants repeat its pin as a ditto mark, so the rows read as one group.
      const value = c.header === 'Pin (role)' && i > 0 && cells[i - 1]!.cell === cell.cell ? dittoNotes(cell) : c.value(run, cell);
      return mdInline(value) || ' ';
    }),
  );
  return [columns.map((c) => c.header), columns.map((c) => c.align), ...rows].map((cols) => `| ${cols.join(' | ')} |`).join('\n');
}

function pinNotes(cell: CellResult, pin = pinLabel(cell)): string {
  const environment = phaseOf(cell, 'environment');
  const notes = [pin];
  if (cell.phases.length === 0) notes.push('no result');
  else if (environment.verdict !== 'passed') notes.push(`environment: ${phaseLabel(cell, environment)}`);
  const allowance = allowanceNote(cell);
  if (allowance) notes.push(allowance);
  return notes.join(' — ');
}

function dittoNotes(cell: CellResult): string {
  return pinNotes(cell, '″');
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
