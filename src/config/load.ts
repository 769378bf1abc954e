// Find and load matrix.config.ts (TypeScript, via jiti) and validate it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createJiti } from 'jiti';
import { configSchema, formatIssues } from './schema.js';
import type { MatrixConfig } from './define.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

export const CONFIG_NAMES = ['matrix.config.ts', 'matrix.config.mts', 'matrix.config.js', 'matrix.config.mjs'];

export interface LoadedConfig {
  file: string;
  dir: string;
  config: MatrixConfig;
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

export async function loadConfig(cwd: string, explicit?: string): Promise<Result<LoadedConfig>> {
  const found = findConfig(cwd, explicit);
  if (!found.ok) return found;
  const file = found.value;
  let raw: unknown;
  try {
    // No on-disk cache: a config is tiny and a stale transpile would be a confusing bug.
    const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false, interopDefault: true });
    raw = await jiti.import(file, { default: true });
    if (typeof raw === 'function') raw = await (raw as () => unknown)();
  } catch (error) {
    return fail('usage', `could not load ${file}: ${errorMessage(error)}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error);
    return fail('usage', `${path.basename(file)} has ${issues.length} problem${issues.length > 1 ? 's' : ''}:`, issues);
  }
  return ok({ file, dir: path.dirname(file), config: parsed.data as MatrixConfig });
}
