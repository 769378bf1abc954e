// init's look at the real server: the packed package and the newest SDK version its range admits in one
// scratch cell, started over stdio (and over HTTP when the user gave its invocation), through the same
// plan, pack, cell and driver code as `run`.
import path from 'node:path';
import type { HttpConfig, MatrixConfig } from '../../config/define.js';
import { resolveConfig } from '../../config/resolve.js';
import { orchestrate } from '../../orchestrator/orchestrate.js';
import type { Registry } from '../../plan/registry.js';
import type { CellResult } from '../../results/types.js';
import { fail, ok, type Result } from '../../util/result.js';

export interface ProbeInput {
  cwd: string;
  bin: string;
  /** An exact SDK version. */
  pin: string;
  http?: HttpConfig;
  signal: AbortSignal;
}

export type ServerProbe = (input: ProbeInput, registry: Registry) => Promise<Result<CellResult>>;

export const probeServer: ServerProbe = async (input, registry) => {
  const config: MatrixConfig = {
    package: '.',
    bin: input.bin,
    cells: [{ pin: input.pin, id: 'init' }],
    stdio: {},
    ...(input.http ? { http: input.http } : {}),
    leaks: {},
    lockstep: 'off',
  };
  const resolved = resolveConfig({ file: path.join(input.cwd, 'matrix.config.ts'), dir: input.cwd, config }, {}, input.cwd);
  const run = await orchestrate(resolved, registry, { cwd: input.cwd, cells: [], keep: false, progress: 'silent', signal: input.signal });
  if (!run.ok) return run;
  const cell = run.value.cells[0];
  return cell ? ok(cell) : fail('infrastructure', 'the scratch cell produced no result');
};
