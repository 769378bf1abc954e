// `mcp-matrix detect`: the package manager and lockfile as GitHub step outputs (package-manager, lockfile relative
// to the repository root, lockfile-dir, pnpm-version, yarn-berry, pnp), from src/pack/package-manager.ts, and the
// Node the workflows' jobs run on (node-version: the floor of engines.node).
import { readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import { HARNESS_NODE_RANGE } from '../version.js';
import type { Logger } from '../logger.js';
import { detectPackageManager } from '../pack/package-manager.js';
import { fail, ok, type Failure, type Result } from '../util/result.js';

export function detectOutputs(dir: string, pnpmVersion?: string): Result<string[]> {
  const found = detectPackageManager(dir);
  if (!found.ok) return found;
  const pm = found.value;
  const rel = (file: string) => path.relative(pm.root, file).split(path.sep).join('/') || '.';
  const version = pm.name === 'pnpm' ? (pm.version ?? pnpmVersion) : undefined;
  if (pm.name === 'pnpm' && !version)
    return fail(
      'usage',
      `${rel(pm.lockfile ?? dir)} says pnpm, but no pnpm version is given: set "packageManager": "pnpm@<version>" in package.json, or the workflow's pnpm-version input`,
    );
  return ok([
    `package-manager=${pm.name}`,
    `lockfile=${pm.lockfile ? rel(pm.lockfile) : ''}`,
    `lockfile-dir=${pm.lockfile ? rel(path.dirname(pm.lockfile)) : ''}`,
    `pnpm-version=${version ?? ''}`,
    `yarn-berry=${pm.yarnBerry}`,
    `pnp=${pm.pnp}`,
    `node-version=${nodeFloor(dir)}`,
  ]);
}

/**
 * The lowest Node the package's engines.node admits (setup-node given the range would pick the newest), raised to
 * the harness's own floor when lower, even when the range excludes it: the job's Node runs the CLI, which cannot
 * start below its floor (a Node axis in the config runs servers on older releases). '' without engines.node.
 */
export function nodeFloor(dir: string): string {
  let range: unknown;
  try {
    range = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { engines?: { node?: unknown } }).engines?.node;
  } catch {
    return '';
  }
  if (typeof range !== 'string' || semver.validRange(range) === null) return '';
  const floor = semver.minVersion(range)?.version;
  if (!floor) return '';
  const ours = semver.minVersion(HARNESS_NODE_RANGE)?.version;
  return ours && semver.lt(floor, ours) ? ours : floor;
}

export async function detectCommand(
  options: { cwd: string; dir?: string; pnpmVersion?: string },
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | Failure> {
  const lines = detectOutputs(path.resolve(options.cwd, options.dir ?? '.'), options.pnpmVersion);
  if (!lines.ok) return lines.error;
  for (const line of lines.value) log.info(line);
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, `${lines.value.join('\n')}\n`);
  return 0;
}
