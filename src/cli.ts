// The CLI: the command table (cli/commands.ts) on cac, argv handling (cli/argv.ts) and the one error boundary.
// Exit codes: 0 pass · 1 failed (unlisted failure, stale allowance or baseline entry, lockstep error, surface or
// answer difference) · 2 usage/config · 3 not measured · 130 interrupted.
import { cac } from 'cac';
import { normalizeArgv } from './cli/argv.js';
import { COMMANDS, EXIT_CODES_HELP, type CommandContext } from './cli/commands.js';
import { CliError, EXIT_CODES, failureError, thrownError, unknownOption } from './cli/errors.js';
import { createLogger, type Logger } from './logger.js';
import { watchInterrupts } from './process/interrupts.js';
import { holdLateSignals } from './process/late-signals.js';
import { deferredCleanups } from './process/tracker.js';
import { didYouMean } from './util/did-you-mean.js';
import type { Failure } from './util/result.js';
import { HARNESS_VERSION } from './version.js';

export async function main(argv: string[], log: Logger = createLogger()): Promise<number> {
  const interrupts = watchInterrupts(log);
  const ctx: CommandContext = { cwd: process.cwd(), log, signal: interrupts.signal, takeOver: () => interrupts.takeOverForRun() };
  const cli = cac('mcp-matrix');
  let command: Promise<number | Failure> | undefined;
  for (const spec of COMMANDS) {
    const c = cli.command(spec.name, spec.description);
    for (const [flag, text] of spec.options ?? []) c.option(flag, text);
    c.action((...args: unknown[]) => {
      const flags = args.pop() as Record<string, unknown>;
      command = spec.run(args, flags, ctx);
    });
  }
  cli.command('help [command]', 'Show the help of mcp-matrix, or of one command');
  cli.help((sections) => [...sections, { title: 'Exit codes', body: EXIT_CODES_HELP }]);
  cli.version(HARNESS_VERSION);
  const names = cli.commands.map((c) => c.name).filter(Boolean);
  const named = (given: string) => `"${given}"${didYouMean(given, names)}; commands: ${names.join(', ')}`;
  try {
    const topic = argv[0] === 'help' ? argv[1] : undefined;
    if (topic !== undefined && !names.includes(topic)) throw new CliError('MM_USAGE', `no command ${named(topic)}`);
    const parsed = cli.parse(['node', 'mcp-matrix', ...normalizeArgv(argv)], { run: false });
    if (parsed.options.help || parsed.options.version) return 0;
    const matched = cli.matchedCommand;
    if (!matched) throw new CliError('MM_USAGE', `unknown command ${named(String(parsed.args[0] ?? ''))} (mcp-matrix help)`);
    try {
      await cli.runMatchedCommand();
    } catch (error) {
      throw unknownOption(error, matched.name, [...matched.options, ...cli.globalCommand.options]) ?? error;
    }
    const outcome = await (command ?? 0);
    const code = typeof outcome === 'number' ? outcome : report(failureError(outcome), log);
    await deferredCleanups();
    return interrupts.interrupted() ? 130 : code;
  } catch (error) {
    return report(thrownError(error), log);
  } finally {
    interrupts.release();
    holdLateSignals();
  }
}

/** The boundary's one message: `mcp-matrix: <message>` and its detail lines; the exit code of its code. */
function report(error: CliError, log: Logger): number {
  log.error(`mcp-matrix: ${error.message}`);
  for (const d of error.details) log.error(`  ${d}`);
  return EXIT_CODES[error.code];
}
