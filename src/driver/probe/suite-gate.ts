// Preloaded into the conformance suite's process (phases/conformance-runner.ts): runs the suite's CLI once per
// scenario the driver sends on stdin, framed on stdout, while each scenario leaves the process as it found it,
// so loading the suite is paid once per process. Never fails the suite: what cannot be preloaded is left to the CLI.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { staticImports } from './static-imports.js';
import { settledWithin } from '../timer-verdict.js';

const cli = process.argv[1];
const frame = process.env.MCP_MATRIX_SUITE_FRAME ?? '';
const realExit = process.exit.bind(process);
const stdout = process.stdout.write.bind(process.stdout);
const stderr = process.stderr.write.bind(process.stderr);
// The fetch and undici connection pool both the suite and its MCP client use (one per process, by this symbol).
const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
/** Long enough for idle connections to close; a request still running after its scenario ended is a leftover. */
const CLOSE_MS = 200;

/** The CLI's imports, resolved as the CLI resolves them (from its own URL), loaded now; Node < 22.15 only waits. */
async function warm(): Promise<void> {
  const register = (module as { registerHooks?: RegisterHooks }).registerHooks;
  if (!cli || !register) return;
  const parentURL = pathToFileURL(cli).href;
  const self = import.meta.url;
  const hooks = register({
    resolve: (specifier, context, next) => next(specifier, context.parentURL === self ? { ...context, parentURL } : context),
  });
  try {
    for (const specifier of staticImports(readFileSync(cli, 'utf8'))) await import(specifier).catch(() => undefined);
  } finally {
    hooks.deregister();
  }
}

type RegisterHooks = (hooks: {
  resolve: (specifier: string, context: { parentURL?: string }, next: (s: string, c: { parentURL?: string }) => unknown) => unknown;
}) => { deregister(): void };

/** The driver's lines on stdin, one scenario's arguments each; undefined once stdin ends. */
function lines(): () => Promise<string | undefined> {
  let buffered = '';
  let ended = false;
  let waiting: (() => void) | undefined;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    waiting?.();
  });
  const end = () => {
    ended = true;
    waiting?.();
  };
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  process.stdin.once('error', end);
  return async () => {
    for (;;) {
      const at = buffered.indexOf('\n');
      if (at >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        return line;
      }
      if (ended) return undefined;
      await new Promise<void>((resolve) => (waiting = resolve));
      waiting = undefined;
    }
  };
}

/**
 * What keeps this process alive, and the process listeners: a scenario must leave both as it found them. A
 * handle still closing (`CloseReq`, a client the scenario closed just before its exit) is on its way out.
 */
function state(): string {
  const alive = process.getActiveResourcesInfo().filter((r) => r !== 'CloseReq');
  return JSON.stringify([alive.sort(), listenerCounts()]);
}

/** What would run the scenario's code later: its timers and process listeners (a finished request's socket is undici's to release). */
function scheduled(): string {
  return JSON.stringify([process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length, listenerCounts()]);
}

function listenerCounts(): number[] {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection', 'warning'];
  return events.map((e) => process.listenerCount(e));
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs the CLI once with `args`; resolves with the exit code when it calls process.exit or has nothing left to do.
 * A scenario that exits with a timer or process listener of its own left ends the process at that moment, as its
 * exit would have, so none of that runs after its exit; anything else it left open ends the process after settle().
 */
function runOnce(args: string[], seq: number, before: { state: string; scheduled: string }): Promise<number> {
  return new Promise<number>((resolve) => {
    let done = false;
    const end = (code: number) => {
      if (done) return;
      done = true;
      process.removeListener('beforeExit', idle);
      if (scheduled() !== before.scheduled) {
        stdout(`\n${frame} exit ${code}\n`);
        realExit(code);
      }
      // As if the process had exited: whatever the scenario's code still runs prints nowhere.
      process.stdout.write = () => true;
      process.stderr.write = () => true;
      resolve(code);
    };
    const idle = () => end(Number(process.exitCode ?? 0));
    process.exit = ((code?: number | string | null) => end(Number(code ?? process.exitCode ?? 0))) as typeof process.exit;
    process.once('beforeExit', idle);
    process.argv = [process.argv[0]!, cli!, ...args];
    process.exitCode = undefined;
    // One stream, in order: the driver frames the scenario's output by the marker that follows it. Bound: stdout's
    // own write method called on process.stderr would still write to stderr, another pipe, read out of order.
    process.stderr.write = stdout as typeof process.stderr.write;
    // A module evaluated afresh each time (its own state); what it imports stays loaded. An error loading it is the
    // scenario's, reported as Node reports an uncaught one (the process ends with it).
    import(`${pathToFileURL(cli!).href}?scenario=${seq}`).catch((error: unknown) =>
      setImmediate(() => {
        throw error;
      }),
    );
  });
}

/** True when the scenario left the process as it found it; closes the connections it left idle either way. */
async function settle(before: string): Promise<boolean> {
  await tick();
  const pool = (globalThis as Record<symbol, { close(): Promise<void>; constructor: new () => unknown } | undefined>)[DISPATCHER];
  let closed = true;
  if (pool) {
    // A close done by the time the timer's turn ends counts, however late the timer fired (a stalled process).
    closed = await settledWithin(
      pool.close().then(
        () => true,
        () => false,
      ),
      CLOSE_MS,
      () => false,
    );
    // A pool like the one a new process starts with.
    (globalThis as Record<symbol, unknown>)[DISPATCHER] = new pool.constructor();
  }
  await tick();
  return closed && state() === before;
}

await warm().catch(() => undefined);
const next = lines();
let seq = 0;
for (let line = await next(); line !== undefined; line = await next()) {
  process.stdin.unref();
  await tick();
  const before = { state: state(), scheduled: scheduled() };
  const code = await runOnce(JSON.parse(line) as string[], ++seq, before);
  stdout(`\n${frame} exit ${code}\n`);
  const reusable = await settle(before.state);
  process.stdout.write = stdout;
  process.stderr.write = stderr;
  if (!reusable) realExit(code);
  stdout(`\n${frame} next\n`);
  process.stdin.ref();
}
realExit(0);
