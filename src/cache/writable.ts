// A harness cache is an optimisation: when it cannot be written the run installs into its own directory and says why,
// once. Missing directories are created one at a time, since a recursive mkdir reports a read-only disk as ENOENT.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeInfraError } from '../util/infra.js';
import { errorMessage } from '../util/result.js';

/** A line for the run's warnings about a cache; `cache` is what it is about (one line per cache and run). */
export interface CacheNote {
  cache: string;
  message: string;
}

/** Creates `dir` and its parents; a failure is thrown with the error of the directory that could not be made. */
export async function makeCacheDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw await realMkdirError(dir, error);
  }
}

/** The error the first missing directory on the way to `dir` gives when made alone; `error` when none does. */
export async function realMkdirError(dir: string, error: unknown): Promise<unknown> {
  const missing: string[] = [];
  let at = path.resolve(dir);
  while (!(await exists(at))) {
    missing.unshift(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const one of missing) {
    try {
      await mkdir(one);
    } catch (real) {
      if ((real as { code?: unknown }).code !== 'EEXIST') return real;
    }
  }
  return error;
}

/** One sentence: why the cache at `root` could not be used, naming the system's cause when it is the machine's. */
export function cacheProblem(what: string, root: string, error: unknown): string {
  return `${what} ${root} cannot be written: ${describeInfraError(error) ?? errorMessage(error)}`;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
