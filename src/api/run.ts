// runMatrix(): the matrix from code. A shell over the library's run (run-core.ts), as the CLI is: nothing
// is printed unless asked (`print`), failures are values (`{ ok: false, error }`), and the run comes back
// typed, as results.json holds it.
import { Writable } from 'node:stream';
import type { MatrixConfig } from '../config/define.js';
import { createLogger, type Logger } from '../logger.js';
import { startRunCookie } from '../process/cookie.js';
import { deferredCleanups } from '../process/tracker.js';
import type { RunResult } from '../results/types.js';
import type { Failure } from '../util/result.js';
import { printResults, printSummary, printWarnings } from './print.js';
import { runToReports } from './run-core.js';

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
  const cwd = options.cwd ?? process.cwd();
  const signal = options.signal ?? new AbortController().signal;
  // Every process the run starts carries this process's run cookie: leftovers are found by it.
  startRunCookie();
  const { config } = options;
  const ran = await runToReports(
    {
      cwd,
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
      signal,
      junit: true,
      // A cell's repro line is the CLI's, whatever script called the API.
      invocation: 'npx mcp-matrix',
    },
    log,
  );
  await deferredCleanups();
  // Interrupted before any cell ran: nothing written, exit 130.
  if (!ran.ok) return { ok: false, error: ran.error, exitCode: signal.aborted ? 130 : ran.error.kind === 'infrastructure' ? 3 : 2 };
  const { run, written, shown } = ran.value;
  if (options.print) {
    printResults(run, ran.value.config, cwd, log);
    printWarnings(run, shown, log);
    printSummary(run, written, cwd, log);
  }
  return { ok: true, run, exitCode: run.exitCode, files: written };
}
