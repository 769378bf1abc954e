// mcp-matrix benchmark (`npm run bench [-- --reps N | --quick]`): compiled from bench/**/*.ts to bench/.build/
// by esbuild, type-checked with the project (`npm run typecheck`), measuring the built harness in dist/.
// Everything is measured side by side inside each repetition and reported as medians and ratios, each run
// in wall time and CPU-s (CPU-s / cores: the least wall time it could take); nothing here asserts a timing,
// it prints PASS/MISS against the targets of issues 6, 12 and 22.
//
//   1. the project's matrix at the default concurrency vs --concurrency 1              → ratio   (summary.ts)
//   2. per cell: harness vs the floor (bare npm install of the same set + the same server
//      processes driven by minimal-client.ts)                                           → ratio, ms per phase (cells.ts, floor.ts)
//   3. scaling: 4, 8, 16 cells (pins repeated with distinct ids), same concurrency       → time per cell
//   4. the orchestrator's peak RSS (its own, via probe-cli.ts; the tree's, via /usr/bin/time -v) and spawn log (spawns.ts)
//   5. axes: the cells × 2 clients × 2 Node releases (16 variants) vs the same cells alone (axes.ts)
//   6. yardsticks: the naive loop, a cold run, a warm re-run, `run --cell` after an edit (yardsticks.ts)
//   7. the driver's peak RSS under the flood fixture (flood.ts)
//
// Flags: see args.ts (`npm run bench -- --help`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HELP, parseArgs, type Options } from './measure/args.js';
import { summarizeAxes } from './sections/axes.js';
import { axesConfigs, scaleConfig, type AxesConfigs } from './measure/configs.js';
import { floodTargets, measureFlood } from './sections/flood.js';
import { floorFor, loadProject, packOnce, type Floor, type Project } from './measure/floor.js';
import { runCli, useTime, type Run } from './measure/harness.js';
import type { Full, Rep, Target } from './sections/rep.js';
import { renderAxes } from './render/render-axes.js';
import { renderMain } from './render/render-main.js';
import { summarize } from './sections/summary.js';
import { childCpuMs, CORES, gitHead, log, rel, ROOT, round, sec, sh, table } from './measure/util.js';
import { measureYardsticks } from './sections/yardsticks.js';
import { renderYardsticks, summarizeYardsticks } from './render/yardsticks-report.js';

const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

type Meta = ReturnType<typeof metaOf>;
function metaOf(o: Options, configFile: string) {
  return {
    date: new Date().toISOString(),
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    nproc: sh('nproc', []) ?? String(os.cpus().length),
    cores: CORES,
    cpu: os.cpus()[0]?.model,
    memGb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    npm: sh('npm', ['--version']),
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAtStart: os.loadavg().map((x) => round(x, 2)),
    git: gitHead(ROOT),
    dirtySrc: (sh('git', ['status', '--short', 'src'], { cwd: ROOT }) ?? '').split('\n').filter(Boolean),
    defaultConcurrency: CORES,
    reps: o.reps,
    quick: o.quick,
    scale: o.scale,
    memoryBy: useTime.on
      ? 'preload process.resourceUsage().maxRSS (orchestrator only) + /usr/bin/time -v (whole tree)'
      : 'preload process.resourceUsage().maxRSS (orchestrator only)',
    cpuBy: 'the bench process’s cutime + cstime (/proc/self/stat) around each run: the run and every process it reaped',
    config: rel(configFile),
    axes: undefined as
      | undefined
      | { clients: string[]; node: (number | string)[]; variants: number; only: boolean; baseline?: { dir: string; commit: string } },
    yardsticks: o.yardsticks && !o.axesOnly ? { naiveLoop: o.naiveLoop, only: o.yardsticksOnly } : undefined,
  };
}

/** Every section that ran, with every target. */
function summarizeAll(reps: Rep[], o: Options, nCells: number, axesWarmup: Run | undefined) {
  const main = reps[0]?.serial ? summarize(reps as Full[], o, nCells, CORES, useTime.on) : undefined;
  const axes = reps[0]?.axes ? summarizeAxes(reps, o, nCells, axesWarmup, useTime.on) : undefined;
  const yardsticks = summarizeYardsticks(reps);
  const targets: Target[] = [...(main?.targets ?? []), ...(axes?.targets ?? []), ...(yardsticks?.targets ?? []), ...floodTargets(reps)];
  return { main, axes, yardsticks, targets };
}

