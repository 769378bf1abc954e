#!/usr/bin/env node
// mcp-matrix benchmark (`npm run bench [-- --reps N | --quick]`). Plain Node, no dependencies beyond the
// built harness in dist/. Everything is measured side by side inside each repetition and reported as
// medians and ratios; nothing here asserts a timing, it prints PASS/MISS against the targets of issue 6.
//
//   1. the project's matrix at the default concurrency vs --concurrency 1           → ratio
//   2. per cell: harness wall time vs the floor (bare npm install of the same set +
//      the same server processes driven by bench/minimal-client.mjs)               → ratio, ms per phase
//   3. scaling: 4, 8, 16 cells (pins repeated with distinct ids), same concurrency  → time per cell
//   4. the orchestrator's peak RSS (its own, via a preload; and the process tree's, via /usr/bin/time -v)
//   5. axes (issue 12): the 4 cells × 2 clients × 2 Node releases (16 variants) vs the same 4 cells alone,
//      back to back in each repetition → ratio (≤ 2.0×), installs per kind (server, client, runtime),
//      time per variant, the orchestrator's peak RSS (< 200 MB). The bench's runtime and client caches are
//      filled by the warm-up; each repetition also runs the crossed config with the client cache off.
//
// Flags: --reps N (default 3) · --quick (1 rep, scale points 4 and 8) · --scale 4,8,16 ·
//        --config FILE (default matrix.config.ts) · --no-warmup · --keep-tmp · --from FILE (re-render a saved run) ·
//        --axes-only (section 5 alone) · --no-axes · --axes-clients latest@1,latest@2 · --axes-node 20,22 ·
//        --axes-baseline DIR (also run the crossed config with another built checkout's bin in each repetition:
//        before/after ratios against the same cells-alone run)
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runMinimal } from './minimal-client.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-matrix.js');
const PROBE = pathToFileURL(path.join(ROOT, 'bench', 'probe-cli.mjs')).href;
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
const TIME = '/usr/bin/time';
const RUN_BOUND_MS = 20 * 60_000;

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const o = {
    reps: 3,
    quick: false,
    scale: undefined,
    config: 'matrix.config.ts',
    warmup: true,
    keepTmp: false,
    axes: true,
    axesOnly: false,
    axesClients: ['latest@1', 'latest@2'],
    axesNode: [20, 22],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') o.quick = true;
    else if (a.startsWith('--reps')) o.reps = Number(val());
    else if (a.startsWith('--scale')) o.scale = val().split(',').map(Number);
    else if (a.startsWith('--config')) o.config = val();
    else if (a === '--no-warmup') o.warmup = false;
    else if (a.startsWith('--from')) o.from = val();
    else if (a === '--keep-tmp') o.keepTmp = true;
    else if (a === '--axes-only') o.axesOnly = true;
    else if (a === '--no-axes') o.axes = false;
    else if (a.startsWith('--axes-clients')) o.axesClients = val().split(',');
    else if (a.startsWith('--axes-baseline')) o.axesBaseline = path.resolve(val());
    else if (a.startsWith('--axes-node'))
      o.axesNode = val()
        .split(',')
        .map((v) => (/^\d+$/.test(v) ? Number(v) : v));
    else if (a === '--help' || a === '-h') {
      console.log(
        'node bench/run.mjs [--reps N] [--quick] [--scale 4,8,16] [--config FILE] [--no-warmup] [--keep-tmp] [--axes-only | --no-axes] [--axes-clients a,b] [--axes-node 20,22] [--axes-baseline DIR]',
      );
      process.exit(0);
    } else throw new Error(`unknown flag ${a}`);
  }
  if (o.quick) {
    if (!argv.some((a) => a.startsWith('--reps'))) o.reps = 1;
    o.scale ??= [4, 8];
  }
  o.scale ??= [4, 8, 16];
  if (!Number.isInteger(o.reps) || o.reps < 1) throw new Error('--reps must be a positive integer');
  if (o.axesOnly && !o.axes) throw new Error('--axes-only and --no-axes exclude each other');
  if (o.scale.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--scale takes cell counts, e.g. 4,8,16');
  return o;
}

// ---------------------------------------------------------------- small helpers
const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const round = (x, d = 0) => (x === undefined ? undefined : Math.round(x * 10 ** d) / 10 ** d);
const ms = (x) => (x === undefined ? '–' : `${Math.round(x)} ms`);
const sec = (x) => (x === undefined ? '–' : `${(x / 1000).toFixed(1)} s`);
const pct = (x) => (x === undefined ? '–' : `${(x * 100).toFixed(1)} %`);
const ratio = (x) => (x === undefined ? '–' : `${x.toFixed(2)}x`);
const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

function table(title, head, rows) {
  const all = [head, ...rows].map((r) => r.map((c) => String(c ?? '–')));
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => `  ${r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ')}`;
  return [`\n${title}`, line(all[0]), `  ${w.map((n) => '-'.repeat(n)).join('  ')}`, ...all.slice(1).map(line)].join('\n');
}

function sh(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], ...opts }).trim();
  } catch {
    return undefined;
  }
}

/** Run a child in its own process group; resolve with wall time, exit code and output tails. */
function timed(cmd, args, { cwd = ROOT, env = process.env, boundMs = RUN_BOUND_MS } = {}) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child.pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out = (out + d).slice(-20_000)));
    child.stderr.on('data', (d) => (err = (err + d).slice(-20_000)));
    const timer = setTimeout(() => killGroup(child.pid), boundMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      resolve({ wallMs: performance.now() - t0, code, signal, stdout: out, stderr: err });
    });
  });
}

const running = new Set();
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}
process.on('SIGINT', () => {
  for (const pid of running) killGroup(pid);
  process.exit(130);
});

// ---------------------------------------------------------------- the harness under test
let tmpRoot;
let useTime = false;

