// Section 6 (issue 22 item 4): the project's cells against the naive loop (a plain sequential shell loop
// over the same pins, ../shared/bench/naive-loop/), in one repetition: a cold run (empty harness caches,
// warm npm cache), a warm re-run of the same cells, and a warm `run --cell <id>` after an edit to the
// server (a new tarball) against the same command with a plain npm install (`--fresh`, when the CLI has it).
// Every run is measured in wall time and CPU-s; CPU-s / cores is the least wall time it could take here.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import type { MatrixConfig } from '../../src/config/define.js';
import { editedServerConfig, shapedConfig } from '../measure/configs.js';
import { likeForLike, likeForLikeOff, loadCatalogue } from '../measure/like-for-like.js';
import type { Project } from '../measure/floor.js';
import { BIN, runCli, type Run } from '../measure/harness.js';
import { log, sec, sh, timed } from '../measure/util.js';

export interface Measured {
  wallMs: number;
  cpuMs: number | undefined;
}
export interface Naive extends Measured {
  pins: string[];
  /** pin → PASS | FAIL, as the loop printed it. */
  verdicts: Record<string, string>;
  code: number | null;
}
export interface Edit {
  cell: string;
  warm: Run;
  reference: Run;
  referenceBy: string;
}
/** One reading of the three runs: cold, warm, and the edit loop. */
export interface Reading {
  cold: Run;
  warm: Run;
  edit?: Edit;
}
export interface Yardsticks extends Reading {
  naive?: Naive;
  naiveSkipped?: string;
  /** The same three runs with only the checks the loop also makes (like-for-like.ts), and what was off. */
  like?: Reading & { off: string };
}

/** The harness's caches all under one fresh XDG_CACHE_HOME (npm's cache is HOME's and stays warm). */
function emptyCaches(xdg: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: xdg };
  for (const k of Object.keys(env)) if (/^MCP_MATRIX_.*CACHE/.test(k)) delete env[k];
  return env;
}

/** The naive loop's arguments for this project, or why it cannot run it (it knows the reference recipes only). */
function naiveArgs(project: Project, versions: Map<string, string>): string[] | string {
  const c = project.config;
  if (c.source.kind !== 'directory') return 'the project is a tarball (the loop packs a directory)';
  if (!c.http) return 'the project has no http phase (the loop checks HTTP)';
  const tokenEnv = Object.entries(c.http.env).find(([, v]) => v.includes('{token}'))?.[0];
  if (!tokenEnv) return 'no http env variable carries {token}';
  const pins: string[] = [];
  for (const cell of c.cells) {
    const known = /^(latest@[12]|2\.0\.0|1\.\d+\.\d+)$/.test(cell.pin);
    const version = versions.get(cell.id);
    if (known) pins.push(cell.pin);
    else if (version && /^1\.\d+\.\d+$/.test(version)) pins.push(version);
    else return `pin ${cell.pin} (${version ?? 'unresolved'}) has no recipe in the loop`;
  }
  return [c.source.dir, tokenEnv, project.bin.name, ...pins];
}

async function runNaive(script: string, args: string[]): Promise<Naive> {
  const r = await timed('bash', [script, ...args]);
  const verdicts = Object.fromEntries([...r.stdout.matchAll(/^(\S+) (PASS|FAIL)$/gm)].map((m) => [m[1]!, m[2]!]));
  log(
    `naive loop: ${sec(r.wallMs)} wall, ${sec(r.cpuMs)} CPU, ${Object.entries(verdicts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  return { wallMs: r.wallMs, cpuMs: r.cpuMs, pins: args.slice(3), verdicts, code: r.code };
}

export async function measureYardsticks(
  rep: number,
  project: Project,
  configFile: string,
  naiveLoop: string,
  tmp: string,
): Promise<Yardsticks> {
  const all = await reading(rep, 'r', project, configFile, tmp, (raw) => raw);
  const versions = new Map(all.cold.cells.map((c) => [c.cell, c.version]));
  const args = naiveArgs(project, versions);
  const skipped = !existsSync(naiveLoop) ? `${naiveLoop} not found` : typeof args === 'string' ? args : undefined;
  const naive = skipped === undefined ? await runNaive(naiveLoop, args as string[]) : undefined;
  if (skipped) log(`naive loop skipped: ${skipped}`);
  const catalogue = await loadCatalogue();
  const shape = likeForLike(catalogue);
  const like = await reading(rep, 'lfl', project, await shapedConfig(project, tmp, `r${rep}-like-for-like`, shape), tmp, shape);
  return { ...(naive ? { naive } : { naiveSkipped: skipped }), ...all, like: { ...like, off: likeForLikeOff(catalogue) } };
}

/** Cold (its own empty harness caches), warm, then the edit loop, with one shape of the config. */
async function reading(
  rep: number,
  prefix: string,
  project: Project,
  configFile: string,
  tmp: string,
  shape: (raw: MatrixConfig) => MatrixConfig,
): Promise<Reading> {
  const caches = await mkdtemp(path.join(tmp, `${prefix}${rep}-harness-caches-`));
  const baseEnv = emptyCaches(caches);
  const cold = await runCli({ label: `${prefix}${rep}-cold`, config: configFile, baseEnv, tmp });
  const warm = await runCli({ label: `${prefix}${rep}-warm`, config: configFile, baseEnv, tmp });
  const edit = await measureEdit(rep, prefix, project, baseEnv, tmp, shape);
  return { cold, warm, ...(edit ? { edit } : {}) };
}

/**
 * The author's loop: edit the server, re-run one cell. The reference is the same command with a plain
 * npm install (`--fresh`) when the CLI has the flag; else the same command again (no reuse to turn off).
 */
async function measureEdit(
  rep: number,
  prefix: string,
  project: Project,
  baseEnv: NodeJS.ProcessEnv,
  tmp: string,
  shape: (raw: MatrixConfig) => MatrixConfig,
): Promise<Edit | undefined> {
  const edited = await editedServerConfig(project, await mkdtemp(path.join(tmp, `${prefix}${rep}-edit-`)), shape);
  if (!edited) return undefined;
  const cells = project.config.cells;
  const cell = (cells.find((c) => c.pin === 'latest@1') ?? cells[0])!.id;
  const fresh = (sh(process.execPath, [BIN, 'run', '--help']) ?? '').includes('--fresh');
  const referenceBy = fresh ? '--fresh' : 'the same command (this CLI has no --fresh)';
  const one = async (n: number, label: string, extra: string[]): Promise<Run> => {
    await edited.edit(n);
    return runCli({ label: `${prefix}${rep}-${label}`, config: edited.config, extra: ['--cell', cell, ...extra], baseEnv, tmp });
  };
  // The first run after the cold and warm ones is already "after an edit"; alternate which side goes first.
  const [warm, reference] =
    rep % 2
      ? [await one(1, 'edit-warm', []), await one(2, 'edit-ref', fresh ? ['--fresh'] : [])]
      : await (async () => {
          const ref = await one(1, 'edit-ref', fresh ? ['--fresh'] : []);
          return [await one(2, 'edit-warm', []), ref] as const;
        })();
  return { cell, warm, reference, referenceBy };
}