function render(s: ReturnType<typeof summarizeAll>, meta: Meta): string {
  const head = `mcp-matrix bench · ${meta.date} · ${meta.nproc} cores · node ${meta.node} · npm ${meta.npm} · reps ${meta.reps}${meta.quick ? ' (quick)' : ''} · medians`;
  const verdict = (t: Target): string => (t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'MISS');
  return [
    head,
    ...(s.main ? renderMain(s.main) : []),
    ...(s.axes ? [`\n${renderAxes(s.axes)}`] : []),
    ...(s.yardsticks ? [`\n${renderYardsticks(s.yardsticks)}`] : []),
    table(
      'targets',
      ['target', 'measured', 'result'],
      s.targets.map((t) => [t.name, t.shown, verdict(t)]),
    ),
  ].join('\n');
}

/** Sections 1–3: the project's matrix, each cell against its floor, scaling. */
async function measureMain(
  r: Rep,
  project: Project,
  configFile: string,
  tarball: string,
  scaleFiles: Record<number, string>,
  o: Options,
  tmp: string,
): Promise<void> {
  const run = (label: string, config: string, extra: string[] = []): Promise<Run> =>
    runCli({ label: `r${r.rep}-${label}`, config, extra, tmp });
  // Alternate the order of the paired runs so drift does not favour one side.
  if (r.rep % 2) [r.parallel, r.serial] = [await run('default', configFile), await run('c1', configFile, ['--concurrency', '1'])];
  else [r.serial, r.parallel] = [await run('c1', configFile, ['--concurrency', '1']), await run('default', configFile)];
  const floors: Floor[] = [];
  const cpu0 = childCpuMs();
  let t = performance.now();
  for (const [id, set] of Object.entries(r.serial.installSets)) floors.push(await floorFor(project, tarball, id, set, tmp));
  r.floorSerialWallMs = performance.now() - t;
  const cpu1 = childCpuMs();
  r.floorSerialCpuMs = cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0;
  r.floors = floors;
  // The same floor work with `CORES` workers: what this machine allows a parallel matrix at best.
  const queue = Object.entries(r.serial.installSets);
  t = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(CORES, queue.length) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await floorFor(project, tarball, `${next[0]}-par`, next[1], tmp);
    }),
  );
  r.floorParallelWallMs = performance.now() - t;
  log(`floor, all cells: ${sec(r.floorSerialWallMs)} one at a time, ${sec(r.floorParallelWallMs)} with ${CORES} workers`);
  r.scale = {};
  for (const n of o.scale) r.scale[n] = scaleFiles[n] ? await run(`scale${n}`, scaleFiles[n]) : r.parallel;
}

