// What a cell's tree may be reused by: the key of npm's own resolution (the lockfile less the package under
// test) and of what else shapes npm's layout (npm, Node, platform, config). A tree npm might lay out otherwise
// (install scripts, linked or local dependencies, a shared bin name) is never reused.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256 } from '../../util/sha256.js';

interface Locked {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  hasInstallScript?: boolean;
  bin?: Record<string, string>;
}

export type TreeKey =
  | {
      ok: true;
      key: string;
      /** What of the cell's node_modules is the package under test's (its directory, its bin links). */
      drop: string[];
      /** The package under test has install scripts: its cell's tree may have been written by them, so it is not stored. */
      ownScripts: boolean;
    }
  | { ok: false; why: string };

/**
 * What npm exports to every process it starts (`npx`, `npm run`) about that start, not about how it lays out a
 * tree: a run under npm and the same run started directly key alike. `noproxy` and `allow_scripts` it exports
 * empty when unset.
 */
const INVOCATION = new Set([
  'local_prefix',
  'user_agent',
  'npm_version',
  'node_gyp',
  'init_module',
  'global_prefix',
  'prefix',
  'cache',
  'userconfig',
  'globalconfig',
]);
const EXPORTED_UNSET = new Set(['noproxy', 'allow_scripts']);

/** The part of the key that is not the lockfile: one per npm, Node, platform and npm configuration. */
export function contextKey(npmVersion: string, env: NodeJS.ProcessEnv = process.env): string {
  const userrc = env.npm_config_userconfig || env.NPM_CONFIG_USERCONFIG || path.join(os.homedir(), '.npmrc');
  let npmrc = '';
  try {
    npmrc = readFileSync(userrc, 'utf8');
  } catch {
    // none
  }
  const fromRc = rcValues(npmrc);
  const config = Object.entries(env)
    .map(([k, v]) => [k.toLowerCase(), v ?? ''] as const)
    .filter(([k, v]) => k.startsWith('npm_config_') && !redundant(k.slice('npm_config_'.length), v, fromRc))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const parts = [npmVersion, process.version, process.platform, process.arch, JSON.stringify(config), npmrc];
  return sha256(parts.join('\0')).slice(0, 12);
}

/** npm exports its .npmrc's settings to the processes it starts (a `false` as ''): the file is keyed already. */
function redundant(key: string, value: string, fromRc: Map<string, string>): boolean {
  if (INVOCATION.has(key)) return true;
  const set = fromRc.get(key);
  // An empty value is npm's `false` (`npm_config_optional=` omits optional dependencies): it counts.
  if (set === undefined) return value === '' && EXPORTED_UNSET.has(key);
  return value === set || (value === '' && set === 'false');
}

/** An .npmrc's `key=value` lines, keys as npm exports them (`-` → `_`). */
function rcValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([^#;=\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) values.set(m[1]!.toLowerCase().replace(/-/g, '_'), m[2]!);
  }
  return values;
}

/** The reuse key of the lockfile npm wrote for a cell of `packageName`, or why its tree is not reusable. */
export function treeKey(lockText: string, packageName: string, context: string): TreeKey {
  let lock: { lockfileVersion?: number; packages?: Record<string, Locked> };
  try {
    lock = JSON.parse(lockText) as typeof lock;
  } catch {
    return { ok: false, why: 'the lockfile npm wrote is not JSON' };
  }
  if (!lock.packages) return { ok: false, why: `lockfile version ${lock.lockfileVersion ?? '?'} has no packages section` };
  const own = `node_modules/${packageName}`;
  const mine = lock.packages[own];
  if (!mine) return { ok: false, why: `the lockfile has no ${own}` };
  const ownBins = Object.keys(mine.bin ?? {});
  const tree: [string, Locked][] = [];
  for (const [where, locked] of Object.entries(lock.packages)) {
    if (where === '' || where === own || where.startsWith(`${own}/`)) continue;
    if (locked.link) return { ok: false, why: `${where} is a linked package` };
    if (locked.hasInstallScript) return { ok: false, why: `${where} has install scripts` };
    // npm 11 leaves `resolved` out for packages of the configured registry; git and file: sources keep theirs.
    if ((locked.resolved !== undefined && !/^https?:\/\//.test(locked.resolved)) || !locked.integrity)
      return { ok: false, why: `${where} does not come from a registry with an integrity` };
    const shared = Object.keys(locked.bin ?? {}).find((b) => ownBins.includes(b));
    if (shared) return { ok: false, why: `${where} has the bin ${shared}, as ${packageName} has` };
    tree.push([where, locked]);
  }
  const key = sha256(JSON.stringify([lock.lockfileVersion, tree])).slice(0, 20);
  const bins = ownBins.flatMap((b) => [`.bin/${b}`, `.bin/${b}.cmd`, `.bin/${b}.ps1`]);
  return { ok: true, key: `${context}-${key}`, drop: [packageName, ...bins], ownScripts: mine.hasInstallScript === true };
}