async function runCli(label, config, extra = [], env = {}, bin = BIN) {
  const dir = await mkdtemp(path.join(tmpRoot, `${label}-`));
  const out = path.join(dir, 'out');
  const probeFile = path.join(dir, 'probe.json');
  const timeFile = path.join(dir, 'time.txt');
  const node = [process.execPath, '--import', PROBE, bin, 'run', '--config', config, '--progress', 'silent', '--out', out, ...extra];
  const [cmd, ...args] = useTime ? [TIME, '-v', '-o', timeFile, ...node] : node;
  const loadBefore = os.loadavg()[0];
  const r = await timed(cmd, args, { env: { ...process.env, ...env, MCP_MATRIX_BENCH_PROBE: probeFile } });
  r.load = [round(loadBefore, 2), round(os.loadavg()[0], 2)];
  const results = await readFile(path.join(out, 'results.json'), 'utf8').then(JSON.parse, () => undefined);
  if (!results)
    throw new Error(
      `${label}: no results.json (exit ${r.code ?? r.signal}): ${(r.stderr || r.stdout).trim().split('\n').slice(-8).join('\n')}`,
    );
  const probe = await readFile(probeFile, 'utf8').then(JSON.parse, () => undefined);
  const timeText = useTime ? await readFile(timeFile, 'utf8').catch(() => '') : '';
  const treeMaxRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(timeText)?.[1]) || undefined;
  const run = summarizeRun(label, r, results, probe, treeMaxRssKb);
  log(
    `${label}: ${sec(run.wallMs)} wall, ${run.cells.length} cell(s), verdict ${run.verdict}, exit ${run.exitCode}, load ${r.load.join('→')}`,
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

function summarizeRun(label, r, results, probe, treeMaxRssKb) {
  const cells = results.cells.map((c) => ({
    id: c.id,
    cell: c.cell ?? c.id,
    ...(c.client ? { client: `${c.client.package}@${c.client.version}` } : {}),
    ...(c.node ? { node: c.node.version } : {}),
    version: c.version,
    verdict: c.verdict,
    durationMs: c.durationMs,
    installMs: c.environment?.installMs,
    phases: Object.fromEntries(
      c.phases.map((p) => [
        p.phase,
        {
          verdict: p.verdict,
          durationMs: p.durationMs,
          ...(p.verdict !== 'passed' ? { message: String(p.message ?? '').slice(0, 300) } : {}),
        },
      ]),
    ),
  }));
  return {
    label,
    wallMs: r.wallMs,
    load1: r.load,
    exitCode: r.code,
    verdict: results.verdict,
    resultsDurationMs: results.durationMs,
    installSets: Object.fromEntries(results.plan.cells.map((c) => [c.id, c.installSet])),
    cells,
    orchestrator: probe ? analyzeSpawns(probe, results) : undefined,
    installs: probe ? installCounts(probe) : undefined,
    variants: results.plan.cells.reduce((a, c) => a + (c.variants?.length ?? 1), 0),
    ownMaxRssKb: probe?.maxRssKb,
    ownVmHwmKb: probe?.vmHwmKb,
    treeMaxRssKb,
  };
}

/** What the orchestrator process itself spawned and when: counts, ordering and overlap. */
function analyzeSpawns(probe, results) {
  const t0 = probe.startedAt;
  const key = (s) => {
    const base = path.basename(s.command);
    if (s.kind === 'fork') return 'driver (fork)';
    if (base === 'npm' || base === 'npm-cli.js') {
      const [a, b] = s.args;
      if (a === 'config') return `npm config ${b ?? ''}`.trim();
      if (a === 'view') return 'npm view';
      if (a?.startsWith('--')) return `npm ${a}`;
      return `npm ${a ?? ''}`.trim();
    }
    return base;
  };
  const counts = {};
  for (const s of probe.spawns) counts[key(s)] = (counts[key(s)] ?? 0) + 1;
  const cellOf = (s) => /cell-([^/]+)/.exec(s.cwd ?? '')?.[1];
  const installs = probe.spawns
    .filter((s) => key(s) === 'npm install')
    .map((s) => ({ cell: cellOf(s), start: s.start - t0, end: (s.end ?? probe.exitedAt) - t0 }));
  const drivers = probe.spawns
    .filter((s) => s.kind === 'fork')
    .map((s) => ({ cell: cellOf(s), start: s.start - t0, end: (s.end ?? probe.exitedAt) - t0 }));
  const pack = probe.spawns
    .filter((s) => key(s) === 'npm pack')
    .map((s) => ({ start: s.start - t0, end: (s.end ?? probe.exitedAt) - t0 }))[0];
  const firstInstall = Math.min(...installs.map((i) => i.start));
  // An install that starts while another cell's driver runs: installs and phases overlap.
  const installsDuringOtherPhases = installs.filter((i) =>
    drivers.some((d) => d.cell !== i.cell && d.start < i.end && d.end > i.start),
  ).length;
  const lastEnd = Math.max(...drivers.map((d) => d.end), ...installs.map((i) => i.end));
  // Per cell: install start → driver end; the sum over the span is the average number of busy cells.
  const busy = installs.map((i) => (drivers.find((d) => d.cell === i.cell)?.end ?? i.end) - i.start).reduce((a, b) => a + b, 0);
  const gapsInstallToDriver = installs
    .map((i) => {
      const d = drivers.find((x) => x.cell === i.cell);
      return d ? d.start - i.end : undefined;
    })
    .filter((x) => x !== undefined);
  const perCell = Object.fromEntries(
    installs.map((i) => {
      const d = drivers.find((x) => x.cell === i.cell);
      return [i.cell, { installStart: i.start, installEnd: i.end, driverStart: d?.start, driverEnd: d?.end }];
    }),
  );
  return {
    counts,
    perCell,
    beforeFirstSpawnMs: probe.spawns.length ? probe.spawns[0].start - t0 : undefined,
    packStartMs: pack?.start,
    packMs: pack ? pack.end - pack.start : undefined,
    packBeforeInstalls: pack ? installs.every((i) => i.start >= pack.end) : undefined,
    firstInstallMs: Number.isFinite(firstInstall) ? firstInstall : undefined,
    installsDuringOtherPhases,
    installs: installs.length,
    averageBusyCells: lastEnd > firstInstall ? busy / (lastEnd - firstInstall) : undefined,
    installEndToDriverStartMs: median(gapsInstallToDriver),
    afterLastCellMs: probe.exitedAt - t0 - lastEnd,
    processLifetimeMs: probe.exitedAt - t0,
    results: { durationMs: results.durationMs },
  };
}

/**
 * Installs by kind, from the orchestrator's spawn log: a server install is an `npm install` in a cell's
 * directory, a client install one under `<run dir>/clients/`, a runtime install an `npm pack` of a Node
 * binary package (`node-<platform>-<arch>@<version>`; a cached or host runtime spawns nothing).
 */
function installCounts(probe) {
  const npm = (s) => ['npm', 'npm-cli.js', 'npm.cmd'].includes(path.basename(s.command));
  const installs = probe.spawns.filter((s) => npm(s) && s.args[0] === 'install');
  const dir = (s) => (s.cwd ?? '').split(path.sep).join('/');
  const runtime = probe.spawns.filter((s) => npm(s) && s.args[0] === 'pack' && /^node-[a-z0-9]+-[a-z0-9]+@/.test(s.args[1] ?? ''));
  const servers = installs.filter((s) => /\/cell-[^/]+$/.test(dir(s)));
  // Into the run (`<run dir>/clients/<id>`, cache off) or a new entry of the client cache (`<key>/.partial-…`).
  const clients = installs.filter((s) => /\/clients\/[^/]+$/.test(dir(s)) || /\/[^/]+@[^/]+-[0-9a-f]{12}\/\.partial-[^/]+$/.test(dir(s)));
  const drivers = probe.spawns.filter((s) => s.kind === 'fork');
  const life = (s) => (s.end ?? probe.exitedAt) - s.start;
  const sum = (xs) => xs.reduce((a, x) => a + life(x), 0);
  const t0 = probe.startedAt;
  return {
    server: servers.length,
    client: clients.length,
    runtime: runtime.length,
    other: installs.length - servers.length - clients.length,
    runtimeMs: sum(runtime),
    drivers: drivers.length,
    // Where the time goes: the work of each kind (summed process lifetimes) and when each kind began.
    work: { serverMs: sum(servers), clientMs: sum(clients), driverMs: sum(drivers) },
    medianMs: { server: median(servers.map(life)), client: median(clients.map(life)), driver: median(drivers.map(life)) },
    firstMs: {
      server: servers.length ? Math.min(...servers.map((s) => s.start)) - t0 : undefined,
      client: clients.length ? Math.min(...clients.map((s) => s.start)) - t0 : undefined,
      driver: drivers.length ? Math.min(...drivers.map((s) => s.start)) - t0 : undefined,
    },
    lastEndMs: Math.max(0, ...[...installs, ...drivers].map((s) => (s.end ?? probe.exitedAt) - t0)),
  };
}

// ---------------------------------------------------------------- the floor
async function loadProject(configFile) {
  const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist', p)).href);
  const [{ loadConfig }, { resolveConfig }, { readPackageDir, readTarball, pickBin }] = await Promise.all([
    dist('config/load.js'),
    dist('config/resolve.js'),
    dist('plan/package-info.js'),
  ]);
  const loaded = await loadConfig(ROOT, configFile);
  if (!loaded.ok) throw new Error(`cannot load ${configFile}: ${loaded.error.message}`);
  const config = resolveConfig(loaded.value, {}, ROOT);
  const info = config.source.kind === 'directory' ? await readPackageDir(config.source.dir) : await readTarball(config.source.file);
  if (!info.ok) throw new Error(info.error.message);
  const bin = pickBin(info.value, config.bin);
  if (!bin.ok) throw new Error(bin.error.message);
  return { raw: loaded.value.config, config, info: info.value, bin: bin.value };
}

async function packOnce(project) {
  const dir = path.join(tmpRoot, 'pack');
  mkdirSync(dir, { recursive: true });
  if (project.config.source.kind === 'tarball') return project.config.source.file;
  const r = await timed('npm', ['pack', '--json', '--pack-destination', dir, '--loglevel=error'], { cwd: project.config.source.dir });
  if (r.code !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const json = r.stdout.slice(r.stdout.lastIndexOf('\n[') + 1 || r.stdout.indexOf('['));
  const parsed = JSON.parse(json);
  const filename = (Array.isArray(parsed) ? parsed.at(-1) : parsed).filename;
  return path.join(dir, filename.replace(/^@/, '').replace('/', '-'));
}

function minimalSpec(project, dir) {
  const c = project.config;
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM'];
  const baseEnv = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  Object.assign(baseEnv, c.env);
  return {
    bin: path.join(dir, 'node_modules', project.info.name, project.bin.file),
    cwd: dir,
    baseEnv,
    steps: c.stdio ? c.stdio.steps : [],
    stdio: c.stdio ? { args: c.stdio.args, env: c.stdio.env } : { args: [], env: {} },
    http: c.http ? { args: c.http.args, env: c.http.env, path: c.http.path, host: c.http.host } : undefined,
    bind: c.bind ? { args: c.bind.args, env: c.bind.env, dropEnv: c.bind.dropEnv } : undefined,
  };
}

async function floorFor(project, tarball, id, installSet) {
  const dir = await mkdtemp(path.join(tmpRoot, `floor-${id}-`));
  const specs = [tarball, ...Object.entries(installSet).map(([n, v]) => `${n}@${v}`)];
  const inst = await timed('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (inst.code !== 0) throw new Error(`floor install for ${id} failed: ${inst.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const servers = await runMinimal(minimalSpec(project, dir));
  const t = performance.now();
  await rm(dir, { recursive: true, force: true });
  const rmMs = performance.now() - t;
  const floor = { id, installMs: inst.wallMs, ...servers, rmMs, floorMs: inst.wallMs + servers.totalMs };
  log(
    `floor ${id}: install ${ms(floor.installMs)} + servers ${ms(servers.totalMs)} (stdio ${ms(servers.stdioMs)}, http ${ms(servers.httpMs)}, bind ${ms(servers.bindMs)})`,
  );
  return floor;
}

// ---------------------------------------------------------------- scaling configs
async function scaleConfig(project, n) {
  const base = project.raw.cells;
  const cells = [];
  for (let i = 0; i < n; i++) {
    const src = base[i % base.length];
    const round_ = Math.floor(i / base.length) + 1;
    const id = `${src.id ?? src.pin.replace(/[^A-Za-z0-9._-]/g, '-')}-${round_}`;
    cells.push({ ...src, id });
  }
  const raw = { ...project.raw, cells };
  delete raw.tarball;
  if (project.config.source.kind === 'directory') raw.package = project.config.source.dir;
  else raw.tarball = project.config.source.file;
  const file = path.join(tmpRoot, `scale-${n}.config.mjs`);
  await writeFile(file, `// generated by bench/run.mjs: ${n} cells\nexport default ${JSON.stringify(raw, null, 2)};\n`);
  return file;
}

/** The project's cells alone (no axes), and the same cells crossed with the bench's clients and Node releases. */
async function axesConfigs(project, o) {
  const raw = { ...project.raw };
  delete raw.clients;
  delete raw.node;
  delete raw.tarball;
  if (project.config.source.kind === 'directory') raw.package = project.config.source.dir;
  else raw.tarball = project.config.source.file;
  raw.cells = raw.cells.map(({ clients: _c, node: _n, ...cell }) => cell);
  // The bench's Node axis is deliberately partial (two releases): engines lockstep warns instead of failing the run.
  raw.lockstep = 'warn';
  const alone = path.join(tmpRoot, 'axes-alone.config.mjs');
  const crossed = path.join(tmpRoot, 'axes-crossed.config.mjs');
  const n = raw.cells.length * o.axesClients.length * o.axesNode.length;
  await writeFile(
    alone,
    `// generated by bench/run.mjs: ${raw.cells.length} cells alone\nexport default ${JSON.stringify(raw, null, 2)};\n`,
  );
  await writeFile(
    crossed,
    `// generated by bench/run.mjs: ${n} variants\nexport default ${JSON.stringify({ ...raw, clients: o.axesClients, node: o.axesNode }, null, 2)};\n`,
  );
  return { alone, crossed, variants: n };
}

// ---------------------------------------------------------------- main
async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.from) {
    // Re-render a saved run (no measuring): node bench/run.mjs --from bench/results/latest.json
    const doc = JSON.parse(readFileSync(path.resolve(o.from), 'utf8'));
    useTime = doc.meta.memoryBy?.includes('/usr/bin/time') ?? false;
    const opts = {
      ...o,
      reps: doc.meta.reps,
      scale: doc.meta.scale,
      axesOnly: Boolean(doc.meta.axes?.only),
      ...(doc.meta.axes ? { axesClients: doc.meta.axes.clients, axesNode: doc.meta.axes.node } : {}),
    };
    const nCells = doc.reps[0].serial?.cells.length ?? doc.reps[0].axesAlone.cells.length;
    console.log(render(summarizeAll(doc.reps, opts, nCells, doc.meta.defaultConcurrency, doc.axesWarmup), doc.meta));
    return;
  }
  const configFile = path.resolve(ROOT, o.config);
  tmpRoot = await mkdtemp(path.join(os.tmpdir(), 'mcp-matrix-bench-'));
  useTime = existsSync(TIME) && sh(TIME, ['-v', 'true']) !== undefined;
  const concurrency = os.availableParallelism();
  const meta = {
    date: new Date().toISOString(),
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    nproc: sh('nproc', []) ?? String(os.cpus().length),
    cpu: os.cpus()[0]?.model,
    memGb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    npm: sh('npm', ['--version']),
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAtStart: os.loadavg().map((x) => round(x, 2)),
    git: sh('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }),
    dirtySrc: (sh('git', ['status', '--short', 'src'], { cwd: ROOT }) ?? '').split('\n').filter(Boolean),
    defaultConcurrency: concurrency,
    reps: o.reps,
    quick: o.quick,
    scale: o.scale,
    memoryBy: useTime
      ? 'preload process.resourceUsage().maxRSS (orchestrator only) + /usr/bin/time -v (whole tree)'
      : 'preload process.resourceUsage().maxRSS (orchestrator only)',
    config: path.relative(ROOT, configFile),
  };
  log(`machine: ${meta.nproc} cores, node ${meta.node}, npm ${meta.npm}; reps ${o.reps}; scale ${o.scale.join(',')}; tmp ${tmpRoot}`);

  const project = await loadProject(configFile);
  const nCells = project.config.cells.length;
  const axes = o.axes ? await axesConfigs(project, o) : undefined;
  // Node runtimes go to a cache of the bench's own: the warm-up installs each release once (counted there),
  // the measured runs find it warm, as a user's per-user cache is after the first run.
  // The bench's own caches: the warm-up fills them (cold), the repetitions run warm, as a user's second run does.
  const axesEnv = { MCP_MATRIX_NODE_CACHE: path.join(tmpRoot, 'node-cache'), MCP_MATRIX_CLIENT_CACHE: path.join(tmpRoot, 'client-cache') };
  meta.axes = axes && { clients: o.axesClients, node: o.axesNode, variants: axes.variants, only: o.axesOnly };
  const baseBin = o.axesBaseline && path.join(o.axesBaseline, 'bin', 'mcp-matrix.js');
  if (axes && baseBin) {
    if (!existsSync(path.join(o.axesBaseline, 'dist', 'cli.js')))
      throw new Error(`--axes-baseline ${o.axesBaseline}: no dist/cli.js (build it)`);
    meta.axes.baseline = { dir: o.axesBaseline, commit: gitHead(o.axesBaseline) };
    log(`axes baseline: ${o.axesBaseline} @ ${meta.axes.baseline.commit}`);
  }
  const tarball = o.axesOnly ? undefined : await packOnce(project);
  const scaleFiles = {};
  if (!o.axesOnly) for (const n of o.scale) if (n !== nCells) scaleFiles[n] = await scaleConfig(project, n);

  let axesWarmup;
  if (o.warmup) {
    log('warm-up: one matrix run (not counted) so the npm cache and the page cache are warm');
    if (!o.axesOnly) await runCli('warmup', configFile);
    if (axes) axesWarmup = await runCli('warmup-axes', axes.crossed, [], axesEnv);
  }

  const reps = [];
  for (let rep = 1; rep <= o.reps; rep++) {
    log(`repetition ${rep}/${o.reps}`);
    const r = { rep };
    if (axes) {
      // The same 4 cells alone and crossed with the axes, back to back, the order alternating.
      const alone = () => runCli(`r${rep}-alone`, axes.alone, [], axesEnv);
      const crossed = () => runCli(`r${rep}-axes`, axes.crossed, [], axesEnv);
      // With --axes-baseline, the other checkout's run of the same crossed config sits on the other side of
      // the cells-alone run: odd repetitions run baseline, alone, axes; even ones axes, alone, baseline.
      const base = baseBin && (() => runCli(`r${rep}-axes-base`, axes.crossed, [], axesEnv, baseBin));
      // The crossed run again with the client cache off: each client installed by the run itself.
      const cold = () => runCli(`r${rep}-axes-nocache`, axes.crossed, [], { ...axesEnv, MCP_MATRIX_CLIENT_CACHE: 'off' });
      if (base) {
        if (rep % 2) [r.axesBase, r.axesAlone, r.axes, r.axesCold] = [await base(), await alone(), await crossed(), await cold()];
        else [r.axesCold, r.axes, r.axesAlone, r.axesBase] = [await cold(), await crossed(), await alone(), await base()];
      } else if (rep % 2) [r.axesAlone, r.axes, r.axesCold] = [await alone(), await crossed(), await cold()];
      else [r.axesCold, r.axes, r.axesAlone] = [await cold(), await crossed(), await alone()];
    }
    if (o.axesOnly) {
      reps.push(r);
      continue;
    }
    // Alternate the order of the paired runs so drift does not favour one side.
    if (rep % 2) {
      r.parallel = await runCli(`r${rep}-default`, configFile);
      r.serial = await runCli(`r${rep}-c1`, configFile, ['--concurrency', '1']);
    } else {
      r.serial = await runCli(`r${rep}-c1`, configFile, ['--concurrency', '1']);
      r.parallel = await runCli(`r${rep}-default`, configFile);
    }
    r.floors = [];
    let t = performance.now();
    for (const [id, set] of Object.entries(r.serial.installSets)) r.floors.push(await floorFor(project, tarball, id, set));
    r.floorSerialWallMs = performance.now() - t;
    // The same floor work with `concurrency` workers: what this machine allows a parallel matrix at best.
    const queue = Object.entries(r.serial.installSets);
    t = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await floorFor(project, tarball, `${next[0]}-par`, next[1]);
      }),
    );
    r.floorParallelWallMs = performance.now() - t;
    log(`floor, all cells: ${sec(r.floorSerialWallMs)} one at a time, ${sec(r.floorParallelWallMs)} with ${concurrency} workers`);
    r.scale = {};
    for (const n of o.scale) r.scale[n] = n === nCells ? r.parallel : await runCli(`r${rep}-scale${n}`, scaleFiles[n]);
    reps.push(r);
  }

  const summary = summarizeAll(reps, o, nCells, concurrency, axesWarmup);
  const report = render(summary, meta);
  console.log(report);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = meta.date.replace(/[:.]/g, '-');
  const doc = { meta, summary, reps, axesWarmup };
  writeFileSync(path.join(RESULTS_DIR, `${stamp}.json`), `${JSON.stringify(doc, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(doc, null, 2)}\n`);
  log(`wrote bench/results/${stamp}.json and bench/results/latest.json`);
  if (!o.keepTmp) await rm(tmpRoot, { recursive: true, force: true }).catch(() => undefined);
}

