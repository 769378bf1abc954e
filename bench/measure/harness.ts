// The harness under test: one `mcp-matrix run` as a child (the spawn probe preloaded, /usr/bin/time -v
// around it when present), summarised from its results.json into what every section reads.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/results/types.js';
import { phaseLifecycle, type PhaseLifecycle } from './lifecycle.js';
import { analyzeSpawns, installCounts, type Installs, type Orchestrator, type ProbeLog } from './spawns.js';
import { log, round, sec, sh, timed, ROOT, type Timed } from './util.js';

export const BIN = path.join(ROOT, 'bin', 'mcp-matrix.js');
// The probe runs compiled, beside this file's compiled copy in bench/.build/.
const PROBE = new URL('./probe-cli.js', import.meta.url).href;
const TIME = '/usr/bin/time';

export interface PhaseRow {
  verdict: string;
  durationMs: number;
  message?: string;
  /** Its lifecycle sub-checks (stdio, http), as the driver timed them. */
  lifecycle?: PhaseLifecycle;
  /** http: its spec sub-checks' wall time, as the driver timed it (absent in results from before it did). */
  specChecksMs?: number;
}
export interface CellRow {
  id: string;
  cell: string;
  client?: string;
  node?: string;
  version: string;
  verdict: string;
  durationMs: number;
  installMs: number | undefined;
  phases: Record<string, PhaseRow>;
}
export interface Run {
  label: string;
  wallMs: number;
  /** CPU-s of the whole run (the CLI, npm, the drivers, the servers), in ms. */
  cpuMs: number | undefined;
  load1: [number, number];
  exitCode: number | null;
  verdict: string;
  resultsDurationMs: number;
  installSets: Record<string, Record<string, string>>;
  cells: CellRow[];
  orchestrator: Orchestrator | undefined;
  installs: Installs | undefined;
  variants: number;
  ownMaxRssKb: number | undefined;
  ownVmHwmKb: number | undefined;
  treeMaxRssKb: number | undefined;
}

/** Whether /usr/bin/time -v works here (the process tree's peak RSS). */
export const useTime = { on: existsSync(TIME) && sh(TIME, ['-v', 'true']) !== undefined };

export interface CliRun {
  label: string;
  config: string;
  extra?: string[];
  env?: NodeJS.ProcessEnv;
  /** The environment `env` goes on top of (default: the bench's own). */
  baseEnv?: NodeJS.ProcessEnv;
  bin?: string;
  /** Where the run's directory goes (a fresh one under it). */
  tmp: string;
}

export async function runCli({ label, config, extra = [], env = {}, baseEnv = process.env, bin = BIN, tmp }: CliRun): Promise<Run> {
  const dir = await mkdtemp(path.join(tmp, `${label}-`));
  const out = path.join(dir, 'out');
  const probeFile = path.join(dir, 'probe.json');
  const timeFile = path.join(dir, 'time.txt');
  const node = [process.execPath, '--import', PROBE, bin, 'run', '--config', config, '--progress', 'silent', '--out', out, ...extra];
  const [cmd, ...args] = useTime.on ? [TIME, '-v', '-o', timeFile, ...node] : node;
  const loadBefore = os.loadavg()[0]!;
  const r = await timed(cmd!, args, { env: { ...baseEnv, ...env, MCP_MATRIX_BENCH_PROBE: probeFile } });
  const load: [number, number] = [round(loadBefore, 2), round(os.loadavg()[0]!, 2)];
  const results = await readFile(path.join(out, 'results.json'), 'utf8').then(
    (t) => JSON.parse(t) as RunResult,
    () => undefined,
  );
  if (!results)
    throw new Error(
      `${label}: no results.json (exit ${r.code ?? r.signal}): ${(r.stderr || r.stdout).trim().split('\n').slice(-8).join('\n')}`,
    );
  const probe = await readFile(probeFile, 'utf8').then(
    (t) => JSON.parse(t) as ProbeLog,
    () => undefined,
  );
  const timeText = useTime.on ? await readFile(timeFile, 'utf8').catch(() => '') : '';
  const treeMaxRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(timeText)?.[1]) || undefined;
  const run = summarizeRun(label, r, load, results, probe, treeMaxRssKb);
  const cpu = run.cpuMs === undefined ? '' : `, ${sec(run.cpuMs)} CPU`;
  log(
    `${label}: ${sec(run.wallMs)} wall${cpu}, ${run.cells.length} cell(s), verdict ${run.verdict}, exit ${run.exitCode}, load ${load.join('→')}`,
  );
  if (run.verdict !== 'passed')
    for (const c of run.cells.filter((x) => x.verdict !== 'passed'))
      log(
        `  ${c.id}: ${Object.entries(c.phases)
          .filter(([, p]) => p.verdict !== 'passed' && p.verdict !== 'skipped')
          .map(([k, p]) => `${k} ${p.verdict}: ${p.message ?? ''}`)
          .join('; ')}`,
      );
  return run;
}

function summarizeRun(
  label: string,
  r: Timed,
  load: [number, number],
  results: RunResult,
  probe: ProbeLog | undefined,
  treeMaxRssKb: number | undefined,
): Run {
  const cells: CellRow[] = results.cells.map((c) => ({
    id: c.id,
    cell: c.cell ?? c.id,
    ...(c.client ? { client: `${c.client.package}@${c.client.version}` } : {}),
    ...(c.node ? { node: c.node.version } : {}),
    version: c.version,
    verdict: c.verdict,
    durationMs: c.durationMs,
    installMs: c.environment?.installMs,
    phases: Object.fromEntries(
      c.phases.map((p) => {
        const lifecycle = phaseLifecycle(p.phase === 'stdio' || p.phase === 'http' ? p.details : undefined);
        const specChecksMs = p.phase === 'http' ? p.details?.specChecksMs : undefined;
        return [
          p.phase,
          {
            verdict: p.verdict,
            durationMs: p.durationMs,
            ...(p.verdict !== 'passed' ? { message: String(p.message ?? '').slice(0, 300) } : {}),
            ...(lifecycle ? { lifecycle } : {}),
            ...(typeof specChecksMs === 'number' ? { specChecksMs } : {}),
          },
        ];
      }),
    ),
  }));
  return {
    label,
    wallMs: r.wallMs,
    cpuMs: r.cpuMs,
    load1: load,
    exitCode: r.code,
    verdict: results.verdict,
    resultsDurationMs: results.durationMs,
    installSets: Object.fromEntries(results.plan.cells.map((c) => [c.id, c.installSet])),
    cells,
    orchestrator: probe ? analyzeSpawns(probe) : undefined,
    installs: probe ? installCounts(probe) : undefined,
    variants: results.plan.cells.reduce((a, c) => a + (c.variants?.length ?? 1), 0),
    ownMaxRssKb: probe?.maxRssKb,
    ownVmHwmKb: probe?.vmHwmKb,
    treeMaxRssKb,
  };
}
