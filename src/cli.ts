// Argument parsing, the one error boundary, and exit codes: 0 pass · 1 failed (unlisted failure, stale allowance or baseline entry, lockstep error, surface or answer difference) · 2 usage/config · 3 not measured · 130 interrupted.
import { cac } from 'cac';
import { createLogger, type Logger } from './logger.js';
import { watchInterrupts } from './process/interrupts.js';
import { holdLateSignals } from './process/late-signals.js';
import { deferredCleanups } from './process/tracker.js';
import type { Failure } from './util/result.js';
import { HARNESS_VERSION } from './version.js';
import { describeInfraError } from './util/infra.js';
import type { ProgressMode } from './orchestrator/progress.js';
import { didYouMean } from './util/did-you-mean.js';

type Flags = Record<string, unknown>;

/** Options whose value may itself start with `--`. */
const VALUE_FLAGS = ['--http', '--http-env'];

const list = (v: unknown): string[] =>
  v === undefined
    ? []
    : (Array.isArray(v) ? v : [v])
        .flatMap((x) => String(x).split(','))
        .map((s) => s.trim())
        .filter(Boolean);
const str = (v: unknown): string | undefined => (v === undefined || v === true ? undefined : String(Array.isArray(v) ? v.at(-1) : v));

function exitFor(outcome: number | Failure, log: Logger): number {
  if (typeof outcome === 'number') return outcome;
  log.error(`mcp-matrix: ${outcome.message}`);
  for (const d of outcome.details ?? []) log.error(`  ${d}`);
  return outcome.kind === 'infrastructure' ? 3 : 2;
}

