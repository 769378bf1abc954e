// `mcp-matrix cache [list|verify|clear] [clients|node|trees|configs...]`: where the harness's per-user caches are,
// what they hold and how big they are; `verify` hashes every file of every entry and removes a damaged one
// (the next run installs it again); `clear` removes the entries. Exit 0, or 1 when verify found damage.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { cacheLimit, removeAside } from '../cache/bound.js';
import type { Logger } from '../logger.js';
import type { Failure } from '../util/result.js';
import { cacheKinds } from './cache-kinds.js';
import { CONFIG_CACHE_MAX_ENTRIES } from '../config/transpile-cache.js';

export const CACHE_ACTIONS = ['list', 'verify', 'clear'] as const;

export async function cacheCommand(
  action: string | undefined,
  names: string[],
  options: { env?: NodeJS.ProcessEnv },
  log: Logger,
): Promise<number | Failure> {
  const doing = action ?? 'list';
  if (!(CACHE_ACTIONS as readonly string[]).includes(doing))
    return { kind: 'usage', message: `cache: no action "${doing}"; actions: ${CACHE_ACTIONS.join(', ')}` };
  const all = cacheKinds(options.env);
  const unknown = names.filter((n) => !all.some((k) => k.name === n));
  if (unknown.length)
    return { kind: 'usage', message: `cache: no cache "${unknown.join('", "')}"; caches: ${all.map((k) => k.name).join(', ')}` };
  const kinds = names.length ? all.filter((k) => names.includes(k.name)) : all;
  const limit = cacheLimit(options.env);
  let damaged = 0;
  for (const kind of kinds) {
    if (kind.root === undefined) {
      log.info(`${kind.name}: off (${kind.variable}=off)`);
      continue;
    }
    const entries = (await kind.list(kind.root)).sort((a, b) => b.lastUsedMs - a.lastUsedMs);
    const total = entries.reduce((sum, e) => sum + e.bytes, 0);
    const bound =
      kind.name === 'trees'
        ? 'the 24 most recently used entries'
        : kind.name === 'configs'
          ? `the ${CONFIG_CACHE_MAX_ENTRIES} most recently used entries`
          : limit === undefined
            ? 'no limit'
            : `limit ${size(limit)}`;
    log.info(`${kind.name}: ${kind.root} (${kind.variable}) · ${kind.what}`);
    log.info(`  ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, ${size(total)} (${bound})`);
    for (const e of entries) {
      const line = `  ${e.label.padEnd(44)} ${size(e.bytes).padStart(9)}  used ${when(e.lastUsedMs)}  ${path.relative(kind.root, e.dir)}`;
      if (doing === 'list') log.info(line);
      else if (doing === 'verify' && kind.unverified) log.info(`${line}  not hashed (${kind.unverified})`);
      else if (doing === 'verify') {
        const damage = await kind.damage(e);
        if (damage === undefined) log.info(`${line}  intact`);
        else {
          damaged++;
          await removeAside(e.dir, aside(e.dir));
          log.error(`${line}  DAMAGED (${damage}): removed; the next run installs it again`);
        }
      }
    }
    if (doing === 'clear') log.info(`  cleared: ${await clear(kind.root)} removed`);
  }
  return damaged > 0 ? 1 : 0;
}

/** Everything in the cache, partial installs included; a second `clear` finds nothing. */
async function clear(root: string): Promise<string> {
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) await removeAside(path.join(root, name), aside(path.join(root, name)));
  return `${names.length} item${names.length === 1 ? '' : 's'}`;
}

function aside(dir: string): string {
  return path.join(path.dirname(dir), `.partial-gone-${path.basename(dir)}-${process.pid}`);
}

export function size(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
}

function when(ms: number): string {
  return ms ? new Date(ms).toISOString().slice(0, 16).replace('T', ' ') : 'never';
}
