// How results are read for display, shared by every renderer so that the Markdown table, the
// JUnit file and the annotations never disagree about a cell.

import type {
  CellResult,
  LeakedHandle,
  PhaseName,
  PhaseResult,
  PlannedCellRef,
  RunResult,
  SubCheckResult,
  VariantRef,
} from '../../results/types.js';
import { notableChecks } from '../../contract/checks.js';
import { plannedVariants, selectedVariants } from '../../results/variants.js';
import { cellOutcome } from '../../judge/verdict.js';

/**
 * The rows to show: one per variant, in plan order (so grouped by cell). A planned variant with no
 * result (interrupted run, lost piece) is shown as not measured with no phases, never silently
 * dropped; rows outside the plan follow.
 */
export function displayCells(run: RunResult): CellResult[] {
  const byId = new Map(run.cells.map((c) => [c.id, c]));
  // A `--cell` run shows its own variants; a full or merged run shows every planned one.
  const planned = selectedVariants(run.plan).map(({ cell, variant }) => byId.get(variant.id) ?? missingVariant(run, cell, variant));
  const plannedIds = new Set(plannedVariants(run.plan).map((row) => row.variant.id));
  return [...planned, ...run.cells.filter((c) => !plannedIds.has(c.id))];
}

function missingVariant(run: RunResult, ref: PlannedCellRef, variant: VariantRef): CellResult {
  const config = run.plan.configFile ? ` --config ${run.plan.configFile}` : '';
  const { variants: _variants, ...cell } = ref;
  return {
    ...cell,
    ...variant,
    cell: ref.id,
    verdict: 'not-measured',
    outcome: 'not-measured',
    phases: [],
    summary: { leakedHandles: null },
    durationMs: 0,
    repro: `npx mcp-matrix run${config} --cell ${variant.id}`,
  };
}

/**
 * The result of one phase of a cell. A phase with no recorded result (the cell was interrupted or
 * aborted before it) is shown as not measured, never as passed.
 */
export function phaseOf(cell: CellResult, phase: PhaseName): PhaseResult {
  return (
    cell.phases.find((p) => p.phase === phase) ?? {
      phase,
      verdict: 'not-measured',
      durationMs: 0,
      message: `no result was recorded for the ${phase} phase (the cell stopped before it ran)`,
    }
  );
}

/** The text of a phase cell in the table: `ok`, `FAIL`, `FAIL (allowed)`, `skipped (not configured)`, `not measured`. */
export function phaseLabel(cell: CellResult, phase: PhaseResult): string {
  switch (phase.verdict) {
    case 'passed':
      // Exposed nothing but refused nothing either: never shown as a plain `ok` refusal.
      return phase.phase === 'bind' && phase.details?.outcome === 'loopback-only' ? 'loopback only' : 'ok';
    case 'failed':
      return cell.allowedToFail ? 'FAIL (allowed)' : 'FAIL';
    case 'skipped':
      return skippedLabel(phase);
    case 'not-measured':
      return 'not measured';
  }
}

/**
 * The stdio column: the phase's label, then each contested check (`ok · session contested`): a row whose step the
 * cells disagree on is not a plain `ok` (the check table and the parity finding say why).
 */
export function stdioLabel(cell: CellResult, stdio: PhaseResult): string {
  const contested = (stdio.checks ?? []).filter((c) => c.outcome === 'contested' && c.level !== 'off');
  return [phaseLabel(cell, stdio), ...contested.map(checkLabel)].join(' · ');
}

/** `skipped (not configured)` / `skipped (disabled)`; `n/a` for results written before the reason was recorded. */
export function skippedLabel(phase: Pick<PhaseResult, 'message'>): string {
  return phase.message ? `skipped (${phase.message})` : 'n/a';
}

/**
 * The HTTP column: `ok` only when every sub-check passed; otherwise what each sub-check found, e.g.
 * `FAIL · no token 401, no challenge · wrong token 403 (want 401) · round trip ok`, or
 * `no auth · round trip ok` for `http.auth: 'none'` (the 401 checks are never shown as ok there).
 */
export function httpLabel(cell: CellResult, http: PhaseResult): string {
  const label = withChecks(legacyHttpLabel(cell, http), http, LEGACY_HTTP_CHECKS);
  return label;
}

/** The checks the HTTP column always showed in its own words (from `details.checks`). */
const LEGACY_HTTP_CHECKS = ['no-token-401', 'www-authenticate', 'wrong-token-401', 'round-trip'];

/**
 * A phase's label followed by each sub-check a reader must see (failed or not measured, at level
 * require or warn), e.g. `ok · warn origin 200 (want 403)`, `FAIL · protocol-version 200 (want 400)`.
 */
