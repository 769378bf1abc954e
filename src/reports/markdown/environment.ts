// `## Environment`: the host, the harness, the tarball, and per cell what was really installed.

import type { CellResult, EnvironmentEvidence, RunResult, SdkRuntime } from '../../results/types.js';
import { bytes, codeSpan, mdInline, seconds } from '../view/format.js';
import { axesFacts, installSourceLabel } from './failures.js';
import { displayCells, pinLabel } from '../view/view.js';

export function renderEnvironment(run: RunResult): string {
  const { host, plan } = run;
  const hostLine = [`Node ${host.node}`, `npm ${host.npm}`, host.os, ...(host.ci ? [`CI ${host.ci}`] : [])];
  const lines = [
    '## Environment',
    '',
    `- Host: ${mdInline(hostLine.join(' · '))}`,
    `- Harness: ${mdInline(`${run.tool.name} ${run.tool.version}`)}`,
    `- Package: ${codeSpan(`${plan.package.name}@${plan.package.version}`)}`,
    `- Tarball: ${codeSpan(plan.tarball.file)} · ${bytes(plan.tarball.size)} · sha512 ${codeSpan(plan.tarball.sha512)}`,
    `- Config: ${plan.configFile ? `${codeSpan(plan.configFile)} · ` : ''}hash ${codeSpan(plan.configHash)}`,
    `- Started ${mdInline(run.startedAt)} · finished ${mdInline(run.finishedAt)} · ${seconds(run.durationMs)}`,
  ];
  const cells = displayCells(run);
  const sections = cells.map((cell, i) => {
    // A cell's variants share its one server install: later variants name the first instead of repeating it.
    const first = cells.slice(0, i).find((c) => c.cell === cell.cell && c.environment);
    return first && sameInstall(first.environment!, cell.environment) ? sharedEnvironment(cell, first) : cellEnvironment(run, cell);
  });
  return [lines.join('\n'), ...sections].join('\n\n');
}

function cellEnvironment(run: RunResult, cell: CellResult): string {
  const head = `### ${mdInline(cell.id)}: ${mdInline(pinLabel(cell))}`;
  const installSet = Object.entries(cell.installSet)
    .map(([name, version]) => codeSpan(`${name}@${version}`))
    .join(', ');
  const env = cell.environment;
  const axes = axesFacts(cell);
  if (!env) {
    const facts = [
      ...axes,
      `- Install set: ${installSet || '—'}`,
      `- No environment evidence was recorded for this ${cell.id === cell.cell ? 'cell' : 'variant'}.`,
    ];
    return [head, facts.join('\n')].join('\n\n');
  }
  const facts = [
    ...axes,
    `- Node ${mdInline(env.node)} · npm ${mdInline(env.npm)} · ${mdInline(env.os)} · harness ${mdInline(env.harnessVersion)}`,
    `- Install set: ${installSet || '—'}`,
    `- Installed in ${seconds(env.installMs)}, ${env.installAttempts} ${env.installAttempts === 1 ? 'attempt' : 'attempts'} · lockfile sha256 ${env.lockfileSha256 ? codeSpan(env.lockfileSha256) : 'none'}`,
    ...(env.installSource ? [`- Server install: ${mdInline(installSourceLabel(env.installSource))}`] : []),
    `- Package: ${codeSpan(`${env.package.name}@${env.package.version}`)} from ${codeSpan(env.tarball.file)}${tarballNote(run, env)}`,
  ];
  const ranges = Object.entries(env.declaredRanges);
  if (ranges.length > 0) {
    facts.push(`- Declared SDK ranges: ${ranges.map(([n, r]) => `${codeSpan(n)} ${codeSpan(r)}`).join(', ')}`);
  }
  if (env.sdkClaim) facts.push(`- SDK range claimed ${mdInline(env.sdkClaim)}`);
  if (cell.cellDir) facts.push(`- Kept cell directory: ${codeSpan(cell.cellDir)}`);
  return [head, facts.join('\n'), sdkTable(env), ...loadedTable(env)].join('\n\n');
}

/** The same server install: lockfile, tarball and every SDK copy found in the tree. */
function sameInstall(a: EnvironmentEvidence, b: EnvironmentEvidence | undefined): boolean {
  const install = (e: EnvironmentEvidence) =>
    JSON.stringify([e.lockfileSha256, e.tarball.sha512, e.sdkPackages, e.declaredRanges, e.package, e.installMs, e.installAttempts]);
  return b !== undefined && a.lockfileSha256 !== undefined && install(a) === install(b);
}

function sharedEnvironment(cell: CellResult, first: CellResult): string {
  const env = cell.environment!;
  const facts = [
    ...axesFacts(cell),
    `- Node ${mdInline(env.node)} · npm ${mdInline(env.npm)} · ${mdInline(env.os)} · harness ${mdInline(env.harnessVersion)}`,
    `- Server install: the one of ${mdInline(first.id)} above (same lockfile sha256 ${codeSpan(env.lockfileSha256 ?? '')}, same SDK copies)`,
  ];
  if (cell.cellDir) facts.push(`- Kept cell directory: ${codeSpan(cell.cellDir)}`);
  return [`### ${mdInline(cell.id)}: ${mdInline(pinLabel(cell))}`, facts.join('\n'), ...loadedTable(env)].join('\n\n');
}

function tarballNote(run: RunResult, env: EnvironmentEvidence): string {
  return env.tarball.sha512 === run.plan.tarball.sha512
    ? ' (the packed tarball)'
    : ` (**sha512 differs from the packed tarball**: ${codeSpan(env.tarball.sha512)})`;
}

function sdkTable(env: EnvironmentEvidence): string {
  if (env.sdkPackages.length === 0) return 'No SDK package was found in the cell.';
  const rows = env.sdkPackages.map((p) => `| ${mdInline(p.name)} | ${mdInline(p.version)} | ${mdInline(p.path)} |`);
  return ['| SDK package | version | path |', '|---|---|---|', ...rows].join('\n');
}

/** What the running servers loaded: the copy the environment verdict rests on. */
function loadedTable(env: EnvironmentEvidence): string[] {
  if (!env.loadedSdk?.length) return [];
  const rows = env.loadedSdk.flatMap((o) =>
    o.copies.length
      ? o.copies.map((c) => `| ${mdInline(o.server)} | ${mdInline(c.name)} | ${mdInline(c.version)} | ${mdInline(c.path)} |`)
      : [`| ${mdInline(o.server)} | ${mdInline(nothingLoaded(o))} | | |`],
  );
  return [['| server | loaded SDK package | version | path |', '|---|---|---|---|', ...rows].join('\n')];
}

function nothingLoaded(o: SdkRuntime): string {
  if (!o.probe) return 'not observed (the probe did not load)';
  return o.answered ? 'none (answered without loading an SDK copy)' : 'none';
}
