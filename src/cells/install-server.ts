// A cell's server install, shared by its variants: a fresh directory, npm install (the install hooks fire
// here, once per cell), the environment's static check and the driver shipped in (beside the install, in
// `.mcp-matrix/`, which npm does not touch: it needs nothing npm installs). Never throws.
import { environmentLevels } from '../config/resolve.js';
import { readCellLock } from '../judge/environment/cell-lock.js';
import { verifyEnvironment } from '../judge/environment/environment.js';
import { verifyPnpEnvironment } from '../judge/environment/pnp-environment.js';
import { judgeImports, withImportChecks } from '../judge/environment/undeclared-imports.js';
import { harnessError, installFailure } from '../judge/not-measured.js';
import { sdkPackageNames } from '../judge/environment/sdk-tree.js';
import type { PlannedCell } from '../plan/plan.js';
import type { InstallSourceRef, PhaseResultOf } from '../results/types.js';
import type { CellContext, CellInstall } from './cell-context.js';
import { installDriver, type DriverHooks, type DriverLayout } from './driver-launch.js';
import { installReusing, type ReuseOutcome } from './install/reuse-install.js';
import { installStrict } from './install/strict-install.js';
import { installYarnPnp } from './install/yarn-pnp-install.js';
import type { PnpLayout } from './install/pnp-layout.js';
import { cellDirOf, createCellDir } from './install/workspace.js';
import { markCell } from '../util/marks.js';
import { sourceLockfiles } from './install/resolution-record.js';

/** Installs the cell (never throws); the install hooks fire here, once per cell. */
export async function installServer(cell: PlannedCell, ctx: CellContext, hooks: DriverHooks = {}): Promise<CellInstall> {
  const started = performance.now();
  let cellDir: string | undefined;
  let shipping: Promise<DriverLayout> | undefined;
  const elapsed = () => Math.round(performance.now() - started);
  try {
    if (ctx.signal.aborted) throw new Error('interrupted');
    markCell(cellDirOf(ctx.runDir, cell.id), 'dir-start');
    cellDir = await createCellDir(ctx.runDir, cell.id, ctx.plan.package.name, ctx.tarball.file, cell.installSet);
    markCell(cellDir, 'dir-end');
    // Shipped while npm installs, off the cell's path; awaited on every way out, so no copy outlives the cell.
    shipping = installDriver(cellDir);
    shipping.catch(() => undefined);
    hooks.onInstallStart?.();
    const strictOptions = {
      attempts: ctx.plan.config.install.attempts,
      timeoutMs: ctx.plan.config.install.timeoutMs,
      runDir: ctx.runDir,
      signal: ctx.signal,
    };
    const { install, source, cacheNote, returnable, layout }: ReuseOutcome & { layout?: PnpLayout } =
      cell.install === 'pnpm-strict'
        ? await installStrict(cellDir, strictOptions)
        : cell.install === 'yarn-pnp'
          ? await installYarnPnp(cellDir, ctx.plan.package.name, { ...strictOptions, ...yarnCaOf(ctx, cellDir) })
          : ctx.install
            ? await ctx.install(cellDir, cell, ctx)
            : await installNpmCell(cellDir, cell, ctx);
    markCell(cellDir, 'install-end');
    if (cacheNote) ctx.cacheNote?.(cacheNote);
    hooks.onInstallEnd?.({ ok: install.kind === 'installed', durationMs: install.durationMs, attempts: install.attempts });
    if (install.kind !== 'installed') {
      await shipping.catch(() => undefined);
      const { name: packageName, ranges, sdkClaims } = ctx.plan.package;
      const pin = {
        primary: cell.primary,
        version: cell.version,
        packageName,
        range: sdkClaims?.[cell.primary]?.range ?? ranges[cell.primary],
      };
      return {
        kind: 'not-installed',
        cellDir,
        installMs: install.durationMs,
        attempts: install.attempts,
        environment: withSource(
          installFailure(install, pin, cell.install === 'pnpm-strict' ? 'pnpm' : cell.install === 'yarn-pnp' ? 'yarn' : 'npm'),
          source,
        ),
      };
    }
    const verify = layout ? (i: Parameters<typeof verifyEnvironment>[0]) => verifyPnpEnvironment({ ...i, layout }) : verifyEnvironment;
    const lock = await readCellLock(cellDir);
    const env = await verify({
      cellDir,
      lock,
      packageName: ctx.plan.package.name,
      primary: cell.primary,
      version: cell.version,
      installSet: cell.installSet,
      sdkNames: sdkPackageNames(ctx.plan.config.majors),
      primaries: Object.values(ctx.plan.config.majors).map((m) => m.pinned[0]!),
      tarball: ctx.tarball,
      harnessVersion: ctx.harnessVersion,
      npmVersion: ctx.npmVersion,
      install,
    });
    const withChecks = withImportChecks(
      env,
      await judgeImports({
        cellDir,
        packageName: ctx.plan.package.name,
        key: ctx.tarball.sha512,
        lock,
        ...(layout ? { packageDir: layout.packageDir } : {}),
        levels: environmentLevels(ctx.plan.config),
      }),
    );
    withChecks.evidence.installSource = source;
    markCell(cellDir, 'verify-end');
    const driver = await shipping;
    markCell(cellDir, 'ship-end');
    return {
      kind: 'installed',
      cellDir,
      installMs: install.durationMs,
      readyMs: elapsed(),
      attempts: install.attempts,
      env: withChecks,
      driver,
      ...(returnable ? { returnable } : {}),
      ...(layout ? { pnp: layout } : {}),
    };
  } catch (error) {
    await shipping?.catch(() => undefined);
    return {
      kind: 'not-installed',
      ...(cellDir ? { cellDir } : {}),
      installMs: elapsed(),
      environment: harnessError(error, ctx.signal.aborted),
    };
  }
}

/** A failed install's result names where npm's tree came from (install reuse falls back to npm's own install). */
function withSource(result: PhaseResultOf<'environment'>, source: InstallSourceRef): PhaseResultOf<'environment'> {
  return { ...result, details: { ...result.details, installSource: source } };
}

/** An npm cell's install as a run makes it: the harness's reuse path, with the run's tree cache and reuse window. */
export async function installNpmCell(cellDir: string, cell: PlannedCell, ctx: CellContext): Promise<ReuseOutcome> {
  return installReusing(cellDir, {
    attempts: ctx.plan.config.install.attempts,
    timeoutMs: ctx.plan.config.install.timeoutMs,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    signal: ctx.signal,
    packageName: ctx.plan.package.name,
    npmVersion: ctx.npmVersion,
    treeCache: ctx.treeCache,
    installSet: cell.installSet,
    ...(ctx.reuseWindowMs
      ? {
          window: {
            ms: ctx.reuseWindowMs,
            tarball: { file: ctx.tarball.file, sha512: ctx.tarball.sha512 },
            identityExtra: ctx.plan.config.source.kind === 'directory' ? await sourceLockfiles(ctx.plan.config.source.dir) : '',
          },
        }
      : {}),
  });
}

/** The run's one answer for npm's cafile, when the run keeps one (CellContext.yarnCa). */
function yarnCaOf(ctx: CellContext, cellDir: string): { npmCa?: () => Promise<Record<string, string>> } {
  const { yarnCa } = ctx;
  return yarnCa ? { npmCa: () => yarnCa(cellDir) } : {};
}
