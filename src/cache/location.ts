// Where a harness cache lives (the client, Node runtime and tree caches): the variable that moves it, else
// one per-user folder for all of them, so they follow the platform's conventions the same way.
import os from 'node:os';
import path from 'node:path';

/** `${XDG_CACHE_HOME:-~/.cache}/mcp-matrix/<name>` (`%LOCALAPPDATA%\mcp-matrix\<name>` on Windows). */
export function userCacheDir(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'mcp-matrix', name);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mcp-matrix', name);
}

/** A cache's variable set to `off` (any case, spaces around it allowed): that cache is not used. */
export function turnedOff(set: string | undefined): boolean {
  return set !== undefined && set.trim().toLowerCase() === 'off';
}

/** A cache a variable moves (`off`: undefined, none), else `<user cache>/<name>`. */
export function cacheDirOf(variable: string, name: string, env: NodeJS.ProcessEnv): string | undefined {
  const set = env[variable];
  if (turnedOff(set)) return undefined;
  return set?.trim() ? path.resolve(set) : userCacheDir(name, env, process.platform);
}
