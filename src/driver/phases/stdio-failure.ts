// Why a stdio request failed, in one wording whichever the driver saw first: the client's error for the closed pipe
// or the exit watcher. Once the process has exited and the connection ended under the request, the exit is the
// cause; the client's error stands where the server answered (an error answer) or is still alive.

import type { ExitInfo } from '../server/process.js';
import { errorText, exitNote, StepTimeout } from '../context.js';

/** The exit watcher's rejection: the process exited (and its pipes closed) before the request settled. */
export class ServerExited extends Error {
  readonly exit: ExitInfo;
  constructor(exit: ExitInfo) {
    super(exitedText(exit));
    this.name = 'ServerExited';
    this.exit = exit;
  }
}

/** `the server exited with code 3 (see its stderr)`, or `with signal SIGKILL`. */
export function exitedText(exit: ExitInfo): string {
  return `the server exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`} (see its stderr)`;
}

/** What the phase knows once the request failed. */
export interface FailureSeen {
  /** Its exit, when it has exited (the caller waited a bounded time for it), else null. */
  exit: ExitInfo | null;
  /** The connection ended under the request: the pipe closed with it unanswered, or a write failed. */
  cutOff: boolean;
  /** It never started: the spawn's error. */
  spawnError?: Error;
  bin: string;
}

/** The failure's text, without the step: the same for either order of the client's error and the exit watcher. */
export function failureText(error: unknown, seen: FailureSeen): string {
  if (error instanceof StepTimeout) return error.message;
  if (seen.spawnError) return `could not start ${seen.bin}: ${errorText(seen.spawnError)}`;
  if (error instanceof ServerExited) return error.message;
  if (seen.exit && seen.cutOff) return exitedText(seen.exit);
  return `${errorText(error)}${exitNote(seen.exit)}`;
}
