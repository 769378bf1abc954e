// The harness as the CLI runs it, loaded into a test's process for fixture-cell.ts: its dist/ build, and this process
// made like a CLI process started by cli() (the test caches, a run cookie, none of npx's npm_*).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Print from '../../../src/api/print.js';
import type * as RunCore from '../../../src/api/run-core.js';
import type * as InstallServer from '../../../src/cells/install-server.js';
import type * as Swap from '../../../src/cells/install/package-swap.js';
import type * as Records from '../../../src/cells/install/resolution-record.js';
import type * as Reuse from '../../../src/cells/install/reuse-install.js';
import type * as Trees from '../../../src/cells/install/tree-cache.js';
import type * as TreeKeys from '../../../src/cells/install/tree-key.js';
import type * as Workspace from '../../../src/cells/install/workspace.js';
import type * as Logger from '../../../src/logger.js';
import type * as Npm from '../../../src/npm/install.js';
import type * as Invocation from '../../../src/orchestrator/invocation.js';
import type * as Pack from '../../../src/pack/pack.js';
import type * as Registry from '../../../src/plan/registry.js';
import type * as Cookie from '../../../src/process/cookie.js';
import type * as Tracker from '../../../src/process/tracker.js';
import { TEST_CACHE_ENV } from '../../helpers/node-runtimes.js';
import { ROOT } from './cli.js';

export type Harness = typeof Print &
  typeof RunCore &
  typeof InstallServer &
  typeof Swap &
  typeof Records &
  typeof Reuse &
  typeof Trees &
  typeof TreeKeys &
  typeof Workspace &
  typeof Logger &
  typeof Npm &
  typeof Invocation &
  typeof Pack &
  typeof Registry &
  typeof Cookie &
  typeof Tracker;

const MODULES = [
  'api/print',
  'api/run-core',
  'cells/install-server',
  'cells/install/package-swap',
  'cells/install/resolution-record',
  'cells/install/reuse-install',
  'cells/install/tree-cache',
  'cells/install/tree-key',
  'cells/install/workspace',
  'logger',
  'npm/install',
  'orchestrator/invocation',
  'pack/pack',
  'plan/registry',
  'process/cookie',
  'process/tracker',
];
let loaded: Promise<Harness> | undefined;

/**
 * The harness as the CLI runs it: its build in dist/ (`npm run build`), where the driver it ships into a cell sits beside
 * it (src/ has only the driver's TypeScript). Typed by src/, so type checks do not wait for a build.
 */
export function harness(): Promise<Harness> {
  loaded ??= Promise.all(MODULES.map((m) => import(pathToFileURL(path.join(ROOT, 'dist', `${m}.js`)).href) as Promise<object>)).then(
    (modules) => Object.assign({}, ...modules) as Harness,
  );
  return loaded;
}

/** npm's environment as a CLI process started by cli() has it: no npm_* of the `npx vitest` that started this worker. */
export function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && (!/^npm_/i.test(k) || k === 'npm_config_cache')) env[k] = v;
  return { ...env, npm_config_update_notifier: 'false' };
}

let prepared = false;
/**
 * This process made like a CLI process started by cli(): the test caches, no colours, a run cookie (every process a run
 * starts carries it), and none of npx's npm_* (npm_config_local_prefix would point `npm pack` at the repository).
 */
export function asTheCli(h: Harness): void {
  if (prepared) return;
  prepared = true;
  for (const k of Object.keys(process.env)) if (/^npm_/i.test(k) && k !== 'npm_config_cache') delete process.env[k];
  // A local run unless MM_TEST_CI=on, as cli() starts it: `.ci/run`'s CI=true is not the CLI runs' (their reuse window).
  if (process.env.MM_TEST_CI === 'on') process.env.CI = 'true';
  else delete process.env.CI;
  Object.assign(process.env, TEST_CACHE_ENV, { NO_COLOR: '1' });
  h.startRunCookie();
}
