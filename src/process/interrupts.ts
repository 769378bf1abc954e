// SIGINT/SIGTERM for one CLI invocation, for every command that runs cells: the first signal stops the run
// gracefully (partial results written); a second, or an overrun stop, kills what the run started and exits 130.
import type { Logger } from '../logger.js';
import { currentCookie, killCarriers, startRunCookie } from './cookie.js';
import { hardExit, killAll } from './tracker.js';

/** After the first signal, whatever still waits is cut short: the forced path starts after this. */
const STOP_BOUND_MS = 1_000;
/** The forced path waits this long at most for the run directory's removal; the next run sweeps what is left. */
const FORCED_CLEANUP_MS = 900;

export interface Interrupts {
  /** Aborted on the first signal once a run took the signals over. */
  signal: AbortSignal;
  /** Whether a run was interrupted (its exit code is then 130). */
  interrupted(): boolean;
  /** A command that runs cells takes the signals over, and starts the run's cookie its processes inherit. */
  takeOverForRun(): void;
  /** Hands the signals back (main's end). */
  release(): void;
}

export function watchInterrupts(log: Logger): Interrupts {
  const controller = new AbortController();
  let interrupted = false;
  // A second signal (CI runners send SIGINT, then SIGTERM a second later), or a first one whose graceful
  // stop overran: kill everything of the run, write partial results, remove the run dir within a bound.
  let forcing = false;
  const forceStop = (why: string) => {
    forcing = true;
    log.error(`mcp-matrix: ${why}: stopping now (killing what the run started, writing partial results, removing the run directory)`);
    const cookie = currentCookie();
    if (cookie) killCarriers(cookie);
    void hardExit().then(() => process.exit(130));
    setTimeout(() => process.exit(130), FORCED_CLEANUP_MS);
  };
  // Tools run in their own process groups, so a terminal's Ctrl-C no longer reaches them: the CLI kills them.
  const onOtherSignal = () => {
    killAll();
    process.exit(130);
  };
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 2) process.exit(130); // a third: no more waiting at all
    if (forcing) return; // already on the forced path (bounded)
    if (interrupted) return forceStop(`second signal (${signal})`);
    interrupted = true;
    log.error(`\nmcp-matrix: ${signal}: stopping every cell, cleaning up and writing partial results (again to force)`);
    killAll();
    controller.abort();
    setTimeout(() => forcing || forceStop(`still stopping ${STOP_BOUND_MS} ms after ${signal}`), STOP_BOUND_MS).unref();
  };
  const listen = (handler: (signal: NodeJS.Signals) => void) => {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  };
  const unlisten = (handler: (signal: NodeJS.Signals) => void) => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  listen(onOtherSignal);
  return {
    signal: controller.signal,
    interrupted: () => interrupted,
    takeOverForRun() {
      unlisten(onOtherSignal);
      listen(onSignal);
      // Every process this run starts inherits the cookie: leftovers are found by it, now or by a later run.
      startRunCookie();
    },
    release() {
      unlisten(onSignal);
      unlisten(onOtherSignal);
    },
  };
}
