// One broken fixture through the real CLI, and what it left behind (processes, run directories).
import { rm } from 'node:fs/promises';
import type { RunResult } from '../../../src/results/types.js';
import { cli, readResults, tempDir, type CliOutcome } from './cli.js';
import { processesOfRun, runDirsHolding } from './procs.js';

export interface FixtureRun {
  out: CliOutcome;
  results?: RunResult;
  outDir: string;
  /** The run's TMPDIR (removed after the run when runFixture made it): what names it or works in it is the run's. */
  tmp: string;
  ms: number;
  leftoverDirs: string[];
  leftoverProcs: string[];
}

export async function runFixture(
  fixture: string,
  prefix = 'mm-broken',
  env: Record<string, string> = {},
  config = 'matrix.config.ts',
): Promise<FixtureRun> {
  const outDir = await tempDir(`${prefix}-${fixture}-`);
  return inRunTmp(`${prefix}-${fixture}`, env, async (runEnv, tmp) => {
    const started = Date.now();
    const out = await cli(['run', '--config', `fixtures/broken/${fixture}/${config}`, '--out', outDir, '--progress', 'silent'], {
      timeoutMs: 240_000,
      env: runEnv,
    });
    const ms = Date.now() - started;
    const results = await readResults(outDir).catch(() => undefined);
    return { out, ...(results ? { results } : {}), outDir, tmp, ms, ...leftovers(`broken-${fixture}`, tmp) };
  });
}

/**
 * `run` given `env` with a TMPDIR of the run's own: the caller's, or one made here and removed after `run`. The
 * leftover checks look only there, so another run of the same fixture on the machine (another worktree's tests, a CI
 * beside) is never taken for this one's.
 */
export async function inRunTmp<T>(
  prefix: string,
  env: Record<string, string>,
  run: (env: Record<string, string>, tmp: string) => Promise<T>,
): Promise<T> {
  if (env.TMPDIR) return run(env, env.TMPDIR);
  const tmp = await tempDir(`${prefix}-tmp-`);
  try {
    return await run({ ...env, TMPDIR: tmp }, tmp);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * What a run of `pkg` left: run directories holding it and processes under it. `tmp`: the run's own TMPDIR, where its
 * run directories and cells were, so another run of the same fixture on the machine is not taken for this one's.
 */
export function leftovers(pkg: string, tmp: string): Pick<FixtureRun, 'leftoverDirs' | 'leftoverProcs'> {
  return {
    leftoverDirs: runDirsHolding(pkg, tmp),
    leftoverProcs: processesOfRun(tmp, `node_modules/${pkg}/`).map((p) => `${p.pid} ${p.cmdline}`),
  };
}

/** `phase: verdict [step] message` per phase: what a failing assertion should show. */
export function phaseTable(r: RunResult): string {
  return r.cells
    .flatMap((c) => c.phases.map((p) => `${p.phase}: ${p.verdict}${p.step ? ` [${p.step}]` : ''}${p.message ? ` ${p.message}` : ''}`))
    .join('\n');
}
