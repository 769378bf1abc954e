// runMatrix(): the matrix from code, with the CLI's own pipeline (commands/run.ts: sweep, config, plan,
// pack, cells, verdicts, reports). Nothing is printed unless asked (`print`), failures are values
// (`{ ok: false, error }`), and the run comes back typed, as results.json holds it.
import { Writable } from 'node:stream';
import { runCommand } from '../commands/run.js';
import type { MatrixConfig } from '../config/define.js';
import { createLogger, type Logger } from '../logger.js';
import { startRunCookie } from '../process/cookie.js';
import { deferredCleanups } from '../process/tracker.js';
import type { RunResult } from '../results/types.js';
import type { Failure } from '../util/result.js';

export interface RunMatrixOptions {
  /** A config file (relative to `cwd`), or the config itself (its directory is `cwd`). @default './matrix.config.ts' */
  config?: string | MatrixConfig;
  /** The directory the run works from: the config, the default output and the baseline are found from it. @default process.cwd() */
  cwd?: string;
  /** Only these cells or variants (ids, pins or versions), as `--cell`. @default every cell */
  cells?: string[];
  /** Where results.json and the reports go (relative to `cwd`). @default 'matrix-results' */
  out?: string;
  /** Cells (variants) at once. @default the CPU count */
  concurrency?: number;
  /** A packed tarball to test instead of packing the config's package, as `--tarball`. */
  tarball?: string;
  /** A frozen plan (`mcp-matrix plan --json`'s output) to run, as `--plan`. */
  plan?: string;
  /** Known failures, as `--baseline`. @default './mcp-matrix.baseline.json' when it exists */
  baseline?: string;
  /** Keep the cell directories, as `--keep`. @default false */
  keep?: boolean;
  /** A plain npm install in every cell (no dependency tree reused), as `--fresh`. @default false */
  fresh?: boolean;
  /** Stops the run: the cells are stopped and the reports say interrupted (exit code 130). */
  signal?: AbortSignal;
  /** Print what the CLI prints (progress lines, the table, failures): `true` to stdout/stderr, or a logger of yours. @default false */
  print?: boolean | Logger;
}

/** The run as its reports say it (`run.exitCode` is the CLI's exit code), or why there is none. */
export type RunMatrixOutcome =
  { ok: true; run: RunResult; exitCode: RunResult['exitCode']; files: string[] } | { ok: false; error: Failure; exitCode: 2 | 3 | 130 };

const silent = (): Logger => {
  const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
  return createLogger(sink(), sink());
};

export async function runMatrix(options: RunMatrixOptions = {}): Promise<RunMatrixOutcome> {
  const log = options.print === true ? createLogger() : options.print ? options.print : silent();
  // Every process the run starts carries this process's run cookie: leftovers are found by it.
  startRunCookie();
  let ran: { run: RunResult; files: string[] } | undefined;
  const { config } = options;
  const outcome = await runCommand(
    {
      cwd: options.cwd ?? process.cwd(),
      ...(typeof config === 'string' ? { config } : config !== undefined ? { configObject: config } : {}),
      cells: options.cells ?? [],
      ...(options.out !== undefined ? { out: options.out } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.tarball !== undefined ? { tarball: options.tarball } : {}),
      ...(options.plan !== undefined ? { plan: options.plan } : {}),
      ...(options.baseline !== undefined ? { baseline: options.baseline } : {}),
      keep: options.keep ?? false,
      ...(options.fresh ? { fresh: true } : {}),
      progress: options.print ? 'simple' : 'silent',
      signal: options.signal ?? new AbortController().signal,
      junit: true,
      // A cell's repro line is the CLI's, whatever script called the API.
      invocation: 'npx mcp-matrix',
      onRun: (run, files) => (ran = { run, files }),
    },
    log,
  );
  await deferredCleanups();
  if (typeof outcome !== 'number') return { ok: false, error: outcome, exitCode: outcome.kind === 'infrastructure' ? 3 : 2 };
  if (ran) return { ok: true, run: ran.run, exitCode: ran.run.exitCode, files: ran.files };
  // No run to return: interrupted before any cell ran (exit 130, nothing written).
  return {
    ok: false,
    error: { kind: 'infrastructure', message: 'interrupted before any cell ran: no results written' },
    exitCode: outcome === 130 ? 130 : 3,
  };
}
