// Builds real cells by hand for the driver's integration tests: a temp dir with the SDK installed
// from the registry, the compiled driver copied in as the orchestrator would, and a fork with IPC.

import { execFile, fork } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { DriverMessage, DriverSpec, Step } from '../../../src/contract/protocol.js';
import type { PhaseName, PhaseResult, PhaseResultOf } from '../../../src/results/types.js';
import { copyTree, keep, keepable, keepDir, keptDir, keptTree } from '../../helpers/kept-trees.js';
import { fileHash, keyOf, shared } from '../../helpers/run-cache.js';
import { withLevels, type UnresolvedPhases } from './levels.js';

const run = promisify(execFile);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const TEST_SERVER = join(ROOT, 'test/driver/fixtures/test-server.mjs');
export const REFERENCE_SERVER = join(ROOT, 'fixtures/reference-server');

export const INSTALL_SETS: Record<number, string[]> = {
  1: ['@modelcontextprotocol/sdk@1.32.2'],
  2: ['@modelcontextprotocol/client@2.4.0', '@modelcontextprotocol/server@2.4.0', '@modelcontextprotocol/node@2.1.2'],
};

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Compiles src/driver alone (its own project; other modules may be mid-edit) into `out`; returns `<out>/driver`.
 * Within a `vitest run` it is compiled once for every test file (test/helpers/run-cache.ts) and that
 * build's path is returned: callers only copy from it.
 */
export async function buildDriver(out: string): Promise<string> {
  const compile = async (dir: string): Promise<string> => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', join(ROOT, 'src/driver/tsconfig.json'), '--outDir', dir], { cwd: ROOT });
    return join(dir, 'driver');
  };
  const once = shared('driver-build', async (dir) => {
    // Kept a week by its sources' content: a run whose driver sources are unchanged copies the build (~3.5 CPU-s of tsc).
    const key = driverSourcesKey();
    const kept = keptDir('driver-builds', key);
    if (kept) return void cpSync(kept, dir, { recursive: true });
    await compile(dir);
    keepDir('driver-builds', key, dir);
  });
  return once ? join(await once, 'driver') : compile(out);
}

/**
 * What the driver's build depends on: the files it may import (src/driver, src/contract, the type-only results and
 * config types: the boundary lint, test/lint/driver-boundary.test.ts), both tsconfigs and the TypeScript release.
 */
function driverSourcesKey(): string {
  const files = ['src/driver', 'src/contract', 'src/results', 'src/config'].flatMap((d) =>
    (readdirSync(join(ROOT, d), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(d, f)),
  );
  const inputs = [...files.sort(), 'tsconfig.json', 'src/driver/tsconfig.json', 'node_modules/typescript/package.json'];
  return keyOf(...inputs.map((f) => `${f}\0${fileHash(join(ROOT, f))}`));
}

/**
 * `npm install --prefer-offline <specs>` into `dir` (which has a package.json). Within a `vitest run` npm
 * installs each set of specs once (tarballs keyed by their content) and every caller gets a real copy of
 * that tree (no shared inodes: a test's server may write beside its files), so test files no longer
 * repeat the same install. A set of exact versions and tarballs is also kept in the test caches for a week, as
 * the harness keeps its clients, so the next run copies it instead of running npm (MM_TEST_TREE_CACHE=off: not).
 */
export async function npmInstall(dir: string, specs: string[]): Promise<void> {
  const install = (into: string) =>
    run('npm', ['install', '--prefix', into, '--no-audit', '--no-fund', '--prefer-offline', ...specs], { cwd: into, timeout: 240_000 });
  const manifest = readFileSync(join(dir, 'package.json'), 'utf8');
  const key = keyOf(manifest, ...specs.map((s) => (existsSync(s) ? `tarball:${fileHash(s)}` : s)));
  const kept = keepable(specs);
  const tree = shared(`npm-${key}`, async (into) => {
    cpSync(join(dir, 'package.json'), join(into, 'package.json'));
    const have = kept ? keptTree(key) : undefined;
    if (have) return void (await copyTree(have, into));
    await install(into);
    if (kept) await keep(key, into);
  });
  if (!tree) {
    await install(dir);
    return;
  }
  const from = await tree;
  await copyTree(from, dir);
}

export async function npmPack(dir: string, dest: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', dir, '--pack-destination', dest, '--silent'], { cwd: dest });
  return join(dest, stdout.trim().split('\n').pop()!.trim());
}

export interface Cell {
  dir: string;
  major: number;
  driver: string;
}

/**
 * A fresh dir with the SDK (plus any extra tarballs) installed, the driver and the test server copied in. `sdk`: the
 * install set to pin instead of the major's (`['@modelcontextprotocol/sdk@1.12.3']`, a cell on an older pin).
 */
export async function makeCell(major: number, driverBuild: string, extra: string[] = [], sdk = INSTALL_SETS[major]!): Promise<Cell> {
  const dir = tempDir(`mcp-matrix-driver-v${major}-`);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'cell', private: true }));
  await npmInstall(dir, [...extra, ...sdk]);
  const driver = shipDriver(driverBuild, dir);
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  cpSync(TEST_SERVER, join(dir, 'pkg/server.mjs'));
  return { dir, major, driver };
}