export function withChecks(label: string, phase: PhaseResult, shownElsewhere: readonly string[] = []): string {
  const shown = notableChecks(phase.checks ?? []).filter((c) => !shownElsewhere.includes(c.id));
  // What decides the verdict before what only warns.
  const ordered = [...shown.filter((c) => c.level === 'require'), ...shown.filter((c) => c.level !== 'require')];
  return [label, ...ordered.map(checkLabel)].join(' · ');
}

/** One sub-check in a table cell: `origin 200 (want 403)`, prefixed `warn` at level warn, `not measured` when so. */
export function checkLabel(c: SubCheckResult): string {
  const what = c.outcome === 'not-measured' ? 'not measured' : (c.short ?? c.message);
  return `${c.level === 'warn' ? 'warn ' : ''}${c.id} ${what}`;
}

/** What a check recorded the server chose where the spec allows a choice (`dropped`, `isError`, `accepts`). */
export function recordedBehaviour(c: SubCheckResult): string | undefined {
  const b = c.evidence?.behaviour;
  return typeof b === 'string' ? b : undefined;
}

/**
 * `pass`, `FAIL`, `warn`, `not measured`, `n/a (2025-03-26)` (the negotiated revision lacks the requirement),
 * `contested` (the rows disagree on isError and no `expect` says which is right), `—`
 * (skipped or off): one sub-check's outcome in the check table.
 */
export function checkOutcomeLabel(c: SubCheckResult | undefined, allowedToFail = false): string {
  if (!c || c.outcome === 'skipped') return '—';
  if (c.outcome === 'not-applicable') return `n/a (${c.revision ?? 'revision'})`;
  if (c.outcome === 'contested') return 'contested';
  if (c.outcome === 'passed') return recordedBehaviour(c) ? `pass (${recordedBehaviour(c)})` : 'pass';
  if (c.outcome === 'not-measured') return 'not measured';
  if (c.level === 'warn') return 'warn';
  return allowedToFail ? 'FAIL (allowed)' : 'FAIL';
}

function legacyHttpLabel(cell: CellResult, http: PhaseResult): string {
  const label = phaseLabel(cell, http);
  const checks = http.phase === 'http' ? http.details?.checks : undefined;
  if (!checks || http.verdict === 'skipped' || http.verdict === 'not-measured') return label;
  const all = [checks.noToken, checks.wwwAuthenticate, checks.wrongToken, checks.roundTrip];
  // The table text is the driver's; a round trip the cells disagree on was judged after it (judge/split-steps.ts).
  const contested = http.checks?.some((c) => c.id === 'round-trip' && c.outcome === 'contested' && c.level !== 'off');
  if (!contested && all.every((c) => c.outcome === 'ok')) return label;
  const roundTrip = `round trip ${contested ? 'contested' : checks.roundTrip.short}`;
  if (checks.noToken.outcome === 'no auth') return [...(http.verdict === 'passed' ? [] : [label]), 'no auth', roundTrip].join(' · ');
  const noToken = [checks.noToken.short, ...(checks.wwwAuthenticate.outcome === 'failed' ? [checks.wwwAuthenticate.short] : [])];
  return [label, `no token ${noToken.join(', ')}`, `wrong token ${checks.wrongToken.short}`, roundTrip].join(' · ');
}

/** The conformance column: `ok (6/6)`, `FAIL (ping, dns-rebinding-protection)`, and the suite's version. */
export function conformanceLabel(cell: CellResult, phase: PhaseResult): string {
  const label = phaseLabel(cell, phase);
  const scenarios = phase.phase === 'conformance' ? phase.details?.scenarios : undefined;
  if (!scenarios || phase.verdict === 'skipped') return label;
  const passed = scenarios.filter((s) => s.verdict === 'passed').length;
  const failed = scenarios.filter((s) => s.verdict === 'failed' && s.level !== 'warn').map((s) => s.name);
  const unmeasured = scenarios.filter((s) => s.verdict === 'not-measured').map((s) => s.name);
  const shown = scenarios.filter((s) => s.verdict === 'failed' && s.level === 'warn').map((s) => s.name);
  const parts = [
    `${passed}/${scenarios.length}`,
    ...(failed.length ? [failed.join(', ')] : []),
    ...(unmeasured.length ? [`not measured: ${unmeasured.join(', ')}`] : []),
    ...(shown.length ? [`warn: ${shown.join(', ')}`] : []),
  ];
  return `${label} (${parts.join('; ')})`;
}

/** The leaked-handles column: `none`, a count, `n/a`, `not measured`, prefixed by `FAIL` when the phase failed. */
export function leaksLabel(cell: CellResult, leaks: PhaseResult): string {
  if (leaks.verdict === 'skipped') return skippedLabel(leaks);
  if (leaks.verdict === 'not-measured') return 'not measured';
  const handles = cell.summary.leakedHandles;
  const count = handles === null ? null : handles.length === 0 ? 'none' : String(handles.length);
  if (leaks.verdict === 'passed') return count ?? 'not measured';
  const fail = phaseLabel(cell, leaks);
  return count === null || count === 'none' ? fail : `${fail} · ${count}`;
}

