// Find and load matrix.config.ts (TypeScript, via jiti) and validate it. What jiti transpiles is kept in the
// per-user config cache (transpile-cache.ts): Babel runs only for a file, path or jiti not seen before.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createJiti, type JitiOptions } from 'jiti';
import { cacheProblem, makeCacheDir, type CacheNote } from '../cache/writable.js';
import { configCacheDir, transpileCache } from './transpile-cache.js';
import { configDocPath } from './doc-path.js';
import { validateConfig } from './schema.js';
import { SELF_ALIAS } from './self.js';
import type { MatrixConfig } from './define.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

export const CONFIG_NAMES = ['matrix.config.ts', 'matrix.config.mts', 'matrix.config.js', 'matrix.config.mjs'];

export interface LoadedConfig {
  file: string;
  dir: string;
  config: MatrixConfig;
  /** What the config cache said (a damaged entry replaced, a cache that could not be written): the run's warnings. */
  cacheNotes?: CacheNote[];
}

export function findConfig(cwd: string, explicit?: string): Result<string> {
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    return existsSync(file) ? ok(file) : fail('usage', `config file ${file} does not exist (check --config)`);
  }
  for (const name of CONFIG_NAMES) {
    const file = path.join(cwd, name);
    if (existsSync(file)) return ok(file);
  }
  return fail('usage', `no ${CONFIG_NAMES[0]} in ${cwd}: create one (mcp-matrix init) or pass --config <file>`);
}

/** How long a config may take to load; `MCP_MATRIX_CONFIG_TIMEOUT_MS` shortens it (tests). */
export const CONFIG_TIMEOUT_MS = 30_000;

function configTimeoutMs(): number {
  const fromEnv = Number(process.env.MCP_MATRIX_CONFIG_TIMEOUT_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : CONFIG_TIMEOUT_MS;
}

/** Loads the config; `signal` (the run's abort) stops the wait for a config that is still loading. */
export async function loadConfig(cwd: string, explicit?: string, signal?: AbortSignal): Promise<Result<LoadedConfig>> {
  const found = findConfig(cwd, explicit);
  if (!found.ok) return found;
  const file = found.value;
  let raw: unknown;
  const timeoutMs = configTimeoutMs();
  let timer: NodeJS.Timeout | undefined;
  // A config whose module (top-level await) or default export never settles would otherwise leave
  // Node with nothing to wait for: exit 13, silently. The timer keeps the process alive and says so.
  const never = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  // Ctrl-C while a config loads (one that never settles waits the whole bound) ends the wait at once.
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  const cacheNotes: CacheNote[] = [];
  let cacheRoot = configCacheDir();
  if (cacheRoot !== undefined) {
    try {
      await makeCacheDir(cacheRoot);
    } catch (error) {
      cacheNotes.push({
        cache: cacheRoot,
        message: `${cacheProblem('the config cache', cacheRoot, error)}; configs are transpiled on every run instead`,
      });
      cacheRoot = undefined;
    }
  }
  let cache: ReturnType<typeof transpileCache> | undefined;
  try {
    // jiti's own on-disk cache stays off: it trusts a file by the hash of its source alone, never its code.
    const options: JitiOptions = { fsCache: false, moduleCache: false, interopDefault: true, alias: SELF_ALIAS };
    const babel = createJiti(import.meta.url, options);
    cache = transpileCache(cacheRoot, (o) => ({ code: babel.transform(o) }));
    const jiti = createJiti(import.meta.url, { ...options, transform: (o) => cache!.transform(o) });
    const loading = (async () => {
      const mod: unknown = await jiti.import(file, { default: true });
      return typeof mod === 'function' ? await (mod as () => unknown)() : mod;
    })();
    const loaded = loading.then((value) => ({ value }));
    // Given up on (the bound, an interrupt): its later failure has no one to tell.
    loaded.catch(() => undefined);
    const settled = await Promise.race([loaded, never, stopped]);
    if (settled === 'aborted') return fail('usage', `loading ${file} was interrupted`);
    if (settled === 'timeout') {
      return fail(
        'usage',
        `could not load ${file}: it did not finish loading within ${timeoutMs / 1000} s (a top-level await, the default export, or the function it exports returns a promise that never settles)`,
      );
    }
    raw = settled.value;
  } catch (error) {
    return fail('usage', `could not load ${file}: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    cacheNotes.push(...(cache?.notes() ?? []));
  }
  const parsed = validateConfig(raw);
  if (!parsed.ok) {
    const issues = parsed.problems;
    return fail('usage', `${path.basename(file)} has ${issues.length} problem${issues.length > 1 ? 's' : ''}:`, [
      ...issues,
      `every key is described in ${configDocPath(cwd)}`,
    ]);
  }
  return ok({ file, dir: path.dirname(file), config: parsed.config as MatrixConfig, ...(cacheNotes.length > 0 ? { cacheNotes } : {}) });
}