/** Section 5: the same cells alone and crossed with the axes, back to back, the order alternating. */
async function measureAxes(r: Rep, axes: AxesConfigs, env: NodeJS.ProcessEnv, baseBin: string | undefined, tmp: string): Promise<void> {
  const run = (label: string, config: string, e = env, bin?: string): Promise<Run> =>
    runCli({ label: `r${r.rep}-${label}`, config, env: e, tmp, ...(bin ? { bin } : {}) });
  const alone = (): Promise<Run> => run('alone', axes.alone);
  const crossed = (): Promise<Run> => run('axes', axes.crossed);
  // With --axes-baseline, the other checkout's run of the same crossed config sits on the other side of the
  // cells-alone run: odd repetitions run baseline, alone, axes; even ones axes, alone, baseline.
  const base = baseBin ? (): Promise<Run> => run('axes-base', axes.crossed, env, baseBin) : undefined;
  // The crossed run again with the client cache off: each client installed by the run itself.
  const cold = (): Promise<Run> => run('axes-nocache', axes.crossed, { ...env, MCP_MATRIX_CLIENT_CACHE: 'off' });
  if (base) {
    if (r.rep % 2) [r.axesBase, r.axesAlone, r.axes, r.axesCold] = [await base(), await alone(), await crossed(), await cold()];
    else [r.axesCold, r.axes, r.axesAlone, r.axesBase] = [await cold(), await crossed(), await alone(), await base()];
  } else if (r.rep % 2) [r.axesAlone, r.axes, r.axesCold] = [await alone(), await crossed(), await cold()];
  else [r.axesCold, r.axes, r.axesAlone] = [await cold(), await crossed(), await alone()];
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2), ROOT);
  if (o === 'help') return console.log(HELP);
  if (o.from) {
    // Re-render a saved run (no measuring): npm run bench -- --from bench/results/latest.json
    const doc = JSON.parse(readFileSync(path.resolve(o.from), 'utf8')) as { meta: Meta; reps: Rep[]; axesWarmup?: Run };
    useTime.on = doc.meta.memoryBy?.includes('/usr/bin/time') ?? false;
    const axes = doc.meta.axes ? { axesClients: doc.meta.axes.clients, axesNode: doc.meta.axes.node } : {};
    const opts = { ...o, reps: doc.meta.reps, scale: doc.meta.scale, axesOnly: Boolean(doc.meta.axes?.only), ...axes };
    const first = doc.reps[0]!;
    const nCells = first.serial?.cells.length ?? first.axesAlone?.cells.length ?? first.yardsticks?.cold.cells.length ?? 0;
    return console.log(render(summarizeAll(doc.reps, opts, nCells, doc.axesWarmup), doc.meta));
  }
  const configFile = path.resolve(ROOT, o.config);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'mcp-matrix-bench-'));
  const meta = metaOf(o, configFile);
  log(`machine: ${meta.nproc} cores, node ${meta.node}, npm ${meta.npm}; reps ${o.reps}; scale ${o.scale.join(',')}; tmp ${tmp}`);

  const project = await loadProject(configFile);
  const nCells = project.config.cells.length;
  const axes = o.axes ? await axesConfigs(project, o.axesClients, o.axesNode, tmp) : undefined;
  // The bench's own runtime and client caches: the warm-up fills them (cold), the repetitions run warm, as a user's second run does.
  const axesEnv = { MCP_MATRIX_NODE_CACHE: path.join(tmp, 'node-cache'), MCP_MATRIX_CLIENT_CACHE: path.join(tmp, 'client-cache') };
  meta.axes = axes && { clients: o.axesClients, node: o.axesNode, variants: axes.variants, only: o.axesOnly };
  const baseBin = o.axesBaseline && path.join(o.axesBaseline, 'bin', 'mcp-matrix.js');
  if (meta.axes && o.axesBaseline) {
    if (!existsSync(path.join(o.axesBaseline, 'dist', 'cli.js')))
      throw new Error(`--axes-baseline ${o.axesBaseline}: no dist/cli.js (build it)`);
    meta.axes.baseline = { dir: o.axesBaseline, commit: gitHead(o.axesBaseline) };
    log(`axes baseline: ${o.axesBaseline} @ ${meta.axes.baseline.commit}`);
  }
  const tarball = o.axesOnly || o.yardsticksOnly ? undefined : await packOnce(project, tmp);
  const scaleFiles: Record<number, string> = {};
  if (tarball) for (const n of o.scale) if (n !== nCells) scaleFiles[n] = await scaleConfig(project, n, tmp);

  let axesWarmup: Run | undefined;
  if (o.warmup) {
    log('warm-up: one matrix run (not counted) so the npm cache and the page cache are warm');
    if (!o.axesOnly) await runCli({ label: 'warmup', config: configFile, tmp });
    if (axes) axesWarmup = await runCli({ label: 'warmup-axes', config: axes.crossed, env: axesEnv, tmp });
  }

  const reps: Rep[] = [];
  for (let rep = 1; rep <= o.reps; rep++) {
    log(`repetition ${rep}/${o.reps}`);
    const r: Rep = { rep };
    if (axes) await measureAxes(r, axes, axesEnv, baseBin, tmp);
    if (tarball) await measureMain(r, project, configFile, tarball, scaleFiles, o, tmp);
    if (meta.yardsticks) r.yardsticks = await measureYardsticks(rep, project, configFile, o.naiveLoop, tmp);
    if (tarball) r.flood = await measureFlood(tmp);
    reps.push(r);
  }

  console.log(render(summarizeAll(reps, o, nCells, axesWarmup), meta));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = meta.date.replace(/[:.]/g, '-');
  const doc = `${JSON.stringify({ meta, summary: summarizeAll(reps, o, nCells, axesWarmup), reps, axesWarmup }, null, 2)}\n`;
  writeFileSync(path.join(RESULTS_DIR, `${stamp}.json`), doc);
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), doc);
  log(`wrote bench/results/${stamp}.json and bench/results/latest.json`);
  if (!o.keepTmp) await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
