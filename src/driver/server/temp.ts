// Each server's own temporary directory inside the cell: TMPDIR (TMP, TEMP) and the XDG base directories point
// there for every start, so nothing a server creates lands in the machine's TMPDIR or the user's XDG dirs, and
// it goes when the cell goes. What a server left there is listed for the leaks phase (check `temp-files`).

import { lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const TMP_VARS = ['TMPDIR', 'TMP', 'TEMP'] as const;
const XDG_DIRS: Record<string, string> = {
  XDG_CACHE_HOME: 'cache',
  XDG_CONFIG_HOME: 'config',
  XDG_DATA_HOME: 'data',
  XDG_STATE_HOME: 'state',
  XDG_RUNTIME_DIR: 'runtime',
};
const SHOWN = 10;

/**
 * The server's environment with its own directories under `root` (created here). A value the config set
 * itself wins: a TMPDIR other than the harness's own (the host's, which the base env keeps), and any XDG
 * variable (the base env keeps none).
 */
export function withServerTemp(root: string, env: Record<string, string>, hostTmp: string | undefined): Record<string, string> {
  const out = { ...env };
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const own = env.TMPDIR !== undefined && env.TMPDIR !== hostTmp;
  if (!own) for (const name of TMP_VARS) out[name] = tmp;
  for (const [name, sub] of Object.entries(XDG_DIRS)) {
    if (env[name] !== undefined) continue;
    const dir = join(root, 'xdg', sub);
    // XDG_RUNTIME_DIR must be owned by the user with mode 0700 (XDG Base Directory spec); the others may be too.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    out[name] = dir;
  }
  return out;
}

/** What is left under `root`: each entry of its directories, as `tmp/x/ (2 files)`; empty when nothing is. */
export function leftInTemp(root: string): string[] {
  const dirs = ['tmp', ...Object.values(XDG_DIRS).map((d) => join('xdg', d))];
  const out: string[] = [];
  for (const dir of dirs)
    for (const name of entries(join(root, dir)).sort()) {
      const rel = `${dir}/${name}`;
      const path = join(root, rel);
      out.push(isDir(path) ? `${rel}/ (${countFiles(path)} file${countFiles(path) === 1 ? '' : 's'})` : rel);
    }
  return out;
}

/** `tmp/x/ (1 file), xdg/cache/y` (the first few, then how many more). */
export function describeLeft(left: readonly string[]): string {
  const more = left.length - SHOWN;
  return `${left.slice(0, SHOWN).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function countFiles(dir: string): number {
  let n = 0;
  for (const name of entries(dir)) {
    const path = join(dir, name);
    n += isDir(path) ? countFiles(path) : 1;
  }
  return n;
}
