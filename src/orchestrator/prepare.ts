// Config → resolved config → plan: shared by `plan` and `run`.
import { inlineConfig } from '../config/inline.js';
import { loadConfig } from '../config/load.js';
import { resolveConfig, type Overrides, type ResolvedConfig } from '../config/resolve.js';
import { buildPlan, pinLookupNames, type Plan } from '../plan/plan.js';
import { createRegistry, type Registry } from '../plan/registry.js';
import type { Result } from '../util/result.js';
import type { CacheNote } from '../cache/writable.js';

export interface PrepareOptions extends Overrides {
  cwd: string;
  config?: string;
  /** The config itself (the programmatic API), instead of a file; its directory is `cwd`. */
  configObject?: unknown;
  /** The run's abort: registry look-ups stop with it. */
  signal?: AbortSignal;
}

/** `frozen`: the plan comes from plan.json (`run --plan`), so nothing is looked up ahead. */
export interface PrepareFlags {
  frozen?: boolean;
}

export async function prepareConfig(
  options: PrepareOptions,
  flags: PrepareFlags = {},
): Promise<Result<{ config: ResolvedConfig; registry: Registry; cacheNotes: CacheNote[] }>> {
  const registry = createRegistry(undefined, options.signal ? { signal: options.signal } : {});
  const loaded =
    options.configObject !== undefined
      ? inlineConfig(options.configObject, options.cwd)
      : await loadConfig(options.cwd, options.config, options.signal);
  if (!loaded.ok) {
    registry.cancel();
    return loaded;
  }
  // MCP_MATRIX_CONFORMANCE=off: the conformance phase off for this run, whatever the config says.
  const conformanceOff = process.env.MCP_MATRIX_CONFORMANCE?.trim().toLowerCase() === 'off';
  const config = resolveConfig(
    loaded.value,
    { ...(options.tarball ? { tarball: options.tarball } : {}), ...(conformanceOff ? { conformanceOff } : {}) },
    options.cwd,
  );
  // The pins' look-ups start now, while the run reads the package and packs it; only what the pins name:
  // each is an `npm view` (~0.4 CPU-s), so a major no cell pins is never looked up (buildPlan adds lockstep's).
  if (!flags.frozen) for (const name of pinLookupNames(config)) void registry.meta(name);
  return { ok: true, value: { config, registry, cacheNotes: loaded.value.cacheNotes ?? [] } };
}

export async function preparePlan(options: PrepareOptions): Promise<Result<{ plan: Plan; registry: Registry }>> {
  const prepared = await prepareConfig(options);
  if (!prepared.ok) return prepared;
  const plan = await buildPlan(prepared.value.config, prepared.value.registry);
  return plan.ok ? { ok: true, value: { plan: plan.value, registry: prepared.value.registry } } : plan;
}
