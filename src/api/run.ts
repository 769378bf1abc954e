// runMatrix(): the matrix from code. A shell over the library's run (run-core.ts), as the CLI is: nothing
// is printed unless asked (`print`), failures are values (`{ ok: false, error }`), and the run comes back
// typed, as results.json holds it.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger.js';
import { startRunCookie } from '../process/cookie.js';
import { deferredCleanups } from '../process/tracker.js';
import { printResults, printSummary, printWarnings } from './print.js';
import { runToReports } from './run-core.js';
import type { RunMatrixOptions, RunMatrixOutcome } from './run-options.js';

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
      ...(options.inTurn ? { inTurn: true } : {}),
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
