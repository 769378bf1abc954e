// The floor of a cell: a bare `npm install` of the same set plus the same server processes driven by
// bench/measure/minimal-client.ts. What any harness needs at least; the harness is measured against it.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MatrixConfig } from '../../src/config/define.js';
import type { ResolvedConfig } from '../../src/config/resolve.js';
import { runMinimal, type Minimal, type MinimalSpec } from './minimal-client.js';
import { log, ms, timed, ROOT } from './util.js';

type Dist<T> = Promise<T>;
const dist = <T>(p: string): Dist<T> => import(pathToFileURL(path.join(ROOT, 'dist', p)).href) as Dist<T>;

export interface Project {
  raw: MatrixConfig;
  config: ResolvedConfig;
  info: { name: string; version: string };
  bin: { name: string; file: string };
}

/** The config as the harness reads it (the built dist/, so the bench measures what ships). */
export async function loadProject(configFile: string): Promise<Project> {
  const [{ loadConfig }, { resolveConfig }, { readPackageDir, readTarball, pickBin }] = await Promise.all([
    dist<typeof import('../../src/config/load.js')>('config/load.js'),
    dist<typeof import('../../src/config/resolve.js')>('config/resolve.js'),
    dist<typeof import('../../src/plan/package-info.js')>('plan/package-info.js'),
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

export async function packOnce(project: Project, tmp: string): Promise<string> {
  const dir = path.join(tmp, 'pack');
  mkdirSync(dir, { recursive: true });
  if (project.config.source.kind === 'tarball') return project.config.source.file;
  const r = await timed('npm', ['pack', '--json', '--pack-destination', dir, '--loglevel=error'], { cwd: project.config.source.dir });
  if (r.code !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const json = r.stdout.slice(r.stdout.lastIndexOf('\n[') + 1 || r.stdout.indexOf('['));
  const parsed = JSON.parse(json) as { filename: string } | { filename: string }[];
  const filename = (Array.isArray(parsed) ? parsed.at(-1)! : parsed).filename;
  return path.join(dir, filename.replace(/^@/, '').replace('/', '-'));
}

function minimalSpec(project: Project, dir: string): MinimalSpec {
  const c = project.config;
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM'];
  const baseEnv: Record<string, string> = Object.fromEntries(
    keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])),
  );
  Object.assign(baseEnv, c.env);
  return {
    bin: path.join(dir, 'node_modules', project.info.name, project.bin.file),
    cwd: dir,
    baseEnv,
    steps: (c.stdio ? c.stdio.steps : []) as MinimalSpec['steps'],
    stdio: c.stdio ? { args: c.stdio.args, env: c.stdio.env } : { args: [], env: {} },
    ...(c.http ? { http: { args: c.http.args, env: c.http.env, path: c.http.path, host: c.http.host } } : {}),
    ...(c.bind ? { bind: { args: c.bind.args, env: c.bind.env, dropEnv: c.bind.dropEnv } } : {}),
  };
}

export type Floor = Minimal & { id: string; installMs: number; installCpuMs: number | undefined; rmMs: number; floorMs: number };

export async function floorFor(
  project: Project,
  tarball: string,
  id: string,
  installSet: Record<string, string>,
  tmp: string,
): Promise<Floor> {
  const dir = await mkdtemp(path.join(tmp, `floor-${id}-`));
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
  const floor = { id, installMs: inst.wallMs, installCpuMs: inst.cpuMs, ...servers, rmMs, floorMs: inst.wallMs + servers.totalMs };
  log(
    `floor ${id}: install ${ms(floor.installMs)} + servers ${ms(servers.totalMs)} (stdio ${ms(servers.stdioMs)}, http ${ms(servers.httpMs)}, bind ${ms(servers.bindMs)})`,
  );
  return floor;
}
