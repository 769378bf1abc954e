// A cell job's plan from plan.json: the frozen cells with the package read from the local source, no registry,
// so a release published between the plan job and a cell job (or a re-run days later) changes nothing.
import type { ResolvedConfig } from '../config/resolve.js';
import { configShape, type FrozenPlan } from './frozen.js';
import { pickBin, readPackageDir, readTarball } from './package-info.js';
import type { Plan } from './plan.js';
import { fail, ok, type Result } from '../util/result.js';

/**
 * The plan a cell job runs: the frozen cells, with the package read from the local source (no registry).
 * A config that is not the one planned (another commit, an edited file) is refused: its pieces could not merge.
 */
export async function thawPlan(config: ResolvedConfig, frozen: FrozenPlan): Promise<Result<Plan>> {
  if (configShape(config) !== frozen.shape)
    return fail(
      'usage',
      `--plan: the config ${config.file} is not the one the plan was made from (another commit, or the file changed since); run the plan job again (re-run all jobs)`,
    );
  const info = config.source.kind === 'directory' ? await readPackageDir(config.source.dir) : await readTarball(config.source.file);
  if (!info.ok) return info;
  const bin = pickBin(info.value, config.bin);
  if (!bin.ok) return bin;
  return ok({ config, package: info.value, bin: bin.value, cells: frozen.cells, lockstep: frozen.lockstep, hash: frozen.hash });
}
