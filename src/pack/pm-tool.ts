// pnpm or Yarn to pack with: the real package from the npm registry (the version `packageManager` names, else a
// pinned one), installed once per machine into the client cache beside the harness's other instruments (with
// the cache off or unwritable, into the run's directory). Never corepack, never Yarn's own download site.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { installThroughCache } from '../cache/cached-tool.js';
import { clientCacheDir, type CachedClient } from '../cache/client-cache.js';
import { installFailureCause, installManifest, type InstallOutcome } from '../npm/install.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';
import { describeDetection, type PackageManager } from './package-manager.js';

/** pnpm when `packageManager` names no version: the newest 10.x, a plain Node script (11+ ships a binary). */
export const PNPM_VERSION = '10.34.9';
/** Yarn 2+ (Berry): its self-contained CLI, `@yarnpkg/cli-dist`. */
export const YARN_BERRY_VERSION = '4.18.1';
/** Yarn 1 (classic): the `yarn` package. */
export const YARN_CLASSIC_VERSION = '1.22.22';

export interface PmTool {
  /** The command and the arguments before the package manager's own: `[node, …/pnpm.cjs]`. */
  command: string;
  prefix: string[];
  /** The install's `node_modules/.bin`: first on PATH, so the package's own scripts find the same tool. */
  binDir: string;
  /** The installed package and version, for messages. */
  label: string;
}

export interface PmToolOptions {
  /** Where the tool goes when the client cache is off or cannot be written. */
  runDir: string;
  /** The cache root; undefined: no cache. Default: clientCacheDir(). */
  cacheDir?: string | undefined;
  attempts?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** What the tool is for, in a failure's message (default: packing the package, with how its manager was found). */
  neededFor?: string;
}

/** The registry package that is this package manager at this version. */
export function pmPackage(pm: Pick<PackageManager, 'name' | 'version' | 'yarnBerry'>): CachedClient & { bin: string } {
  const at = (pkg: string, fallback: string, bin: string) => {
    const version = pm.version ?? fallback;
    return { package: pkg, version, installSet: { [pkg]: version }, bin };
  };
  if (pm.name === 'pnpm') return at('pnpm', PNPM_VERSION, 'pnpm');
  return pm.yarnBerry ? at('@yarnpkg/cli-dist', YARN_BERRY_VERSION, 'yarn') : at('yarn', YARN_CLASSIC_VERSION, 'yarn');
}

export async function ensurePmTool(pm: PackageManager, options: PmToolOptions): Promise<Result<PmTool>> {
  const tool = pmPackage(pm);
  const label = `${tool.package}@${tool.version}`;
  const installOptions = {
    attempts: options.attempts ?? 3,
    timeoutMs: options.timeoutMs ?? 300_000,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const manifest = { name: 'mcp-matrix-package-manager', private: true, dependencies: tool.installSet };
  // npm's own refusal (no such version) is the package's to fix; the registry or the disk are the machine's.
  const unusable = (install: Exclude<InstallOutcome, { kind: 'installed' }> | string) =>
    fail(
      typeof install !== 'string' && install.kind === 'failed' ? 'usage' : 'infrastructure',
      `${pm.name} is needed ${options.neededFor ?? `to pack this package (${describeDetection(pm)})`}, but ${label} could not be installed from the npm registry: ${typeof install === 'string' ? install : installFailureCause(install)}`,
    );
  try {
    const root = 'cacheDir' in options ? options.cacheDir : clientCacheDir();
    let dir: string | undefined;
    if (root !== undefined) {
      const cached = await installThroughCache(root, tool, (partial) => installManifest(partial, manifest, installOptions));
      if (cached.kind === 'failed') return unusable(cached.install);
      if (cached.kind === 'entry') dir = cached.entry.dir;
    }
    if (!dir) {
      dir = path.join(options.runDir, 'package-manager');
      await mkdir(dir, { recursive: true });
      const install = await installManifest(dir, manifest, installOptions);
      if (install.kind !== 'installed') return unusable(install);
    }
    return binOf(path.join(dir, 'node_modules'), tool.package, tool.bin, label);
  } catch (error) {
    return unusable(errorMessage(error));
  }
}

/** A JavaScript bin runs on this Node (no shebang, no PATH); anything else (pnpm 11's binary) runs itself. */
async function binOf(modules: string, pkg: string, name: string, label: string): Promise<Result<PmTool>> {
  const packageDir = path.join(modules, ...pkg.split('/'));
  const binDir = path.join(modules, '.bin');
  const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
  if (!bin) return fail('infrastructure', `${label} has no \`${name}\` bin in ${packageDir}`);
  const file = path.join(packageDir, bin);
  return ok(
    /\.[cm]?js$/.test(file) ? { command: process.execPath, prefix: [file], binDir, label } : { command: file, prefix: [], binDir, label },
  );
}

/**
 * The tool first on PATH (the package's scripts run the same one); corepack may neither refuse it nor download
 * another; pnpm may not switch to another version itself; Yarn sends no telemetry. A `yarnPath` the project
 * commits is its own Yarn, on disk: Yarn runs it.
 */
export function pmEnv(tool: PmTool): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${tool.binDir}${path.delimiter}${process.env.PATH ?? ''}`,
    COREPACK_ENABLE_STRICT: '0',
    COREPACK_ENABLE_NETWORK: '0',
    COREPACK_ENABLE_AUTO_PIN: '0',
    npm_config_manage_package_manager_versions: 'false',
    npm_config_package_manager_strict: 'false',
    npm_config_update_notifier: 'false',
    YARN_ENABLE_TELEMETRY: '0',
  };
}
