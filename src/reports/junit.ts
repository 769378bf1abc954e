// junit.xml: a <testsuite> per variant (per cell without axes; named by its id, grouped by cell), a
// <testcase> per phase and per sub-check (`http › origin`) whose classname is the variant id. Written by hand (no dependency),
// with every attribute and text escaped and characters illegal in XML 1.0 removed.

import type { CellResult, PhaseResult, RunResult, SubCheckResult } from '../results/types.js';
import { checkLine } from '../contract/checks.js';
import { PHASES } from '../results/types.js';
import { xmlAttr, xmlText } from './view/format.js';
import { parityJunit } from './view/parity-lines.js';
import { cellOutcome } from '../judge/verdict.js';
import { displayCells, handleText, phaseOf, recordedBehaviour, staleAdvice, variantLabel } from './view/view.js';

const secs = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
}

function property(name: string, value: string): string {
  return `<property${attrs({ name, value })}/>`;
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** How a test case counts: a phase by its verdict; a sub-check at level warn (or off) never fails or errs. */
type CaseKind = PhaseResult['verdict'];

function checkKind(c: SubCheckResult): CaseKind {
  if (c.outcome === 'skipped' || c.outcome === 'not-applicable' || c.outcome === 'contested' || c.level === 'off') return 'skipped';
  return c.level === 'warn' ? 'passed' : c.outcome;
}

/** Every test case of a variant's phases: each phase, then each of its sub-checks. */
function kinds(phases: PhaseResult[]): CaseKind[] {
  return phases.flatMap((p) => [p.verdict, ...(p.checks ?? []).map(checkKind)]);
}

function count(phases: PhaseResult[], stale = 0): Counts {
  const all = kinds(phases);
  return {
    tests: all.length + stale,
    failures: all.filter((k) => k === 'failed').length + stale,
    errors: all.filter((k) => k === 'not-measured').length,
    skipped: all.filter((k) => k === 'skipped').length,
  };
}

export function renderJunit(run: RunResult): string {
  const cells = displayCells(run);
  const suites = cells.map((cell) => suite(run, cell));
  const staleCount = cells.filter(isStale).length;
  const parity = parityJunit(run);
  const total = count(
    cells.flatMap((cell) => PHASES.map((p) => phaseOf(cell, p))),
    staleCount,
  );
  if (parity) {
    total.tests += parity.tests;
    total.failures += parity.failures;
  }
  // junit-10.xsd allows no `skipped` on the root (only on each testsuite).
  const { skipped: _skipped, ...rootCounts } = total;
  const head = `<testsuites${attrs({ name: `mcp-matrix ${run.plan.package.name}@${run.plan.package.version}`, ...rootCounts, time: secs(run.durationMs) })}>`;
  return ['<?xml version="1.0" encoding="UTF-8"?>', head, ...suites, ...(parity ? [parity.suite] : []), '</testsuites>', ''].join('\n');
}

const isStale = (cell: CellResult): boolean => cellOutcome(cell.verdict, cell.allowedToFail) === 'stale-allowance';

function suite(run: RunResult, cell: CellResult): string {
  const phases = PHASES.map((p) => phaseOf(cell, p));
  const stale = isStale(cell);
  const props = [
    ...(cell.id !== cell.cell ? [property('cell', cell.cell)] : []),
    ...(cell.client
      ? [
          property('client', cell.client.pin),
          property('client:package', cell.client.package),
          property('client:version', cell.client.version),
        ]
      : []),
    ...(cell.node ? [property('node', cell.node.spec), property('node:version', cell.node.version)] : []),
    ...(cell.summary.protocolVersion && (cell.client || cell.node) ? [property('protocol', cell.summary.protocolVersion)] : []),
    property('pin', cell.pin),
    property('version', cell.version),
    ...(cell.role ? [property('role', cell.role)] : []),
    property('major', String(cell.major)),
    property('allowedToFail', String(cell.allowedToFail)),
    property('outcome', cell.outcome),
    ...Object.entries(cell.installSet).map(([name, version]) => property(`install:${name}`, version)),
    property('repro', cell.repro),
  ];
  const open = `  <testsuite${attrs({
    name: `${cell.id} (${variantLabel(cell)})`,
    ...count(phases, stale ? 1 : 0),
    time: secs(cell.durationMs),
    timestamp: run.startedAt,
  })}>`;
  const body = [
    '    <properties>',
    ...props.map((p) => `      ${p}`),
    '    </properties>',
    ...phases.flatMap((p) => [testcase(cell, p), ...(p.checks ?? []).map((c) => checkCase(cell, p, c))]),
    ...(stale ? [staleCase(cell)] : []),
  ];
  return [open, ...body, '  </testsuite>'].join('\n');
}

/** A passing cell marked allowedToFail fails the run: shown as its own failing test case. */
function staleCase(cell: CellResult): string {
  const message = `stale allowance: every phase passed but the cell is marked allowedToFail; ${staleAdvice(cell)}`;
  return `    <testcase${attrs({ classname: cell.id, name: 'allowance', time: '0.000' })}>\n      <failure${attrs({ message, type: 'stale-allowance' })}>${xmlText(`\n${message}\nrepro: ${cell.repro}\n      `)}</failure>\n    </testcase>`;
}

function testcase(cell: CellResult, phase: PhaseResult): string {
  const open = `    <testcase${attrs({ classname: cell.id, name: phase.phase, time: secs(phase.durationMs) })}`;
  const message = phase.message ?? phase.verdict;
  switch (phase.verdict) {
    case 'passed':
      return `${open}/>`;
    case 'skipped':
      return `${open}>\n      <skipped${attrs({ message: phase.message === 'not configured' ? 'not configured (no key in the config)' : 'disabled in the config (not applicable)' })}/>\n    </testcase>`;
    case 'not-measured':
      return `${open}>\n      <error${attrs({ message, type: 'not-measured' })}>${xmlText(details(cell, phase))}</error>\n    </testcase>`;
    case 'failed': {
      // junit-10.xsd has no properties inside a testcase: the allowance is the failure's type (and the suite's property).
      const type = cell.allowedToFail ? 'allowed-failure' : 'failure';
      return `${open}>\n      <failure${attrs({ message, type })}>${xmlText(details(cell, phase))}</failure>\n    </testcase>`;
    }
  }
}

/**
 * A sub-check as its own test case, `http › origin`: a required check fails or errs as a phase does;
 * a warning passes with the finding in its output (JUnit has no warning); an `off` or inapplicable one is skipped.
 */
function checkCase(cell: CellResult, phase: PhaseResult, c: SubCheckResult): string {
  const open = `    <testcase${attrs({ classname: cell.id, name: `${phase.phase} › ${c.id}`, time: '0.000' })}`;
  const line = checkLine(c);
  const body = (extra: string[] = []): string => xmlText(`\n${[line, ...extra, `repro: ${cell.repro}`].join('\n')}\n      `);
  switch (checkKind(c)) {
    case 'skipped':
      // Not applicable: the message names the revision, the citation the text that has the requirement.
      // Contested: the rows disagree on isError; the parity suite's failure carries it.
      return `${open}>\n      <skipped${attrs({ message: c.outcome === 'not-applicable' || c.outcome === 'contested' ? line : c.message })}/>\n    </testcase>`;
    case 'not-measured':
      return `${open}>\n      <error${attrs({ message: line, type: 'not-measured' })}>${body()}</error>\n    </testcase>`;
    case 'failed': {
      const type = cell.allowedToFail ? 'allowed-failure' : 'failure';
      const evidence = c.evidence ? [`evidence: ${JSON.stringify(c.evidence, null, 2)}`] : [];
      return `${open}>\n      <failure${attrs({ message: line, type })}>${body(evidence)}</failure>\n    </testcase>`;
    }
    case 'passed':
      // A passed check that records what the server chose (answered or dropped, error or isError) says so.
      if (c.outcome === 'passed' && recordedBehaviour(c) === undefined) return `${open}/>`;
      return `${open}>\n      <system-out>${xmlText(c.outcome === 'passed' ? line : `WARN ${line}`)}</system-out>\n    </testcase>`;
  }
}

/** The failure body: the same evidence as the Markdown section, as plain text. */
function details(cell: CellResult, phase: PhaseResult): string {
  const out: string[] = [];
  if (phase.message) out.push(phase.message);
  if (cell.allowedToFail && phase.verdict === 'failed') out.push('(allowed to fail: does not fail the run)');
  if (phase.step) out.push(`step: ${phase.step}`);
  if (phase.stderrTail) out.push('stderr (last lines):', phase.stderrTail);
  if (phase.stdoutNoise?.length) out.push('stdout that is not JSON-RPC:', ...phase.stdoutNoise);
  const handles = phase.phase === 'leaks' ? (cell.summary.leakedHandles ?? []) : [];
  if (handles.length) out.push('live handles:', ...handles.map((h) => `  ${handleText(h)}`));
  if (phase.details && Object.keys(phase.details).length) out.push(`details: ${JSON.stringify(phase.details, null, 2)}`);
  out.push(`repro: ${cell.repro}`);
  return `\n${out.join('\n')}\n      `;
}
