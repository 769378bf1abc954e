// The probe's part (probe.ts) that records each uncaught error of the server, so the bind phase can tell
// a crash from a refusal. It only observes: the crash still ends the process as before. The probe's rules
// hold: never print, never throw into the server.

import type { Write } from './probe-listen.js';

/** The probe's record of an uncaught error: what the bind phase needs to tell a crash from a refusal. */
export function crashRecord(error: unknown, origin: string): Record<string, unknown> {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  return {
    type: 'crash',
    origin,
    name: typeof e.name === 'string' ? e.name : typeof error,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    message: (message.split('\n')[0] ?? '').slice(0, 500),
  };
}

/** Whether the server's own code takes an uncaught error (its 'uncaughtException' listener or capture callback). */
function handledByServer(): boolean {
  return process.listenerCount('uncaughtException') > 0 || process.hasUncaughtExceptionCaptureCallback();
}

/**
 * Records each uncaught error. A monitor only observes: the crash (a module that cannot load, a syntax error)
 * still ends the process as before. One the server's own handler takes is recorded `handled: true` (it did
 * not end the process); if the handler exits at once (within the same turn), the error did end it after all,
 * and it is recorded again, unhandled.
 */
export function watchCrashes(write: Write): void {
  let inHandler: Record<string, unknown> | undefined;
  process.on('uncaughtExceptionMonitor', (error, origin) => {
    try {
      const handled = handledByServer();
      const record = crashRecord(error, origin);
      write(handled ? { ...record, handled: true } : record);
      if (!handled) return;
      inHandler = record;
      queueMicrotask(() => (inHandler = undefined));
    } catch {
      // The probe must never disturb the server.
    }
  });
  process.on('exit', () => {
    if (inHandler) write({ ...inHandler, exitedInHandler: true });
  });
}