export async function main(argv: string[], log: Logger = createLogger()): Promise<number> {
  const cli = cac('mcp-matrix');
  const interrupts = watchInterrupts(log);
  let command: Promise<number | Failure> | undefined;
  const cwd = process.cwd();

  const runFlags = (c: ReturnType<typeof cli.command>) =>
    c
      .option('--config <file>', 'Config file (default: ./matrix.config.ts)')
      .option('--cell <id>', 'Run only this cell (id, pin or resolved version: all its variants) or variant (its id); repeatable')
      .option('--out <dir>', 'Where results.json, matrix.md and junit.xml go (default: ./matrix-results)')
      .option(
        '--concurrency <n>',
        'Cells (variants) at once, installs included (default: CPU count; with axes, twice as many driver runs as installs)',
      )
      .option('--tarball <file>', 'Use this packed tarball instead of packing (CI fan-out)')
      .option(
        '--plan <file>',
        "Run the frozen plan in this file (`plan --json`'s output) instead of resolving against the registry (CI fan-out)",
      )
      .option('--keep', 'Keep the cell directories, linked at ./cells/<id>, and print how to re-run their driver')
      .option('--fresh', 'A plain npm install in every cell: no dependency tree reused from the tree cache (install.reuse)')
      .option('--update-surface', 'Write mcp-surface.json (next to the config) from this run instead of comparing with it')
      .option('--publish <file>', 'Replace the table between <!-- mcp-matrix:begin/end --> markers in a Markdown file')
      .option('--progress <mode>', 'default | simple | silent (default: default on a TTY, simple otherwise)')
      .option(
        '--baseline <file>',
        'Known failures, cell × phase (default: ./mcp-matrix.baseline.json when it exists): a listed failure is "expected" and does not fail the run; an unlisted one fails (exit 1); a listed one that now passes fails as stale (exit 1, naming the line to delete)',
      )
      .option('--update-baseline', "Write the baseline file from this run's failures (keeps the reasons of entries that still match)");
  runFlags(cli.command('run', 'Run the matrix: pack once, a fresh cell per SDK pin, every phase')).action((flags: Flags) => {
    command = startRun(flags);
  });
  cli
    .command('plan', 'Resolve pins and install sets against the registry; installs nothing')
    .option('--config <file>', 'Config file (default: ./matrix.config.ts)')
    .option('--tarball <file>', 'Read the package from this tarball')
    .option('--json', 'Print the cells as JSON for a GitHub Actions strategy.matrix (fromJSON)')
    .action(async (flags: Flags) => {
      const { planCommand } = await import('./commands/plan.js');
      command = planCommand(
        { cwd, ...opt('config', str(flags.config)), ...opt('tarball', str(flags.tarball)), json: Boolean(flags.json) },
        log,
      );
    });
  cli
    .command('report <results>', 'Re-render matrix.md and junit.xml from a results.json')
    .option('--out <dir>', 'Output directory (default: next to results.json)')
    .action(async (file: string, flags: Flags) => {
      const { reportCommand } = await import('./commands/report.js');
      command = reportCommand(file, { cwd, ...opt('out', str(flags.out)), junit: true }, log);
    });
  cli
    .command('merge [...results]', 'Fan-in: merge single-cell results.json files (or directories holding them) of one plan into one report')
    .option('--out <dir>', 'Output directory (default: ./matrix-results)')
    .option('--plan <file>', "The frozen plan (`plan --json`'s output) every piece must belong to; names every variant without evidence")
    .action(async (files: string[], flags: Flags) => {
      const { mergeCommand } = await import('./commands/merge.js');
      command = mergeCommand(files, { cwd, ...opt('out', str(flags.out)), ...opt('plan', str(flags.plan)) }, log);
    });
  cli
    .command('detect [dir]', 'The package manager and lockfile of the package (default: this directory) as GitHub step outputs')
    .option('--pnpm-version <version>', 'The pnpm version when packageManager names none')
    .action(async (dir: string | undefined, flags: Flags) => {
      const { detectCommand } = await import('./commands/detect.js');
      command = detectCommand({ cwd, ...opt('dir', dir), ...opt('pnpmVersion', str(flags.pnpmVersion)) }, log);
    });
  cli
    .command(
      'pack [dir]',
      "Pack the package (default: this directory) with its own package manager (npm, pnpm, yarn), or with --plan pack (or copy) the plan's source; prints tarball=, size=, sha512= (GitHub step outputs too)",
    )
    .option('--plan <file>', "The frozen plan (`plan --json`'s output): pack its source.directory, or copy its source.tarball")
    .option('--out <dir>', 'Where the tarball goes (default: ./package-tarball)')
    .action(async (dir: string | undefined, flags: Flags) => {
      const { packCommand } = await import('./commands/pack.js');
      command = packCommand(
        { cwd, ...opt('dir', dir), ...opt('plan', str(flags.plan)), ...opt('out', str(flags.out)), signal: interrupts.signal },
        log,
      );
    });
  cli
    .command(
      'init',
      'Start the package in this directory in a scratch cell and write matrix.config.ts from its real surface, plus .github/workflows/mcp-matrix.yml',
    )
    .option('--force', 'Overwrite existing files')
    .option(
      '--http <args>',
      'The arguments that start its Streamable HTTP transport, e.g. "--transport http --port {port}" (adds http and bind)',
    )
    .option('--http-env <KEY=VALUE>', 'Environment for the HTTP server, e.g. MCP_TOKEN={token}; repeatable')
    .action(async (flags: Flags) => {
      // init runs a scratch cell: interrupts, cleanup and leftovers are handled as in `run`.
      interrupts.takeOverForRun();
      const { initCommand } = await import('./commands/init.js');
      command = initCommand(
        {
          cwd,
          force: Boolean(flags.force),
          ...opt('http', str(flags.http)),
          httpEnv: (Array.isArray(flags.httpEnv) ? flags.httpEnv : flags.httpEnv === undefined ? [] : [flags.httpEnv]).map(String),
          signal: interrupts.signal,
        },
        log,
      );
    });
  cli
    .command(
      'cache [action] [...caches]',
      "The harness's per-user caches (clients, node, trees, configs): list (default) shows where each is, its entries and sizes; verify hashes every file and removes a damaged entry (exit 1 when it found one); clear removes every entry. Name caches to act on some only. Size limit: MCP_MATRIX_CACHE_LIMIT (default 2G per cache)",
    )
    .action(async (action: string | undefined, caches: string[]) => {
      const { cacheCommand } = await import('./commands/cache.js');
      command = cacheCommand(action, caches, {}, log);
    });
  cli.command('help [command]', 'Show the help of mcp-matrix, or of one command');
  cli.help((sections) => [
    ...sections,
    {
      title: 'Exit codes',
      body: [
        '  0  every required cell passed (allowed failures and failures listed in the baseline, shown as "expected", included)',
        '  1  a failure not listed in the baseline, a stale allowance, a stale baseline entry (a listed failure that now',
        "     passes: delete the named line), a lockstep error with lockstep: 'error' (plan and run), or a surface",
        '     difference between cells or from mcp-surface.json not allowed by surface.allow, or an answer difference',
        '     (between cells, from mcp-surface.json, or a stale parity.allow entry); init: the server failed',
        '  2  usage or config error (also a bad baseline file)',
        '  3  not measured (infrastructure) with no failure · 130 interrupted',
      ].join('\n'),
    },
  ]);
  cli.version(HARNESS_VERSION);

  function startRun(flags: Flags): Promise<number | Failure> {
    const concurrency = str(flags.concurrency);
    if (concurrency !== undefined && !/^[1-9]\d*$/.test(concurrency)) {
      return Promise.resolve({ kind: 'usage', message: `--concurrency must be a positive whole number, got "${concurrency}"` });
    }
    const progress = str(flags.progress) ?? 'default';
    if (!['default', 'simple', 'silent'].includes(progress))
      return Promise.resolve({ kind: 'usage', message: `--progress must be default, simple or silent, got "${progress}"` });
    interrupts.takeOverForRun();
    return import('./commands/run.js').then(({ runCommand }) =>
      runCommand(
        {
          cwd,
          ...opt('config', str(flags.config)),
          ...opt('tarball', str(flags.tarball)),
          ...opt('plan', str(flags.plan)),
          ...opt('out', str(flags.out)),
          ...(concurrency ? { concurrency: Number(concurrency) } : {}),
          cells: list(flags.cell),
          keep: Boolean(flags.keep),
          ...(flags.fresh ? { fresh: true } : {}),
          updateSurface: Boolean(flags.updateSurface),
          progress: progress as ProgressMode,
          signal: interrupts.signal,
          junit: true,
          ...opt('publish', str(flags.publish)),
          ...opt('baseline', str(flags.baseline)),
          ...(flags.updateBaseline ? { updateBaseline: true } : {}),
        },
        log,
      ),
    );
  }

  const commands = cli.commands.map((c) => c.name).filter(Boolean);
  try {
    // `help [command]` is `[command] --help`.
    if (argv[0] === 'help') {
      const topic = argv[1];
      if (topic !== undefined && !commands.includes(topic)) {
        log.error(`mcp-matrix: no command "${topic}"${didYouMean(topic, commands)}; commands: ${commands.join(', ')}`);
        return 2;
      }
      argv = topic ? [topic, '--help'] : ['--help'];
    }
    // A value that looks like flags (`--http "--transport http"`) is the option's value, not more flags.
    argv = argv.flatMap((a, i) =>
      VALUE_FLAGS.includes(argv[i - 1] ?? '') ? [] : VALUE_FLAGS.includes(a) && argv[i + 1] !== undefined ? [`${a}=${argv[i + 1]}`] : [a],
    );
    // `run` is the default command: `mcp-matrix --cell 2.0.0` means `mcp-matrix run --cell 2.0.0`.
    const args =
      argv.length === 0 || (argv[0]!.startsWith('-') && !['-h', '--help', '-v', '--version'].includes(argv[0]!)) ? ['run', ...argv] : argv;
    const parsed = cli.parse(['node', 'mcp-matrix', ...args], { run: false });
    if (parsed.options.help || parsed.options.version) return 0;
    if (!cli.matchedCommand) {
      const given = String(parsed.args[0] ?? '');
      log.error(`mcp-matrix: unknown command "${given}"${didYouMean(given, commands)}; commands: ${commands.join(', ')} (mcp-matrix help)`);
      return 2;
    }
    const unknownFlag = /^Unknown option `(.+)`$/;
    try {
      await cli.runMatchedCommand();
    } catch (error) {
      const flag = error instanceof Error ? unknownFlag.exec(error.message)?.[1] : undefined;
      if (flag === undefined) throw error;
      const name = cli.matchedCommand.name;
      const flags = [...cli.matchedCommand.options, ...cli.globalCommand.options].flatMap((o) =>
        o.rawName.split(/[\s,]+/).filter((w) => w.startsWith('--')),
      );
      log.error(`mcp-matrix: ${name} has no option ${flag}${didYouMean(flag, flags)} (mcp-matrix help ${name})`);
      return 2;
    }
    const outcome = await (command ?? Promise.resolve(0));
    const code = exitFor(outcome, log);
    await deferredCleanups();
    return interrupts.interrupted() ? 130 : code;
  } catch (error) {
    // cac's parse errors are usage; anything else escaped the harness itself: not measured, with its cause.
    if (!(error instanceof Error) || error.name === 'CACError') {
      log.error(`mcp-matrix: ${error instanceof Error ? error.message : String(error)} (see --help)`);
      return 2;
    }
    log.error(`mcp-matrix: harness error: ${describeInfraError(error) ?? error.message}`);
    return 3;
  } finally {
    interrupts.release();
    holdLateSignals();
  }
}

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
