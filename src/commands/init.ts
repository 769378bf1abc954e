// `mcp-matrix init`: write a matrix.config.ts from what the real server does (its surface, listed in a scratch cell)
// and a GitHub workflow that runs it as the required release job, so a new user starts from measured behaviour.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import type { Logger } from '../logger.js';
import type { HttpConfig } from '../config/define.js';
import { invocation } from '../orchestrator/invocation.js';
import { manifestInfo, type RawManifest } from '../plan/package-info.js';
import { planManifestLookup } from '../plan/claim-lookup.js';
import { majorClaims } from '../plan/sdk-claim.js';
import { DEFAULT_MAJORS } from '../config/majors.js';
import { createRegistry, type Registry } from '../plan/registry.js';
import type { CellResult } from '../results/types.js';
import { errorMessage, type Failure } from '../util/result.js';
import { parseHttp } from './init/args.js';
import { deriveInit, initCells, PRIMARIES, rangesLine } from './init/plan.js';
import { probeServer, type ServerProbe } from './init/probe.js';
import { exampleSteps, renderConfig, type Detected } from './init/config-template.js';
import { renderWorkflow } from './init/workflow-template.js';
import { detectRepo, workflowFileFor } from './init/repo.js';
import { strictLeg } from './init/strict-leg.js';

export const CONFIG_FILE = 'matrix.config.ts';
export const WORKFLOW_FILE = path.join('.github', 'workflows', 'mcp-matrix.yml');

export interface InitOptions {
  cwd: string;
  force: boolean;
  /** The server's HTTP arguments, one string (`--transport http --port {port}`). */
  http?: string;
  /** `KEY=VALUE` environment for the HTTP server, e.g. `MCP_TOKEN={token}`. */
  httpEnv?: string[];
  signal?: AbortSignal;
  /** Test seams: the registry and the scratch-cell probe. */
  registry?: Registry;
  probe?: ServerProbe;
  /** How the user started mcp-matrix, for the next-step lines. */
  command?: string;
}

export async function initCommand(options: InitOptions, log: Logger): Promise<number | Failure> {
  const manifestFile = path.join(options.cwd, 'package.json');
  let raw: RawManifest;
  try {
    raw = JSON.parse(await readFile(manifestFile, 'utf8')) as RawManifest;
  } catch (error) {
    return {
      kind: 'usage',
      message: `cannot read ${manifestFile}: ${errorMessage(error)}. Run mcp-matrix init in the directory of the MCP server package (where its package.json is).`,
    };
  }
  const registry = options.registry ?? createRegistry();
  // A server built on a framework declares no SDK range of its own: it claims the framework's.
  const claims = await majorClaims(
    manifestInfo(raw).ranges,
    DEFAULT_MAJORS,
    planManifestLookup({ kind: 'directory', dir: options.cwd }, registry),
  );
  if (!claims.ok) return claims.error;
  const derived = deriveInit(raw, claims.value);
  if (!derived.ok) return derived.error;
  const http = parseHttp(options.http, options.httpEnv ?? []);
  if (!http.ok) return http.error;

  // GitHub reads workflows only at the git root: a subpackage's goes there, with its working directory.
  const repoFound = detectRepo(options.cwd, typeof raw.engines?.node === 'string');
  if (!repoFound.ok) return repoFound.error;
  const { root, repo } = repoFound.value;
  const workflowShown = path.join(path.relative(options.cwd, root) || '.', workflowFileFor(repo));
  const targets = [path.join(options.cwd, CONFIG_FILE), path.join(root, workflowFileFor(repo))];
  const existing = targets.filter((f) => existsSync(f));
  if (existing.length > 0 && !options.force) {
    return {
      kind: 'usage',
      message: `refusing to overwrite ${existing.map((f) => path.relative(options.cwd, f)).join(' and ')}: nothing was written. Pass --force to replace ${existing.length > 1 ? 'them' : 'it'}.`,
    };
  }

  const plan = derived.value;
  const npmCells = await initCells(plan, registry);
  if (!npmCells.ok) return npmCells.error;
  const cells = { ...npmCells, value: [...npmCells.value, ...strictLeg(npmCells.value, repo)] };
  log.info(`mcp-matrix init: ${plan.name}, bin ${plan.bin}`);
  log.info(`  declared: ${rangesLine(plan)}`);
  log.info(`  cells: ${cells.value.map((c) => `${c.pin}${c.pin === c.version ? '' : ` → ${c.version}`} (${c.role})`).join(', ')}`);

  // The newest version any range admits: what a user installing the package today most likely gets.
  const newest = cells.value.reduce((a, b) => (semver.gt(b.version, a.version) ? b : a));
  const sdk = PRIMARIES.find((p) => p.major === semver.major(newest.version))!.name;
  log.info(
    `  starting ${plan.bin} over stdio${http.value ? ' and over HTTP' : ''} in a scratch cell: the packed package with ${sdk} ${newest.version}…`,
  );
  const started = performance.now();
  const probed = await (options.probe ?? probeServer)(
    {
      cwd: options.cwd,
      bin: plan.bin,
      pin: newest.version,
      ...(http.value ? { http: http.value } : {}),
      signal: options.signal ?? new AbortController().signal,
    },
    registry,
  );
  if (!probed.ok) return probed.error;
  const cell = probed.value;
  const failure = blockingFailure(cell);
  if (failure?.kind === 'infrastructure') return { ...failure, kind: 'infrastructure' };
  if (failure) {
    // The server's own behaviour: a verdict (exit 1), not a usage error.
    log.error(`mcp-matrix: ${failure.message}`);
    for (const d of failure.details ?? []) log.error(`  ${d}`);
    return 1;
  }

  const detected = detectedFrom(cell, sdk, http.value);
  showDetected(detected, cell, (performance.now() - started) / 1000, log);
  const [configFile, workflowFile] = targets as [string, string];
  await writeFile(configFile, renderConfig(plan, cells.value, detected));
  await mkdir(path.dirname(workflowFile), { recursive: true });
  await writeFile(workflowFile, renderWorkflow(repo));
  const examples = exampleSteps(detected).length;
  log.info(
    `wrote ${CONFIG_FILE} (${cells.value.length} cell${cells.value.length > 1 ? 's' : ''}; expect from the real surface; ${examples} example step${examples === 1 ? '' : 's'}, commented${http.value ? '' : '; http and bind: false'})`,
  );
  log.info(
    `wrote ${path.normalize(workflowShown)} (plan → pack once → one job per variant → merge; ${repo.pm}${repo.engines ? ', Node from engines.node' : ''})`,
  );
  if (repo.workingDirectory !== '.')
    log.info(
      `  the package is ${repo.workingDirectory} of the git repository at ${root}: GitHub reads workflows only from the root's .github/workflows, so the workflow is there, with working-directory ${repo.workingDirectory}`,
    );
  const command = options.command ?? invocation();
  log.info(`next: ${command} run     # every cell; results in matrix-results/`);
  return 0;
}

