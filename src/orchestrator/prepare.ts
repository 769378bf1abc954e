// Config → resolved config → plan: shared by `plan` and `run`.
import { loadConfig } from '../config/load.js';
import { resolveConfig, type Overrides, type ResolvedConfig } from '../config/resolve.js';
import { buildPlan, type Plan } from '../plan/plan.js';
import { createRegistry, registryUrl, type Registry } from '../plan/registry.js';
import type { Result } from '../util/result.js';

export interface PrepareOptions extends Overrides {
  cwd: string;
  config?: string;
}

export async function prepareConfig(options: PrepareOptions): Promise<Result<{ config: ResolvedConfig; registry: Registry }>> {
  const [loaded, url] = await Promise.all([loadConfig(options.cwd, options.config), registryUrl()]);
  if (!loaded.ok) return loaded;
  const config = resolveConfig(loaded.value, options.tarball ? { tarball: options.tarball } : {}, options.cwd);
  return { ok: true, value: { config, registry: createRegistry(url) } };
}

export async function preparePlan(options: PrepareOptions): Promise<Result<{ plan: Plan; registry: Registry }>> {
  const prepared = await prepareConfig(options);
  if (!prepared.ok) return prepared;
  const plan = await buildPlan(prepared.value.config, prepared.value.registry);
  return plan.ok ? { ok: true, value: { plan: plan.value, registry: prepared.value.registry } } : plan;
}
