// A config given as an object (the programmatic API's `runMatrix({ config: { … } })`) instead of a
// file: validated as a loaded file is, its directory the working directory (where `package: '.'` and
// mcp-surface.json are read from).
import path from 'node:path';
import { configDocPath } from './doc-path.js';
import type { MatrixConfig } from './define.js';
import type { LoadedConfig } from './load.js';
import { validateConfig } from './schema.js';
import { fail, ok, type Result } from '../util/result.js';

/** What results.json names as the config file of a run from a config object (no file to pass to --config). */
export const INLINE_CONFIG_NAME = 'inline-config';

export function inlineConfig(raw: unknown, cwd: string): Result<LoadedConfig> {
  const parsed = validateConfig(raw);
  if (!parsed.ok) {
    const issues = parsed.problems;
    return fail('usage', `the config object has ${issues.length} problem${issues.length > 1 ? 's' : ''}:`, [
      ...issues,
      `every key is described in ${configDocPath(cwd)}`,
    ]);
  }
  return ok({ file: path.join(cwd, INLINE_CONFIG_NAME), dir: cwd, config: parsed.config as MatrixConfig });
}
