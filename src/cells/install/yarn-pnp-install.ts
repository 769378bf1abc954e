// A cell installed as a Yarn Plug'n'Play user installs it: real Yarn Berry (`@yarnpkg/cli-dist`, pinned, from the
// npm registry, once per machine in the client cache), its packages fetched from the npm registry alone into a
// global folder under the per-user cache. Same cell manifest, tarball and pins as npm's cell. Never throws.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { clientCacheDir } from '../../cache/client-cache.js';
import { cacheDirOf } from '../../cache/location.js';
import type { PackageManager } from '../../pack/package-manager.js';
import { ensurePmTool, pmEnv, pmPackage } from '../../pack/pm-tool.js';
import { registryUrl } from '../../plan/registry.js';
import { run } from '../../process/exec.js';
import type { InstallSourceRef } from '../../results/types.js';
import { errorMessage } from '../../util/result.js';
import type { InstallOutcome } from '../../npm/install.js';
import { readPnpLayout, type PnpLayout } from './pnp-layout.js';
import { installClock, type StrictInstallOptions } from './strict-install.js';

const BERRY: PackageManager = { name: 'yarn', from: { kind: 'default' }, yarnBerry: true, pnp: true, root: '' };
export const YARN_PNP_VERSION = pmPackage(BERRY).version;

/** Yarn's global folder (its cache): `$MCP_MATRIX_YARN_CACHE`, else `~/.cache/mcp-matrix/yarn`; `off`: one in the run directory. */
export function yarnCacheDir(runDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return cacheDirOf('MCP_MATRIX_YARN_CACHE', 'yarn', env) ?? path.join(runDir, 'yarn');
}

/**
 * The variables that keep Yarn on the npm registry and off its own site: no `yarnPath` of a project above the
 * cell, no telemetry, no immutable install (`CI` set), no `.yarnrc.yml` setting can re-enable them.
 */
export function yarnEnv(globalFolder: string, registry: string): Record<string, string> {
  return {
    YARN_IGNORE_PATH: '1',
    YARN_ENABLE_TELEMETRY: '0',
    YARN_ENABLE_GLOBAL_CACHE: '1',
    YARN_GLOBAL_FOLDER: globalFolder,
    YARN_NPM_REGISTRY_SERVER: registry.replace(/\/+$/, ''),
    YARN_ENABLE_IMMUTABLE_INSTALLS: '0',
    YARN_ENABLE_PROGRESS_BARS: '0',
    YARN_ENABLE_COLORS: '0',
    YARN_ENABLE_HYPERLINKS: '0',
    YARN_NODE_LINKER: 'pnp',
  };
}

/**
 * npm's `cafile` handed to Yarn (`YARN_HTTPS_CA_FILE_PATH`): a registry behind a private CA that npm trusts through
 * its config must be trusted by the Yarn leg too, or every Yarn cell is not measured. A variable the caller set wins.
 */
export async function npmCaForYarn(cellDir: string, env: NodeJS.ProcessEnv | undefined): Promise<Record<string, string>> {
  if ((env ?? process.env).YARN_HTTPS_CA_FILE_PATH) return {};
  const out = await run('npm', ['config', 'get', 'cafile'], { cwd: cellDir, ...(env ? { env } : {}), timeoutMs: 15_000 });
  const file = out.stdout.trim();
  return out.ok && path.isAbsolute(file) && existsSync(file) ? { YARN_HTTPS_CA_FILE_PATH: file } : {};
}

/** `npmCa`: npm's cafile for Yarn as the run asked it once (CellContext.yarnCa); absent, this cell asks npm. */
export async function installYarnPnp(
  cellDir: string,
  packageName: string,
  options: StrictInstallOptions & { npmCa?: () => Promise<Record<string, string>> },
): Promise<{ install: InstallOutcome; source: InstallSourceRef; layout?: PnpLayout; cacheNote?: undefined }> {
  const { elapsed, notMeasured } = installClock();
  const store = yarnCacheDir(options.runDir, options.env);
  const source: InstallSourceRef = { source: 'yarn-pnp', yarn: YARN_PNP_VERSION, store };
  const tool = await ensurePmTool(
    { ...BERRY, root: cellDir },
    {
      runDir: options.runDir,
      attempts: options.attempts,
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.env ? { cacheDir: clientCacheDir(options.env) } : {}),
      neededFor: "for this cell's strict install (install: 'yarn-pnp')",
    },
  );
  if (!tool.ok) return { install: notMeasured('YARN', tool.error.message, 1, tool.error.message), source };
  const ca = await (options.npmCa?.() ?? npmCaForYarn(cellDir, options.env));
  const env = { ...pmEnv(tool.value), ...ca, ...options.env, ...yarnEnv(store, await registryUrl()) };
  try {
    // The package under test unplugged (on disk, as Yarn unplugs a package with install scripts): the driver
    // reads its bin's `#!` line and the harness its files; what it resolves is PnP's as for any package.
    const file = path.join(cellDir, 'package.json');
    const manifest = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    manifest.dependenciesMeta = { [packageName]: { unplugged: true } };
    await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
    // An empty lockfile makes the cell its own project (not a workspace of a directory above it).
    await writeFile(path.join(cellDir, 'yarn.lock'), '');
    await writeFile(path.join(cellDir, '.yarnrc.yml'), 'nodeLinker: pnp\nenableTelemetry: false\nenableGlobalCache: true\n');
  } catch (error) {
    const message = errorMessage(error);
    return { install: notMeasured('EWRITE', message, 1, `the cell's Yarn files could not be written: ${message}`), source };
  }
  let last = { code: 'UNKNOWN', message: '' };
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const out = await run(tool.value.command, [...tool.value.prefix, 'install'], {
      cwd: cellDir,
      env,
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (out.exitCode === 0) {
      const layout = await readPnpLayout(cellDir, packageName);
      if (!layout.ok) return { install: notMeasured('PNP', layout.error.message, attempt, layout.error.message), source };
      return { install: { kind: 'installed', attempts: attempt, durationMs: elapsed() }, source, layout: layout.value };
    }
    if (out.cancelled) return { install: notMeasured('ABORTED', 'install interrupted', attempt), source };
    if (out.timedOut) {
      last = { code: 'ETIMEDOUT', message: `yarn install did not finish within ${options.timeoutMs} ms` };
      continue;
    }
    const text = `${out.stdout}\n${out.stderr}`;
    const errors = text.split('\n').filter((l) => /YN\d{4}/.test(l) && !/YN0000/.test(l));
    last = {
      code: /\b(YN\d{4})\b/.exec(errors[0] ?? '')?.[1] ?? `exit ${out.exitCode}`,
      message: firstLines(errors.length ? errors : [text]),
    };
    // Yarn's refusal of what the cell asks (no version matches a pin) is deterministic: a verdict.
    if (/No candidates found|YN0082/.test(text))
      return { install: { kind: 'failed', attempts: attempt, durationMs: elapsed(), ...last }, source };
  }
  return { install: notMeasured(last.code, last.message, options.attempts), source };
}

function firstLines(lines: string[], n = 4): string {
  return lines
    .join('\n')
    .split('\n')
    .map((l) => l.replace(/^➤\s*/, '').trim())
    .filter(Boolean)
    .slice(0, n)
    .join(' · ');
}