/**
 * A client install of its own, as a client variant has: only `clientPackage` installed, and the driver copied
 * in, so that the driver's bare imports resolve to THAT client. Run it with `runDriver(client, spec)`, the
 * spec pointing at a server cell.
 */
export async function makeClient(major: number, clientPackage: string, driverBuild: string): Promise<Cell> {
  const dir = tempDir('mcp-matrix-driver-client-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'client', private: true }));
  await npmInstall(dir, [clientPackage]);
  const driver = shipDriver(driverBuild, dir);
  return { dir, major, driver };
}

/** The built driver and the contract beside it (`<build>/contract`) into `<dir>/.mcp-matrix/`, as the harness ships them. */
export function shipDriver(driverBuild: string, dir: string): string {
  const driver = join(dir, '.mcp-matrix/driver');
  const contract = join(dir, '.mcp-matrix/contract');
  cpSync(driverBuild, driver, { recursive: true });
  cpSync(join(driverBuild, '../contract'), contract, { recursive: true });
  // The driver's own manifest ("type": "module"), as the harness ships it: the cell's package.json has no "type".
  for (const d of [driver, contract]) cpSync(join(ROOT, 'src/driver/package.json'), join(d, 'package.json'));
  return driver;
}

export function removeDir(dir: string | undefined): void {
  if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

/** The driver's results by phase: `get('bind')` is the bind phase's result, its details typed. */
export interface PhaseResults extends Map<PhaseName, PhaseResult> {
  get<P extends PhaseName>(phase: P): PhaseResultOf<P> | undefined;
}

export interface DriverRun {
  messages: DriverMessage[];
  results: PhaseResults;
  done?: Extract<DriverMessage, { type: 'done' }>;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  spawned: number[];
  reaped: number[];
}

/** Forks the driver with IPC exactly as the orchestrator does and collects every message. */
export function runDriver(cell: Cell, spec: DriverSpec, timeoutMs = 120_000): Promise<DriverRun> {
  const specFile = join(cell.dir, '.mcp-matrix', `spec-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(specFile, JSON.stringify(spec, null, 2));
  const child = fork(join(cell.driver, 'index.js'), [specFile], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], cwd: cell.dir });
  const out: DriverRun = { messages: [], results: new Map(), exitCode: null, stdout: '', stderr: '', spawned: [], reaped: [] };
  child.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
  child.on('message', (m: DriverMessage) => {
    out.messages.push(m);
    if (m.type === 'phase-result') out.results.set(m.result.phase, m.result);
    if (m.type === 'done') out.done = m;
    if (m.type === 'spawned') out.spawned.push(m.pid);
    if (m.type === 'reaped') out.reaped.push(m.pid);
  });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`driver did not finish in ${timeoutMs} ms; stderr: ${out.stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      out.exitCode = code;
      // Belt and braces: no server group may outlive a test.
      for (const pid of out.spawned) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
      resolvePromise(out);
    });
  });
}

/** A spec's phases as a test writes them: levels partial or absent (baseSpec resolves them). */
export type PhasesSpec = UnresolvedPhases;

export function baseSpec(cell: Cell, packageDir: string, phases: PhasesSpec): DriverSpec {
  return {
    cellDir: cell.dir,
    packageDir,
    major: cell.major,
    probe: join(cell.driver, 'probe', 'probe.js'),
    baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir() },
    sdkPackages: [
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/node',
      '@modelcontextprotocol/sdk',
      '@modelcontextprotocol/server',
    ],
    phases: withLevels(phases),
  };
}

/** The test server's full configuration; `mode` switches on one defect (see the fixture). */
export function testServerPhases(cell: Cell, mode = '', graceMs = 5000): PhasesSpec {
  const bin = join(cell.dir, 'pkg/server.mjs');
  const env: Record<string, string> = mode ? { TEST_MODE: mode } : {};
  const steps: Step[] = [
    { tool: 'echo', arguments: { text: 'hi' }, expect: { text: 'echo: hi', structuredContent: { echoed: 'hi', length: 2 } } },
    { tool: 'fail', expect: { isError: true, text: 'always fails' } },
    { resource: 'note://hello', expect: { text: 'hello world' } },
    { prompt: 'greet', arguments: { name: 'Ada' }, expect: { messages: 1, text: 'Ada' } },
  ];
  return {
    stdio: {
      command: { bin, args: [], env },
      expect: { tools: ['echo', 'fail'], resources: 1, resourceTemplates: ['note'], prompts: 1 },
      steps,
      timeoutMs: 10_000,
    },
    http: {
      command: { bin, args: ['--transport', 'http', '--host', '{host}', '--port', '{port}'], env: { ...env, MCP_SERVER_TOKEN: '{token}' } },
      host: '127.0.0.1',
      path: '/mcp',
      steps,
      readyTimeoutMs: 15_000,
      timeoutMs: 10_000,
    },
    bind: {
      command: {
        bin,
        args: ['--transport', 'http', '--host', '0.0.0.0', '--port', '{port}'],
        env: { ...env, MCP_SERVER_TOKEN: '{token}' },
      },
      dropEnv: ['MCP_SERVER_TOKEN'],
      timeoutMs: 15_000,
    },
    leaks: { graceMs },
  };
}
