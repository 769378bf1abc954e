// `## Failures`: one section per failed or not-measured phase (and per stale allowance), with
// everything needed to act on it: the message, the step, the server's output, the handles, the repro.

import type { CellResult, ClientInstallRef, InstallSourceRef, PhaseResult, RunResult } from '../../results/types.js';
import { PHASES } from '../../results/types.js';
import { cleanText, fenced, mdInline, seconds } from '../view/format.js';
import { cellOutcome } from '../../judge/verdict.js';
import { displayCells, handleText, nodeLabel, phaseLabel, pinLabel, problemPhases, variantLabel } from '../view/view.js';

/** Every failure section, under `## Failures`; empty when nothing failed. */
export function renderFailures(run: RunResult): string {
  const sections: string[] = [];
  for (const cell of displayCells(run)) {
    if (cell.phases.length === 0) {
      sections.push(noResultSection(cell));
      continue;
    }
    for (const phase of problemPhases(cell, PHASES)) sections.push(phaseSection(cell, phase));
    if (cellOutcome(cell.verdict, cell.allowedToFail) === 'stale-allowance') sections.push(staleSection(cell));
  }
  if (sections.length === 0) return '';
  return ['## Failures', ...sections].join('\n\n');
}

function heading(cell: CellResult, what: string): string {
  return `### ${mdInline(cell.id)} · ${what}`;
}

function phaseSection(cell: CellResult, phase: PhaseResult): string {
  const label = phaseLabel(cell, phase);
  const out: string[] = [heading(cell, phase.phase)];
  out.push(`**${label}**${phase.message ? `: ${mdInline(phase.message)}` : ''}`);
  const facts = [`- Cell: ${mdInline(pinLabel(cell))}`, ...axesFacts(cell)];
  if (cell.environment?.installSource) facts.push(`- Server install: ${mdInline(installSourceLabel(cell.environment.installSource))}`);
  if (phase.step) facts.push(`- Step: ${mdInline(phase.step)}`);
  if (phase.durationMs > 0) facts.push(`- Duration: ${seconds(phase.durationMs)}`);
  out.push(facts.join('\n'));
  if (phase.stderrTail && cleanText(phase.stderrTail).trim() !== '') {
    out.push('Server stderr (last lines):', fenced(phase.stderrTail, 'text'));
  }
  if (phase.stdoutNoise && phase.stdoutNoise.length > 0) {
    out.push('Server stdout that is not JSON-RPC:', fenced(phase.stdoutNoise.join('\n'), 'text'));
  }
  const handles = phase.phase === 'leaks' ? (cell.summary.leakedHandles ?? []) : [];
  if (handles.length > 0) out.push('Live handles:', handles.map((h) => `- ${mdInline(handleText(h))}`).join('\n'));
  if (phase.details && Object.keys(phase.details).length > 0) {
    out.push('Details:', fenced(JSON.stringify(phase.details, null, 2), 'json'));
  }
  out.push(...repro(cell));
  return out.join('\n\n');
}

/** The variant's client and Node, one fact each (none without axes). */
export function axesFacts(cell: CellResult): string[] {
  return [
    ...(cell.client
      ? [
          `- Client: ${mdInline(`${cell.client.package}@${cell.client.version} (pin ${cell.client.pin}) · protocol ${cell.summary.protocolVersion ?? '—'}`)}`,
        ]
      : []),
    ...(cell.clientInstall ? [`- Client install: ${mdInline(clientInstallLabel(cell.clientInstall))}`] : []),
    ...(cell.node ? [`- Node: ${mdInline(nodeLabel(cell))}`] : []),
  ];
}

/** Which client tree the driver loaded: where it came from, when it was installed, its lockfile. */
export function clientInstallLabel(ref: ClientInstallRef): string {
  const from =
    ref.source === 'run' ? 'installed by this run' : ref.source === 'cache' ? 'from the client cache' : 'installed into the client cache';
  return `${from} (${ref.installedAt.slice(0, 10)}) · package-lock.json sha256 ${ref.lockfileSha256.slice(0, 12)}…`;
}

/** Where the cell's node_modules came from: npm, or a reused tree npm resolved the same (docs/performance.md). */
export function installSourceLabel(ref: InstallSourceRef): string {
  if (ref.source === 'yarn-pnp') return `Yarn ${ref.yarn} install with Plug'n'Play (a strict layout; cache ${ref.store})`;
  if (ref.source === 'pnpm-strict') return `pnpm ${ref.pnpm} install with hoist=false (a strict layout; store ${ref.store})`;
  if (ref.source === 'reused' && ref.resolvedAt !== undefined)
    return `reused tree ${ref.entry} of the tree cache as npm resolved it at ${ref.resolvedAt} (${resolvedAgo(ref.ageMs ?? 0)}; \`--fresh\` to resolve now; package-lock.json sha256 ${ref.lockfileSha256.slice(0, 12)}…), ${ref.swapped ? "this run's tarball swapped in with no npm run" : "completed by npm with this run's tarball"}`;
  return ref.source === 'reused'
    ? `reused tree ${ref.entry} of the tree cache (npm resolved the same now; package-lock.json sha256 ${ref.lockfileSha256.slice(0, 12)}…), completed by npm with this run's tarball`
    : `npm install (${ref.reason})`;
}

/** "resolved 3 min ago": the age of a resolution reused within the window. */
export function resolvedAgo(ageMs: number): string {
  const s = Math.max(0, Math.round(ageMs / 1000));
  return `resolved ${s < 60 ? `${s} s` : `${Math.round(s / 60)} min`} ago`;
}

function noResultSection(cell: CellResult): string {
  const what = cell.id === cell.cell ? 'cell' : 'variant';
  return [
    heading(cell, 'no result'),
    `**not measured**: no result was recorded for this ${what} (${mdInline(variantLabel(cell))}).`,
    ...repro(cell),
  ].join('\n\n');
}

function staleSection(cell: CellResult): string {
  return [
    heading(cell, 'stale allowance'),
    cell.id === cell.cell
      ? '**FAIL**: every phase passed, but the cell is marked `allowedToFail`. The allowance is stale and fails the run: remove `allowedToFail` from this cell in the config.'
      : `**FAIL**: every phase of this variant passed, but its cell is marked \`allowedToFail\`. The allowance is stale for this variant and fails the run: remove \`allowedToFail\` from cell ${mdInline(cell.cell)} in the config and list its variants that still fail in the baseline (mcp-matrix.baseline.json).`,
    ...repro(cell),
  ].join('\n\n');
}

function repro(cell: CellResult): string[] {
  const out = ['Reproduce:', fenced(cell.repro, 'sh')];
  if (cell.cellDir) out.push(`Kept cell directory: ${mdInline(cell.cellDir)}`);
  return out;
}