/** A scratch cell that could not list the surface leaves nothing to write from: say why, write nothing. */
function blockingFailure(cell: CellResult): (Omit<Failure, 'kind'> & { kind: 'infrastructure' | 'verdict' }) | undefined {
  const env = cell.phases.find((p) => p.phase === 'environment');
  const stdio = cell.phases.find((p) => p.phase === 'stdio');
  const bad = [env, stdio].find((p): p is NonNullable<typeof p> => p !== undefined && p.verdict !== 'passed');
  if (!bad) return undefined;
  const tail = bad.stderrTail ? [`the server's stderr ends with: ${bad.stderrTail.trim().split('\n').slice(-5).join(' | ')}`] : [];
  const hint = /ENOENT|MODULE_NOT_FOUND|not in the tarball|missing from the tarball/.test(`${bad.message} ${bad.stderrTail ?? ''}`)
    ? ['build the package first (npm pack packs what is on disk), then run init again']
    : [];
  return {
    kind: bad.verdict === 'not-measured' ? 'infrastructure' : 'verdict',
    message: `init could not list the server's surface: the ${bad.phase} phase ${bad.verdict === 'failed' ? 'failed' : 'could not be measured'}${bad.step ? ` at ${bad.step}` : ''}: ${bad.message ?? ''}. Nothing was written.`,
    details: [...tail, ...hint],
  };
}

function detectedFrom(cell: CellResult, sdk: string, http: HttpConfig | undefined): Detected {
  const stdio = cell.phases.find((p) => p.phase === 'stdio')!;
  const details = stdio.details ?? {};
  return {
    sdk: { name: sdk, version: cell.version },
    server: { name: cell.summary.serverName, version: cell.summary.serverVersion, protocol: cell.summary.protocolVersion },
    surface: details.surface ?? {},
    shapes: details.shapes ?? {},
    ...(http ? { http } : {}),
    phases: Object.fromEntries(cell.phases.map((p) => [p.phase, p])),
  };
}

function showDetected(d: Detected, cell: CellResult, seconds: number, log: Logger): void {
  log.info(
    `detected: ${d.server.name ?? '(no name)'} ${d.server.version ?? ''} over stdio with ${d.sdk.name} ${d.sdk.version}${d.server.protocol ? ` (protocol ${d.server.protocol})` : ''} in ${seconds.toFixed(1)} s`,
  );
  const label = { tools: 'tools', resources: 'resources', resourceTemplates: 'resource templates', prompts: 'prompts' } as const;
  for (const [kind, text] of Object.entries(label)) {
    const names = d.surface[kind];
    log.info(
      `  ${text}: ${names === undefined || names === null ? 'not advertised' : names.length === 0 ? 'none' : `(${names.length}) ${names.join(', ')}`}`,
    );
  }
  const http = d.phases.http;
  if (!d.http)
    log.info('  http: not tested (stdio only); for a Streamable HTTP transport, pass --http "<its args>" and --http-env KEY={token}');
  else if (http?.verdict === 'passed') log.info('  http: 401 without and with a wrong token, a full round trip with it');
  else log.warn(`http ${http?.verdict ?? 'not run'}: ${http?.message ?? ''} (written as given; the first run will show the same)`);
  const leaks = d.phases.leaks;
  if (leaks?.verdict === 'passed') log.info(`  leaks: exits by itself after stdin EOF${d.http ? ' and SIGTERM' : ''}, nothing left behind`);
  else
    log.warn(
      `leaks ${leaks?.verdict ?? 'not run'}: ${leaks?.message ?? ''} (the first run will fail there until the server exits by itself)`,
    );
  void cell;
}
