// Config → resolved config → plan: shared by `plan` and `run`.
import { inlineConfig } from '../config/inline.js';
import { loadConfig } from '../config/load.js';
import { resolveConfig, reuseWindowFor, windowFromEnv, type Overrides, type ResolvedConfig } from '../config/resolve.js';
import { buildPlan, pinLookupNames, refuseUnknownCells, type Plan } from '../plan/plan.js';
import { createRegistry, type LookupStore, type Registry } from '../plan/registry.js';
import { treeCacheDir } from '../cells/install/tree-cache.js';
import { contextKey } from '../cells/install/tree-key.js';
import { ok, type Result } from '../util/result.js';
import type { CacheNote } from '../cache/writable.js';

export interface PrepareOptions extends Overrides {
  cwd: string;
  config?: string;
  /** The config itself (the programmatic API), instead of a file; its directory is `cwd`. */
  configObject?: unknown;
  /** The run's abort: registry look-ups stop with it. */
  signal?: AbortSignal;
  /** One registry for several runs (a test file's), so each package is looked up once; absent: the run's own. */
  registry?: Registry;
  /** `run --cell`: a name no cell of the config can answer to is refused before any look-up. */
  cells?: string[];
}

/**
 * `frozen`: the plan comes from plan.json (`run --plan`), so nothing is looked up ahead. `window`: a local `run`
 * (not `--fresh`) may reuse the registry's answers within the config's reuse window (never with `CI` set).
 */
export interface PrepareFlags {
  frozen?: boolean;
  window?: boolean;
}

export async function prepareConfig(
  options: PrepareOptions,
  flags: PrepareFlags = {},
): Promise<Result<{ config: ResolvedConfig; registry: Registry; cacheNotes: CacheNote[] }>> {
  const loaded =
    options.configObject !== undefined
      ? inlineConfig(options.configObject, options.cwd)
      : await loadConfig(options.cwd, options.config, options.signal);
  if (!loaded.ok) return loaded;
  // A bad MCP_MATRIX_REUSE_WINDOW_MS is refused at once, before anything is looked up.
  const window = windowFromEnv();
  if (!window.ok) return window;
  // MCP_MATRIX_CONFORMANCE=off: the conformance phase off for this run, whatever the config says.
  const conformanceOff = process.env.MCP_MATRIX_CONFORMANCE?.trim().toLowerCase() === 'off';
  const config = resolveConfig(
    loaded.value,
    { ...(options.tarball ? { tarball: options.tarball } : {}), ...(conformanceOff ? { conformanceOff } : {}) },
    options.cwd,
  );
  // `--cell nope` is refused now, not after the plan's look-ups (a frozen plan looks nothing up: selectCells judges it).
  const named = flags.frozen ? ok(undefined) : refuseUnknownCells(config.cells, options.cells ?? []);
  if (!named.ok) return named;
  const recorded = flags.window && !flags.frozen ? lookupStore(config) : undefined;
  const registry =
    options.registry ??
    createRegistry(undefined, { ...(options.signal ? { signal: options.signal } : {}), ...(recorded ? { recorded } : {}) });
  // The pins' look-ups start now, while the run reads the package and packs it; only what the pins name:
  // each is an `npm view` (~0.4 CPU-s), so a major no cell pins is never looked up (buildPlan adds lockstep's).
  if (!flags.frozen) for (const name of pinLookupNames(config)) void registry.meta(name);
  return { ok: true, value: { config, registry, cacheNotes: loaded.value.cacheNotes ?? [] } };
}

/** The reuse window's store of look-ups: beside the tree cache's entries, keyed by npm's configuration; none in CI. */
function lookupStore(config: ResolvedConfig): LookupStore | undefined {
  const dir = treeCacheDir();
  const ms = reuseWindowFor(config, {});
  if (!ms || !dir) return undefined;
  return { dir, ms, context: contextKey('registry look-ups') };
}

export async function preparePlan(options: PrepareOptions): Promise<Result<{ plan: Plan; registry: Registry }>> {
  const prepared = await prepareConfig(options);
  if (!prepared.ok) return prepared;
  const plan = await buildPlan(prepared.value.config, prepared.value.registry);
  return plan.ok ? { ok: true, value: { plan: plan.value, registry: prepared.value.registry } } : plan;
}
