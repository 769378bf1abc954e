// What runMatrix() takes and gives back: the public API's option and outcome types, each option named after the
// CLI flag it mirrors, apart from the run itself (run.ts) so the published types read on their own.
import type { MatrixConfig } from '../config/define.js';
import type { Logger } from '../logger.js';
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
  /** Every variant's phases one after another, whatever the config's `sideBySide` says, as `--in-turn`. @default false */
  inTurn?: boolean;
  /** Stops the run: the cells are stopped and the reports say interrupted (exit code 130). */
  signal?: AbortSignal;
  /** Print what the CLI prints (progress lines, the table, failures): `true` to stdout/stderr, or a logger of yours. @default false */
  print?: boolean | Logger;
}

/** The run as its reports say it (`run.exitCode` is the CLI's exit code), or why there is none. */
export type RunMatrixOutcome =
  { ok: true; run: RunResult; exitCode: RunResult['exitCode']; files: string[] } | { ok: false; error: Failure; exitCode: 2 | 3 | 130 };
