// A run's inputs beside the config, checked before anything is installed: the baseline file, the package
// source and the committed surface snapshot. Each bad one is a usage failure naming the file.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../config/resolve.js';
import { DEFAULT_BASELINE, parseBaseline } from '../reports/baseline.js';
import type { Recorded } from '../results/parity.js';
import { parseSnapshot, SNAPSHOT_FILE, type SurfaceItems } from '../results/surface.js';
import type { BaselineEntry } from '../results/types.js';
import { fail, ok, type Result } from '../util/result.js';

/** Known failures, with the file as shown to the user. */
export interface Baseline {
  file: string;
  entries: BaselineEntry[];
}

/** Where the baseline is (`--baseline`, or mcp-matrix.baseline.json in `cwd`), and how it is shown. */
export function baselinePath(cwd: string, option: string | undefined): { file: string; shown: string } {
  const file = path.resolve(cwd, option ?? DEFAULT_BASELINE);
  return { file, shown: path.relative(cwd, file) || file };
}

/** The baseline the run is judged with: none when the default file is absent, or when `rewrites` and it is missing. */
export async function readBaselineInput(cwd: string, option: string | undefined, rewrites: boolean): Promise<Result<Baseline | undefined>> {
  const { file, shown } = baselinePath(cwd, option);
  const exists = async () => (await stat(file).catch(() => undefined)) !== undefined;
  if (option === undefined && !(await exists())) return ok(undefined);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const entries = text === undefined ? fail('usage', `--baseline: cannot read ${shown}`) : parseBaseline(text, shown);
  if (entries.ok) return ok({ file: shown, entries: entries.value });
  // --update-baseline rewrites a missing file; anything else is bad input.
  return rewrites && !(await exists()) ? ok(undefined) : entries;
}

/** The package source exists: a tarball file, or a directory with a package.json. */
export async function checkPackageSource(source: ResolvedConfig['source']): Promise<string | undefined> {
  if (source.kind === 'tarball') {
    const info = await stat(source.file).catch(() => undefined);
    return info?.isFile() ? undefined : `tarball ${source.file} does not exist or is not a file (check --tarball or the config's tarball)`;
  }
  const info = await stat(path.join(source.dir, 'package.json')).catch(() => undefined);
  return info?.isFile() ? undefined : `package directory ${source.dir} has no package.json (check the config's package)`;
}

/** mcp-surface.json's surface and recorded answers the run compares with; none when `rewrites` (--update-surface). */
export async function readSnapshotInput(
  config: Pick<ResolvedConfig, 'dir' | 'surface' | 'parity'>,
  rewrites: boolean,
): Promise<Result<{ surfaceSnapshot?: SurfaceItems; comparedSnapshot?: Recorded }>> {
  if (config.surface === false && rewrites)
    return fail('usage', '--update-surface: the config turns the surface check off (`surface: false`)');
  if ((config.surface === false && config.parity === false) || rewrites) return ok({});
  const file = path.join(config.dir, SNAPSHOT_FILE);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return ok({});
  const parsed = parseSnapshot(text);
  if (!parsed.ok) return fail('usage', `${file}: ${parsed.error}`);
  return ok({
    ...(config.surface !== false && parsed.items ? { surfaceSnapshot: parsed.items } : {}),
    ...(config.parity !== false && parsed.compared ? { comparedSnapshot: parsed.compared } : {}),
  });
}