/** The commit a checkout is at (short), for the record of a baseline. */
function gitHead(dir) {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Sections 1–4 (unless --axes-only) and 5 (unless --no-axes), with every target. */
function summarizeAll(reps, o, nCells, concurrency, axesWarmup) {
  const s = o.axesOnly ? { targets: [] } : summarize(reps, o, nCells, concurrency);
  if (reps[0]?.axes) {
    s.axes = summarizeAxes(reps, o, nCells, axesWarmup);
    s.targets.push(...s.axes.targets);
  }
  return s;
}

function summarizeAxes(reps, o, nCells, warmup) {
  const pairs = reps.filter((r) => r.axes && r.axesAlone);
  const aloneMs = median(pairs.map((r) => r.axesAlone.wallMs));
  const axesMs = median(pairs.map((r) => r.axes.wallMs));
  const variants = pairs[0].axes.variants;
  const rows = pairs.flatMap((r) => r.axes.cells);
  // Median variant time by client and by Node release: where a variant's time goes.
  const by = (key) =>
    Object.fromEntries(
      [...new Set(rows.map((c) => c[key] ?? 'own'))].map((k) => [
        k,
        round(median(rows.filter((c) => (c[key] ?? 'own') === k).map((c) => c.durationMs))),
      ]),
    );
  const phaseMedian = (phase) => round(median(rows.map((c) => c.phases[phase]?.durationMs)));
  const installs = pairs.map((r) => r.axes.installs).filter(Boolean);
  const last = installs.at(-1) ?? {};
  const same = (k) => installs.every((x) => x[k] === last[k]);
  const nClients = o.axesClients.length;
  const ax = {
    clients: o.axesClients,
    node: o.axesNode,
    cells: nCells,
    variants,
    rowsPerRun: pairs[0].axes.cells.length,
    aloneWallMs: round(aloneMs),
    axesWallMs: round(axesMs),
    ratio: round(median(pairs.map((r) => r.axes.wallMs / r.axesAlone.wallMs)), 3),
    perVariantMs: round(axesMs / variants),
    perCellAloneMs: round(aloneMs / nCells),
    variantMedianMs: round(median(rows.map((c) => c.durationMs))),
    cellAloneMedianMs: round(median(pairs.flatMap((r) => r.axesAlone.cells.map((c) => c.durationMs)))),
    byClient: by('client'),
    byNode: by('node'),
    phases: Object.fromEntries(['environment', 'stdio', 'http', 'bind', 'leaks'].map((p) => [p, phaseMedian(p)])),
    installs: { ...last, steady: ['server', 'client', 'runtime'].every(same) },
    aloneInstalls: pairs.at(-1).axesAlone.installs,
    work: workOf(pairs.map((r) => r.axes.installs)),
    aloneWork: workOf(pairs.map((r) => r.axesAlone.installs)),
    verdicts: [...new Set(pairs.flatMap((r) => [r.axes.verdict, r.axesAlone.verdict]))],
    warmupInstalls: warmup?.installs,
    warmupWallMs: warmup && round(warmup.wallMs),
    ownMaxRssMb: round(Math.max(...pairs.map((r) => r.axes.ownMaxRssKb ?? 0)) / 1024, 1),
    aloneOwnMaxRssMb: round(Math.max(...pairs.map((r) => r.axesAlone.ownMaxRssKb ?? 0)) / 1024, 1),
    treeMaxRssMb: useTime ? round(Math.max(...pairs.map((r) => r.axes.treeMaxRssKb ?? 0)) / 1024, 1) : undefined,
    notPassed: [
      ...new Set(pairs.flatMap((r) => [...r.axes.cells, ...r.axesAlone.cells].filter((c) => c.verdict !== 'passed').map((c) => c.id))),
    ],
    ratios: pairs.map((r) => round(r.axes.wallMs / r.axesAlone.wallMs, 2)),
    aloneWalls: pairs.map((r) => round(r.axesAlone.wallMs)),
    base: pairs.every((r) => r.axesBase) ? crossedRunsOf(pairs, 'axesBase') : undefined,
    cold: pairs.every((r) => r.axesCold) ? crossedRunsOf(pairs, 'axesCold') : undefined,
    load1: {
      median: round(median(pairs.flatMap((r) => [...(r.axes.load1 ?? []), ...(r.axesAlone.load1 ?? [])])), 2),
      max: round(Math.max(...pairs.flatMap((r) => [...(r.axes.load1 ?? []), ...(r.axesAlone.load1 ?? [])])), 2),
    },
  };
  const w = ax.warmupInstalls;
  const counted = `server ${last.server}, client ${last.client}, runtime ${last.runtime}${ax.cold ? `; client cache off: client ${ax.cold.installs.client}` : ''}${w ? ` (warm-up, cold caches: client ${w.client}, runtime ${w.runtime})` : ''}`;
  ax.targets = [
    {
      name: `axes: ${variants} variants ≤ 2.0 × the same ${nCells} cells alone`,
      value: ax.ratio,
      limit: 2,
      shown: ratio(ax.ratio),
      pass: ax.ratio <= 2,
    },
    ...(ax.cold
      ? [
          {
            name: `axes: the same with the client cache off (each client installed by the run; shown, not a target)`,
            value: ax.cold.ratio,
            shown: ratio(ax.cold.ratio),
            pass: null,
          },
        ]
      : []),
    {
      name: `axes: one install per distinct set (server ${nCells}; client ${nClients} when not cached, else 0; runtime ≤ 1 per release, 0 once cached)`,
      value: counted,
      shown: counted,
      pass:
        last.server === nCells &&
        last.client === 0 &&
        last.runtime === 0 &&
        ax.installs.steady &&
        (!ax.cold || (ax.cold.installs.server === nCells && ax.cold.installs.client === nClients)) &&
        (!w || (w.client === nClients && w.runtime <= o.axesNode.length)),
    },
    {
      name: 'axes: orchestrator peak RSS < 200 MB',
      value: ax.ownMaxRssMb,
      limit: 200,
      shown: `${ax.ownMaxRssMb} MB`,
      pass: ax.ownMaxRssMb < 200,
    },
    {
      name: 'axes: every variant and cell passed (in every run)',
      value: ax.notPassed.length,
      shown: ax.notPassed.length ? `not passed: ${ax.notPassed.join(', ')}` : `all passed; runs: ${ax.verdicts.join(', ')}`,
      pass:
        ax.notPassed.length === 0 &&
        ax.verdicts.every((v) => v === 'passed') &&
        (!ax.cold || (ax.cold.notPassed.length === 0 && ax.cold.verdicts.every((v) => v === 'passed'))),
    },
  ];
  return ax;
}

/** Medians over the runs of the work per kind (summed process lifetimes), each kind's median and when it first began. */
function workOf(runs) {
  const xs = runs.filter((x) => x?.work);
  if (!xs.length) return undefined;
  const m = (f) => round(median(xs.map(f)));
  return {
    serverMs: m((x) => x.work.serverMs),
    clientMs: m((x) => x.work.clientMs),
    driverMs: m((x) => x.work.driverMs),
    server: m((x) => x.medianMs.server),
    client: m((x) => x.medianMs.client),
    driver: m((x) => x.medianMs.driver),
    firstServer: m((x) => x.firstMs.server),
    firstClient: m((x) => x.firstMs.client),
    firstDriver: m((x) => x.firstMs.driver),
    lastEnd: m((x) => x.lastEndMs),
  };
}

/** Another set of crossed runs (the baseline checkout's, or with the client cache off), each against the cells-alone run of its own repetition. */
function crossedRunsOf(pairs, key) {
  const rows = pairs.flatMap((r) => r[key].cells);
  return {
    wallMs: round(median(pairs.map((r) => r[key].wallMs))),
    ratio: round(median(pairs.map((r) => r[key].wallMs / r.axesAlone.wallMs)), 3),
    ratios: pairs.map((r) => round(r[key].wallMs / r.axesAlone.wallMs, 2)),
    variantMedianMs: round(median(rows.map((c) => c.durationMs))),
    bindMedianMs: round(median(rows.map((c) => c.phases.bind?.durationMs))),
    installs: pairs.at(-1)[key].installs,
    ownMaxRssMb: round(Math.max(...pairs.map((r) => r[key].ownMaxRssKb ?? 0)) / 1024, 1),
    work: workOf(pairs.map((r) => r[key].installs)),
    verdicts: [...new Set(pairs.map((r) => r[key].verdict))],
    notPassed: [...new Set(rows.filter((c) => c.verdict !== 'passed').map((c) => c.id))],
  };
}

function renderAxes(ax) {
  const inst = (x) =>
    x
      ? `server ${x.server}, client ${x.client}, runtime ${x.runtime}${x.other ? `, other ${x.other}` : ''}; driver runs ${x.drivers}`
      : '–';
  return [
    table(
      `5. axes: ${ax.cells} cells × clients ${ax.clients.join(', ')} × Node ${ax.node.join(', ')} = ${ax.variants} variants vs the ${ax.cells} cells alone`,
      ['run', 'wall', 'ratio', 'per variant', 'variant median', 'installs (per run)', 'own RSS'],
      [
        [
          `${ax.cells} cells alone`,
          sec(ax.aloneWallMs),
          '1.00x',
          ms(ax.perCellAloneMs),
          ms(ax.cellAloneMedianMs),
          inst(ax.aloneInstalls),
          `${ax.aloneOwnMaxRssMb} MB`,
        ],
        [
          `${ax.variants} variants`,
          sec(ax.axesWallMs),
          ratio(ax.ratio),
          ms(ax.perVariantMs),
          ms(ax.variantMedianMs),
          inst(ax.installs),
          `${ax.ownMaxRssMb} MB`,
        ],
        ...[
          [`${ax.variants} variants, client cache off`, ax.cold],
          [`${ax.variants} variants, baseline`, ax.base],
        ].flatMap(([label, x]) =>
          x
            ? [
                [
                  label,
                  sec(x.wallMs),
                  ratio(x.ratio),
                  ms(round(x.wallMs / ax.variants)),
                  ms(x.variantMedianMs),
                  inst(x.installs),
                  `${x.ownMaxRssMb} MB`,
                ],
              ]
            : [],
        ),
      ],
    ),
    `   per repetition: ratio ${ax.ratios?.join(', ')}${ax.cold ? ` (client cache off ${ax.cold.ratios.join(', ')})` : ''}${ax.base ? ` (baseline ${ax.base.ratios.join(', ')}; ${ax.base.verdicts.join('/')}; bind median ${ms(ax.base.bindMedianMs)}; driver runs ${sec(ax.base.work?.driverMs)}, each ${ms(ax.base.work?.driver)})` : ''}; cells alone ${ax.aloneWalls?.map(sec).join(', ')}`,
    `   warm-up (cold runtime and client caches, not counted): ${sec(ax.warmupWallMs)}; installs: ${inst(ax.warmupInstalls)}${ax.warmupInstalls?.runtimeMs ? ` (runtime downloads ${ms(ax.warmupInstalls.runtimeMs)})` : ''}`,
    `   variant median by client: ${Object.entries(ax.byClient)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}; by Node: ${Object.entries(ax.byNode)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}`,
    `   variant phase medians: ${Object.entries(ax.phases)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}${ax.treeMaxRssMb ? `; largest process in the tree ${ax.treeMaxRssMb} MB` : ''}`,
    ...[['alone', ax.aloneWork], ['axes', ax.work], ...(ax.cold ? [['axes, client cache off', ax.cold.work]] : [])].map(
      ([k, w]) =>
        `   work (${k}): server installs ${sec(w?.serverMs)} (each ${ms(w?.server)}), client installs ${sec(w?.clientMs)} (each ${ms(w?.client)}), driver runs ${sec(w?.driverMs)} (each ${ms(w?.driver)}); first server install at ${ms(w?.firstServer)}, client install at ${ms(w?.firstClient)}, driver at ${ms(w?.firstDriver)}; last process ends at ${ms(w?.lastEnd)}`,
    ),
    `   1-minute load average around these runs: median ${ax.load1.median}, max ${ax.load1.max}`,
  ].join('\n');
}

function summarize(reps, o, nCells, concurrency) {
  const s = {};
  // 1. default concurrency vs 1
  const par = median(reps.map((r) => r.parallel.wallMs));
  const ser = median(reps.map((r) => r.serial.wallMs));
  s.concurrency = {
    default: concurrency,
    defaultWallMs: round(par),
    serialWallMs: round(ser),
    ratio: round(median(reps.map((r) => r.parallel.wallMs / r.serial.wallMs)), 3),
    speedupIdeal: round(1 / Math.min(concurrency, nCells), 3),
    floorSerialWallMs: round(median(reps.map((r) => r.floorSerialWallMs))),
    floorParallelWallMs: round(median(reps.map((r) => r.floorParallelWallMs))),
    floorRatio: round(median(reps.map((r) => r.floorParallelWallMs / r.floorSerialWallMs)), 3),
  };
  // 2. per cell, concurrency-1 run against the floor
  const ids = reps[0].serial.cells.map((c) => c.id);
  s.cells = ids.map((id) => {
    const per = reps.map((r) => {
      const c = r.serial.cells.find((x) => x.id === id);
      const f = r.floors.find((x) => x.id === id);
      const ph = (p) => c.phases[p]?.durationMs ?? 0;
      const phaseSum = ['environment', 'stdio', 'http', 'bind', 'leaks'].reduce((a, p) => a + ph(p), 0);
      const tl = r.serial.orchestrator?.perCell?.[id];
      const driverPhases = ['stdio', 'http', 'bind', 'leaks'].reduce((a, p) => a + ph(p), 0);
      return {
        driverLifeMs: tl?.driverEnd !== undefined ? tl.driverEnd - tl.driverStart : undefined,
        driverOutsidePhasesMs: tl?.driverEnd !== undefined ? tl.driverEnd - tl.driverStart - driverPhases : undefined,
        installToDriverMs: tl?.driverStart !== undefined ? tl.driverStart - tl.installEnd : undefined,
        outsideSpawnsMs: tl?.driverEnd !== undefined ? c.durationMs - (tl.driverEnd - tl.installStart) : undefined,
        notPassed: Object.entries(c.phases)
          .filter(([, v]) => v.verdict !== 'passed')
          .map(([k]) => k),
        cellMs: c.durationMs,
        floorMs: f.floorMs,
        installMs: c.installMs,
        floorInstallMs: f.installMs,
        overhead: {
          install: c.installMs - f.installMs,
          verify: ph('environment'),
          stdio: ph('stdio') - f.stdioMs,
          http: ph('http') - f.httpMs,
          bind: ph('bind') - f.bindMs,
          leaks: ph('leaks') - (f.stdioExitMs + f.httpExitMs),
          other: c.durationMs - (c.installMs ?? 0) - phaseSum,
        },
        stdioMs: ph('stdio'),
        minStdioMs: f.stdioMs,
        httpMs: ph('http'),
        minHttpMs: f.httpMs,
        minHttpReadyMs: f.httpReadyMs,
        bindMs: ph('bind'),
        minBindMs: f.bindMs,
        leaksMs: ph('leaks'),
        minExitMs: f.stdioExitMs + f.httpExitMs,
        floorRmMs: f.rmMs,
        ratio: c.durationMs / f.floorMs,
        overheadShare: (c.durationMs - f.floorMs) / c.durationMs,
        stdioRatio: ph('stdio') / f.stdioMs,
        installShare: (c.installMs ?? 0) / c.durationMs,
      };
    });
    const m = (k) => median(per.map((p) => p[k]));
    const mo = (k) => round(median(per.map((p) => p.overhead[k])));
    return {
      id,
      version: reps[0].serial.cells.find((c) => c.id === id).version,
      cellMs: round(m('cellMs')),
      floorMs: round(m('floorMs')),
      ratio: round(m('ratio'), 3),
      overheadShare: round(m('overheadShare'), 3),
      overheadMs: {
        install: mo('install'),
        verify: mo('verify'),
        stdio: mo('stdio'),
        http: mo('http'),
        bind: mo('bind'),
        leaks: mo('leaks'),
        other: mo('other'),
      },
      installMs: round(m('installMs')),
      floorInstallMs: round(m('floorInstallMs')),
      installShare: round(m('installShare'), 3),
      stdioMs: round(m('stdioMs')),
      minStdioMs: round(m('minStdioMs')),
      stdioRatio: round(m('stdioRatio'), 3),
      httpMs: round(m('httpMs')),
      minHttpMs: round(m('minHttpMs')),
      minHttpReadyMs: round(m('minHttpReadyMs')),
      bindMs: round(m('bindMs')),
      minBindMs: round(m('minBindMs')),
      leaksMs: round(m('leaksMs')),
      minExitMs: round(m('minExitMs')),
      floorRmMs: round(m('floorRmMs')),
      driverLifeMs: round(m('driverLifeMs')),
      driverOutsidePhasesMs: round(m('driverOutsidePhasesMs')),
      installToDriverMs: round(m('installToDriverMs')),
      outsideSpawnsMs: round(m('outsideSpawnsMs')),
      notPassed: [...new Set(per.flatMap((p) => p.notPassed))],
    };
  });
  // All cells together (per repetition, then the median): steadier than any one cell on a busy machine.
  const sumOf = (r, f) =>
    r.serial.cells.reduce(
      (a, c) =>
        a +
        f(
          c,
          r.floors.find((x) => x.id === c.id),
        ),
      0,
    );
  const agg = reps.map((r) => ({
    cellMs: sumOf(r, (c) => c.durationMs),
    floorMs: sumOf(r, (_c, f) => f.floorMs),
    stdioMs: sumOf(r, (c) => c.phases.stdio?.durationMs ?? 0),
    minStdioMs: sumOf(r, (_c, f) => f.stdioMs),
  }));
  s.allCells = {
    cellMs: round(median(agg.map((a) => a.cellMs))),
    floorMs: round(median(agg.map((a) => a.floorMs))),
    ratio: round(median(agg.map((a) => a.cellMs / a.floorMs)), 3),
    overheadShare: round(median(agg.map((a) => (a.cellMs - a.floorMs) / a.cellMs)), 3),
    stdioMs: round(median(agg.map((a) => a.stdioMs))),
    minStdioMs: round(median(agg.map((a) => a.minStdioMs))),
    stdioRatio: round(median(agg.map((a) => a.stdioMs / a.minStdioMs)), 3),
  };
  // 3. scaling
  s.scale = o.scale.map((n) => {
    const runs = reps.map((r) => r.scale[n]);
    const wall = median(runs.map((x) => x.wallMs));
    return {
      cells: n,
      wallMs: round(wall),
      perCellMs: round(wall / n),
      cellDurationMs: round(median(runs.flatMap((x) => x.cells.map((c) => c.durationMs)))),
      installMs: round(median(runs.flatMap((x) => x.cells.map((c) => c.installMs)))),
      ownMaxRssMb: round(Math.max(...runs.map((x) => x.ownMaxRssKb ?? 0)) / 1024, 1),
      treeMaxRssMb: round(Math.max(...runs.map((x) => x.treeMaxRssKb ?? 0)) / 1024, 1),
      failedCells: median(runs.map((x) => x.cells.filter((c) => c.verdict !== 'passed').length)),
    };
  });
  // 4. memory over every counted run
  const all = reps.flatMap((r) => [r.parallel, r.serial, ...Object.values(r.scale)]);
  s.memory = {
    ownMaxRssMb: round(Math.max(...all.map((x) => x.ownMaxRssKb ?? 0)) / 1024, 1),
    treeMaxRssMb: useTime ? round(Math.max(...all.map((x) => x.treeMaxRssKb ?? 0)) / 1024, 1) : undefined,
  };
  // Orchestrator behaviour (from the spawn log of the default-concurrency runs)
  const orch = reps.map((r) => r.parallel.orchestrator).filter(Boolean);
  const orchSerial = reps.map((r) => r.serial.orchestrator).filter(Boolean);
  s.orchestrator = {
    spawnCounts: orch[0]?.counts,
    spawnCountsAt: Object.fromEntries(o.scale.map((n) => [n, reps[0].scale[n].orchestrator?.counts])),
    beforeFirstSpawnMs: round(median(orch.map((x) => x.beforeFirstSpawnMs))),
    packStartMs: round(median(orch.map((x) => x.packStartMs))),
    packMs: round(median(orch.map((x) => x.packMs))),
    packBeforeInstalls: orch.every((x) => x.packBeforeInstalls),
    firstInstallMs: round(median(orch.map((x) => x.firstInstallMs))),
    installsDuringOtherPhases: orch.map((x) => `${x.installsDuringOtherPhases}/${x.installs}`),
    averageBusyCells: round(median(orch.map((x) => x.averageBusyCells)), 2),
    averageBusyCellsAt16: reps[0].scale[16]?.orchestrator
      ? round(median(reps.map((r) => r.scale[16]?.orchestrator?.averageBusyCells)), 2)
      : undefined,
    installEndToDriverStartMs: round(median(orch.map((x) => x.installEndToDriverStartMs))),
    afterLastCellMs: round(median(orch.map((x) => x.afterLastCellMs))),
    serialRunBeforeFirstInstallMs: round(median(orchSerial.map((x) => x.firstInstallMs))),
  };
  // Whole-matrix shares at concurrency 1
  const serialInstall = median(reps.map((r) => r.serial.cells.reduce((a, c) => a + (c.installMs ?? 0), 0)));
  s.shares = {
    serialInstallShare: round(serialInstall / ser, 3),
    serialFloorShare: round(median(reps.map((r) => r.floors.reduce((a, f) => a + f.floorMs, 0) / r.serial.wallMs)), 3),
  };
  s.load1 = { median: round(median(all.flatMap((x) => x.load1 ?? [])), 2), max: round(Math.max(...all.flatMap((x) => x.load1 ?? [0])), 2) };
  // Targets
  const worst = (k) => Math.max(...s.cells.map((c) => c[k]));
  const first = s.scale.find((x) => x.cells === Math.min(...o.scale));
  const last = s.scale.find((x) => x.cells === Math.max(...o.scale));
  const flat = first && last && first !== last ? last.perCellMs / first.perCellMs : undefined;
  s.targets = [
    {
      name: 'default-concurrency matrix ≤ 0.6 × concurrency-1',
      value: s.concurrency.ratio,
      limit: 0.6,
      shown: ratio(s.concurrency.ratio),
      pass: s.concurrency.ratio <= 0.6,
    },
    {
      name: 'harness overhead ≤ 10% of cell time (all cells)',
      value: s.allCells.overheadShare,
      limit: 0.1,
      shown: pct(s.allCells.overheadShare),
      pass: s.allCells.overheadShare <= 0.1,
    },
    {
      name: 'stdio phase ≤ 1.5 × minimal client (all cells)',
      value: s.allCells.stdioRatio,
      limit: 1.5,
      shown: ratio(s.allCells.stdioRatio),
      pass: s.allCells.stdioRatio <= 1.5,
    },
    {
      name: 'harness overhead ≤ 10% of a cell (worst cell)',
      value: worst('overheadShare'),
      limit: 0.1,
      shown: pct(worst('overheadShare')),
      pass: worst('overheadShare') <= 0.1,
    },
    {
      name: 'stdio phase ≤ 1.5 × minimal client (worst cell)',
      value: worst('stdioRatio'),
      limit: 1.5,
      shown: ratio(worst('stdioRatio')),
      pass: worst('stdioRatio') <= 1.5,
    },
    {
      name: 'orchestrator peak RSS < 200 MB',
      value: s.memory.ownMaxRssMb,
      limit: 200,
      shown: `${s.memory.ownMaxRssMb} MB`,
      pass: s.memory.ownMaxRssMb < 200,
    },
    {
      name: `time per cell flat ${first?.cells}→${last?.cells} cells (≤ 1.10×)`,
      value: flat,
      limit: 1.1,
      shown: flat === undefined ? 'n/a' : ratio(flat),
      pass: flat === undefined ? null : flat <= 1.1,
    },
  ];
  return s;
}

function render(s, meta) {
  const parts = [];
  parts.push(
    `mcp-matrix bench · ${meta.date} · ${meta.nproc} cores · node ${meta.node} · npm ${meta.npm} · reps ${meta.reps}${meta.quick ? ' (quick)' : ''} · medians`,
  );
  if (s.concurrency) parts.push(...renderMain(s));
  if (s.axes) parts.push(`\n${renderAxes(s.axes)}`);
  parts.push(
    table(
      'targets',
      ['target', 'measured', 'result'],
      s.targets.map((t) => [t.name, t.shown, t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'MISS']),
    ),
  );
  return parts.join('\n');
}

function renderMain(s) {
  const parts = [];
  parts.push(
    table(
      '1. matrix: default concurrency vs --concurrency 1',
      ['run', 'wall', 'ratio'],
      [
        [`concurrency ${s.concurrency.default}`, sec(s.concurrency.defaultWallMs), ratio(s.concurrency.ratio)],
        ['concurrency 1', sec(s.concurrency.serialWallMs), '1.00x'],
        [`floor, ${s.concurrency.default} workers`, sec(s.concurrency.floorParallelWallMs), ratio(s.concurrency.floorRatio)],
        ['floor, one at a time', sec(s.concurrency.floorSerialWallMs), '1.00x'],
      ],
    ),
  );
  parts.push(
    table(
      '2. per cell (concurrency-1 run) vs floor (bare npm install + minimal client)',
      [
        'cell',
        'harness',
        'floor',
        'ratio',
        'overhead',
        'install',
        'floor inst',
        'stdio',
        'min stdio',
        'stdio x',
        'http',
        'min http',
        'bind',
        'min bind',
        'leaks',
        'min exits',
      ],
      s.cells
        .map((c) => [
          `${c.id} (${c.version})`,
          ms(c.cellMs),
          ms(c.floorMs),
          ratio(c.ratio),
          pct(c.overheadShare),
          ms(c.installMs),
          ms(c.floorInstallMs),
          ms(c.stdioMs),
          ms(c.minStdioMs),
          ratio(c.stdioRatio),
          ms(c.httpMs),
          ms(c.minHttpMs),
          ms(c.bindMs),
          ms(c.minBindMs),
          ms(c.leaksMs),
          ms(c.minExitMs),
        ])
        .concat([
          [
            'all cells (sum)',
            ms(s.allCells.cellMs),
            ms(s.allCells.floorMs),
            ratio(s.allCells.ratio),
            pct(s.allCells.overheadShare),
            '',
            '',
            ms(s.allCells.stdioMs),
            ms(s.allCells.minStdioMs),
            ratio(s.allCells.stdioRatio),
            '',
            '',
            '',
            '',
            '',
            '',
          ],
        ]),
    ),
  );
  parts.push(
    table(
      '   overhead in ms per phase (harness − floor)',
      ['cell', 'install', 'verify', 'stdio', 'http', 'bind', 'leaks', 'other*', 'install share'],
      s.cells.map((c) => [
        c.id,
        c.overheadMs.install,
        c.overheadMs.verify,
        c.overheadMs.stdio,
        c.overheadMs.http,
        c.overheadMs.bind,
        c.overheadMs.leaks,
        c.overheadMs.other,
        pct(c.installShare),
      ]),
    ),
  );
  parts.push("   * other = cell time outside install and phases; split below from the orchestrator's spawn log");
  parts.push(
    table(
      '   other, split',
      ['cell', 'install end→fork', 'driver outside phases', 'dir create+rm', 'floor rm -rf', 'phases not passed'],
      s.cells.map((c) => [
        c.id,
        ms(c.installToDriverMs),
        ms(c.driverOutsidePhasesMs),
        ms(c.outsideSpawnsMs),
        ms(c.floorRmMs),
        c.notPassed.length ? c.notPassed.join(',') : 'none',
      ]),
    ),
  );
  parts.push(
    table(
      `3. scaling at concurrency ${s.concurrency.default}`,
      ['cells', 'wall', 'per cell', 'cell median', 'install median', 'own RSS', 'tree RSS', 'failed'],
      s.scale.map((x) => [
        x.cells,
        sec(x.wallMs),
        ms(x.perCellMs),
        ms(x.cellDurationMs),
        ms(x.installMs),
        `${x.ownMaxRssMb} MB`,
        x.treeMaxRssMb ? `${x.treeMaxRssMb} MB` : '–',
        x.failedCells,
      ]),
    ),
  );
  const oc = s.orchestrator;
  parts.push(
    `\n4. orchestrator: peak RSS ${s.memory.ownMaxRssMb} MB (own)${s.memory.treeMaxRssMb ? `, ${s.memory.treeMaxRssMb} MB (largest process in its tree, /usr/bin/time -v)` : ''}\n` +
      `   spawns per run: ${Object.entries(oc.spawnCounts ?? {})
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ')}\n` +
      `   first spawn at ${ms(oc.beforeFirstSpawnMs)}, pack ${ms(oc.packMs)} from ${ms(oc.packStartMs)}, first install at ${ms(oc.firstInstallMs)}; pack before installs: ${oc.packBeforeInstalls}\n` +
      `   installs started while another cell ran its phases: ${oc.installsDuringOtherPhases.join(', ')}; average busy cells ${oc.averageBusyCells}${oc.averageBusyCellsAt16 !== undefined ? ` (16 cells: ${oc.averageBusyCellsAt16})` : ''}\n` +
      `   install end → driver start ${ms(oc.installEndToDriverStartMs)}; after the last cell ${ms(oc.afterLastCellMs)}\n` +
      `   at concurrency 1: npm install is ${pct(s.shares.serialInstallShare)} of the wall time; the floor is ${pct(s.shares.serialFloorShare)}`,
  );
  parts.push(
    `\n   1-minute load average around the counted runs: median ${s.load1.median}, max ${s.load1.max} (other work on the machine shows up here)`,
  );
  return parts;
}

main().catch((error) => {
  console.error(`bench failed: ${error instanceof Error ? error.stack : error}`);
  process.exitCode = 1;
});
