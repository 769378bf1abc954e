// The CLI's commands as data: name, help text, options, and what each one runs (its module, loaded lazily).
import type { Logger } from '../logger.js';
import type { ProgressMode } from '../orchestrator/progress.js';
import type { Failure } from '../util/result.js';
import { list, opt, str } from './argv.js';

type Flags = Record<string, unknown>;

export interface CommandContext {
  cwd: string;
  log: Logger;
  /** Aborted on the first signal once a command took the signals over. */
  signal: AbortSignal;
  /** A command that runs cells takes the signals over: interrupts, cleanup and leftovers handled as in `run`. */
  takeOver(): void;
}

export interface CommandSpec {
  /** As cac takes it: `report <results>`, `merge [...results]`. */
  name: string;
  description: string;
  options?: readonly (readonly [flag: string, description: string])[];
  /** The positional arguments in order, then the flags. */
  run(args: unknown[], flags: Flags, ctx: CommandContext): Promise<number | Failure>;
}

const CONFIG = ['--config <file>', 'Config file (default: ./matrix.config.ts)'] as const;

const usage = (message: string): Promise<Failure> => Promise.resolve({ kind: 'usage', message });

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'run',
    description: 'Run the matrix: pack once, a fresh cell per SDK pin, every phase',
    options: [
      CONFIG,
      ['--cell <id>', 'Run only this cell (id, pin or resolved version: all its variants) or variant (its id); repeatable'],
      ['--out <dir>', 'Where results.json, matrix.md and junit.xml go (default: ./matrix-results)'],
      [
        '--concurrency <n>',
        'Cells (variants) at once, installs included (default: CPU count; with axes, twice as many driver runs, four times with variants side by side)',
      ],
      ['--tarball <file>', 'Use this packed tarball instead of packing (CI fan-out)'],
      ['--plan <file>', "Run the frozen plan in this file (`plan --json`'s output) instead of resolving against the registry (CI fan-out)"],
      ['--keep', 'Keep the cell directories, linked at ./cells/<id>, and print how to re-run their driver'],
      ['--fresh', 'A plain npm install in every cell: no dependency tree reused from the tree cache (install.reuse)'],
      ['--in-turn', "Run each cell's variants and phases one after another, never side by side on copies of its tree (sideBySide: false)"],
      ['--update-surface', 'Write mcp-surface.json (next to the config) from this run instead of comparing with it'],
      ['--publish <file>', 'Replace the table between <!-- mcp-matrix:begin/end --> markers in a Markdown file'],
      ['--progress <mode>', 'default | simple | silent (default: default on a TTY, simple otherwise)'],
      [
        '--baseline <file>',
        'Known failures, cell × phase (default: ./mcp-matrix.baseline.json when it exists): a listed failure is "expected" and does not fail the run; an unlisted one fails (exit 1); a listed one that now passes fails as stale (exit 1, naming the line to delete)',
      ],
      ['--update-baseline', "Write the baseline file from this run's failures (keeps the reasons of entries that still match)"],
    ],
    run: async (_args, flags, ctx) => {
      const concurrency = str(flags.concurrency);
      if (concurrency !== undefined && !/^[1-9]\d*$/.test(concurrency))
        return usage(`--concurrency must be a positive whole number, got "${concurrency}"`);
      const progress = str(flags.progress) ?? 'default';
      if (!['default', 'simple', 'silent'].includes(progress))
        return usage(`--progress must be default, simple or silent, got "${progress}"`);
      ctx.takeOver();
      const { runCommand } = await import('../commands/run.js');
      return runCommand(
        {
          cwd: ctx.cwd,
          ...opt('config', str(flags.config)),
          ...opt('tarball', str(flags.tarball)),
          ...opt('plan', str(flags.plan)),
          ...opt('out', str(flags.out)),
          ...(concurrency ? { concurrency: Number(concurrency) } : {}),
          cells: list(flags.cell),
          keep: Boolean(flags.keep),
          ...(flags.fresh ? { fresh: true } : {}),
          ...(flags.inTurn ? { inTurn: true } : {}),
          updateSurface: Boolean(flags.updateSurface),
          progress: progress as ProgressMode,
          signal: ctx.signal,
          junit: true,
          ...opt('publish', str(flags.publish)),
          ...opt('baseline', str(flags.baseline)),
          ...(flags.updateBaseline ? { updateBaseline: true } : {}),
        },
        ctx.log,
      );
    },
  },
  {
    name: 'plan',
    description: 'Resolve pins and install sets against the registry; installs nothing',
    options: [
      CONFIG,
      ['--tarball <file>', 'Read the package from this tarball'],
      ['--json', 'Print the cells as JSON for a GitHub Actions strategy.matrix (fromJSON)'],
    ],
    run: async (_args, flags, { cwd, log }) =>
      (await import('../commands/plan.js')).planCommand(
        { cwd, ...opt('config', str(flags.config)), ...opt('tarball', str(flags.tarball)), json: Boolean(flags.json) },
        log,
      ),
  },
  {
    name: 'report <results>',
    description: 'Re-render matrix.md and junit.xml from a results.json',
    options: [['--out <dir>', 'Output directory (default: next to results.json)']],
    run: async ([file], flags, { cwd, log }) =>
      (await import('../commands/report.js')).reportCommand(String(file), { cwd, ...opt('out', str(flags.out)), junit: true }, log),
  },
  {
    name: 'merge [...results]',
    description: 'Fan-in: merge single-cell results.json files (or directories holding them) of one plan into one report',
    options: [
      ['--out <dir>', 'Output directory (default: ./matrix-results)'],
      ['--plan <file>', "The frozen plan (`plan --json`'s output) every piece must belong to; names every variant without evidence"],
    ],
    run: async ([files], flags, { cwd, log }) =>
      (await import('../commands/merge.js')).mergeCommand(
        (files as string[] | undefined) ?? [],
        { cwd, ...opt('out', str(flags.out)), ...opt('plan', str(flags.plan)) },
        log,
      ),
  },
  {
    name: 'detect [dir]',
    description: 'The package manager and lockfile of the package (default: this directory) as GitHub step outputs',
    options: [['--pnpm-version <version>', 'The pnpm version when packageManager names none']],
    run: async ([dir], flags, { cwd, log }) =>
      (await import('../commands/detect.js')).detectCommand(
        { cwd, ...opt('dir', str(dir)), ...opt('pnpmVersion', str(flags.pnpmVersion)) },
        log,
      ),
  },
  {
    name: 'pack [dir]',
    description:
      "Pack the package (default: this directory) with its own package manager (npm, pnpm, yarn), or with --plan pack (or copy) the plan's source; prints tarball=, size=, sha512= (GitHub step outputs too)",
    options: [
      ['--plan <file>', "The frozen plan (`plan --json`'s output): pack its source.directory, or copy its source.tarball"],
      ['--out <dir>', 'Where the tarball goes (default: ./package-tarball)'],
    ],
    run: async ([dir], flags, { cwd, log, signal }) =>
      (await import('../commands/pack.js')).packCommand(
        { cwd, ...opt('dir', str(dir)), ...opt('plan', str(flags.plan)), ...opt('out', str(flags.out)), signal },
        log,
      ),
  },
  {
    name: 'init',
    description:
      'Start the package in this directory in a scratch cell and write matrix.config.ts from its real surface, plus .github/workflows/mcp-matrix.yml',
    options: [
      ['--force', 'Overwrite existing files'],
      [
        '--http <args>',
        'The arguments that start its Streamable HTTP transport, e.g. "--transport http --port {port}" (adds http and bind)',
      ],
      ['--http-env <KEY=VALUE>', 'Environment for the HTTP server, e.g. MCP_TOKEN={token}; repeatable'],
    ],
    run: async (_args, flags, ctx) => {
      // init runs a scratch cell: interrupts, cleanup and leftovers are handled as in `run`.
      ctx.takeOver();
      const { initCommand } = await import('../commands/init.js');
      const httpEnv = flags.httpEnv === undefined ? [] : Array.isArray(flags.httpEnv) ? flags.httpEnv : [flags.httpEnv];
      return initCommand(
        { cwd: ctx.cwd, force: Boolean(flags.force), ...opt('http', str(flags.http)), httpEnv: httpEnv.map(String), signal: ctx.signal },
        ctx.log,
      );
    },
  },
  {
    name: 'cache [action] [...caches]',
    description:
      "The harness's per-user caches (clients, node, trees, pnpm, yarn, configs): list (default) shows where each is, its entries and sizes; verify hashes every file and removes a damaged entry (exit 1 when it found one; pnpm's store and Yarn's cache check their own files); clear removes every entry. Name caches to act on some only. Size limit: MCP_MATRIX_CACHE_LIMIT (default 2G per cache)",
    run: async ([action, caches], _flags, { log }) =>
      (await import('../commands/cache.js')).cacheCommand(str(action), (caches as string[] | undefined) ?? [], {}, log),
  },
];

/** The help's closing section. */
export const EXIT_CODES_HELP = [
  '  0  every required cell passed (allowed failures and failures listed in the baseline, shown as "expected", included)',
  '  1  a failure not listed in the baseline, a stale allowance, a stale baseline entry (a listed failure that now',
  "     passes: delete the named line), a lockstep error with lockstep: 'error' (plan and run), or a surface",
  '     difference between cells or from mcp-surface.json not allowed by surface.allow, or an answer difference',
  '     (between cells, from mcp-surface.json, or a stale parity.allow entry); init: the server failed',
  '  2  usage or config error (also a bad baseline file)',
  '  3  not measured (infrastructure) with no failure · 130 interrupted',
].join('\n');