/** Upper-case verdict for titles. */
export function runVerdictLabel(verdict: RunResult['verdict']): string {
  return verdict.replace('-', ' ').toUpperCase();
}

/** The Pin (role) column: `latest@1 → 1.32.2 (latest supported 1.x)`, plus the Node adapter package on major 2. */
export function pinLabel(cell: Pick<CellResult, 'pin' | 'version' | 'role' | 'major' | 'installSet'>): string {
  let text = cell.pin === cell.version || cell.version === '' ? cell.pin : `${cell.pin} → ${cell.version}`;
  if (cell.role) text += ` (${cell.role})`;
  const node = cell.installSet['@modelcontextprotocol/node'];
  if (cell.major >= 2 && node) text += ` · adapter @modelcontextprotocol/node ${node}`;
  return text;
}

/** The Client column: `1.0.0 · 2024-11-05`, `latest@2 → 2.1.0 · 2025-06-18`; `own 1.32.2 · …` for the cell's own SDK. */
export function clientLabel(cell: Pick<CellResult, 'client' | 'version' | 'summary'>): string {
  const protocol = cell.summary.protocolVersion ?? '—';
  if (!cell.client) return `own ${cell.version || '—'} · ${protocol}`;
  const { pin, version } = cell.client;
  return `${pin === version ? pin : `${pin} → ${version}`} · ${protocol}`;
}

/**
 * The Node the server ran on: what the environment recorded (the host's without a Node axis); with
 * one, `22 → v22.11.0` from the plan, and what the server reported when that differs.
 */
export function nodeLabel(cell: Pick<CellResult, 'node' | 'environment'>): string {
  const measured = cell.environment?.node;
  if (!cell.node) return measured ?? '—';
  const exact = `v${cell.node.version.replace(/^v/, '')}`;
  const planned = cell.node.spec === cell.node.version ? exact : `${cell.node.spec} → ${exact}`;
  return measured && measured !== exact ? `${planned} (the server reported ${measured})` : planned;
}

/** `client @modelcontextprotocol/sdk@1.0.0 (pin 1.0.0) · Node 22 → v22.11.0`; empty without axes. */
export function axesLabel(cell: Pick<CellResult, 'client' | 'node' | 'environment'>): string {
  const parts = [
    ...(cell.client ? [`client ${cell.client.package}@${cell.client.version} (pin ${cell.client.pin})`] : []),
    ...(cell.node ? [`Node ${nodeLabel(cell)}`] : []),
  ];
  return parts.join(' · ');
}

/** The pin label, then the variant's client and Node when it has any: what a row is, in one line. */
export function variantLabel(
  cell: Pick<CellResult, 'pin' | 'version' | 'role' | 'major' | 'installSet' | 'client' | 'node' | 'environment'>,
): string {
  const axes = axesLabel(cell);
  return axes ? `${pinLabel(cell)} · ${axes}` : pinLabel(cell);
}

/**
 * What to do about a stale allowance, one sentence. A variant inherits its cell's allowance: when it
 * passes, the way out is the baseline, which can name just the variants that still fail.
 */
export function staleAdvice(cell: Pick<CellResult, 'id' | 'cell'>): string {
  return cell.id === cell.cell
    ? 'remove the allowance'
    : `remove allowedToFail from cell ${cell.cell} and list its variants that still fail in the baseline (mcp-matrix.baseline.json)`;
}

/** A note for the Pin column when the cell's allowance matters. */
export function allowanceNote(cell: CellResult): string | undefined {
  const outcome = cellOutcome(cell.verdict, cell.allowedToFail);
  if (outcome === 'stale-allowance') return 'STALE ALLOWANCE: passed while allowedToFail';
  if (outcome === 'allowed-failure') return 'allowed to fail';
  return undefined;
}

/** Phases that need a failure section: failed or not measured. */
export function problemPhases(cell: CellResult, phases: readonly PhaseName[]): PhaseResult[] {
  return phases.map((p) => phaseOf(cell, p)).filter((p) => p.verdict === 'failed' || p.verdict === 'not-measured');
}

/** `Timeout created by setInterval at dist/server.js:42 (server:stdio)`, unescaped. */
export function handleText(handle: LeakedHandle): string {
  let text = handle.type;
  if (handle.createdBy) text += ` created by ${handle.createdBy}`;
  text += handle.location ? ` at ${handle.location}` : ' (creation site unknown)';
  return `${text} (${handle.owner})`;
}
