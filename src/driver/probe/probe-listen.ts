// The probe's part (probe.ts) that reports every TCP listen the server makes, synchronously where it can,
// so the bind phase sees even a brief listen, and every listen that failed: an attempt to expose itself is
// a finding even when the port was taken. The probe's rules hold: never print, never throw into the server.

import net from 'node:net';

/** How the probe appends one record to its file. */
export type Write = (record: Record<string, unknown>) => void;

/** The probe's record of a listen that failed: the address and port it asked for, and why it was refused. */
export function listenFailure(error: unknown): Record<string, unknown> | undefined {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    syscall?: unknown;
    code?: unknown;
    address?: unknown;
    port?: unknown;
  };
  if (e.syscall !== 'listen' || typeof e.address !== 'string') return undefined;
  return {
    type: 'listen-failed',
    address: e.address,
    ...(typeof e.port === 'number' ? { port: e.port } : {}),
    code: typeof e.code === 'string' ? e.code : 'error',
  };
}

export function patchListen(write: Write): void {
  const proto = net.Server.prototype as net.Server & { __mcpMatrixProbe?: boolean };
  if (proto.__mcpMatrixProbe) return;
  proto.__mcpMatrixProbe = true;
  const original = proto.listen;
  const reported = new WeakSet<net.Server>();
  const report = (server: net.Server): void => {
    if (reported.has(server)) return;
    const address = server.address();
    if (!address) return;
    reported.add(server);
    // `at`: when it listened, on the wall clock the harness reads too (Date.now in both processes, one host), so
    // a listen read late (the harness descheduled) is still judged by its own time.
    const at = Date.now();
    if (typeof address === 'string') write({ type: 'listen', address, at });
    else write({ type: 'listen', address: address.address, port: address.port, family: address.family, at });
  };
  // A listen that fails (EADDRINUSE, EACCES …) is an attempt all the same: bind judges what the server
  // tried, not only what it got. The error event is observed on its way, never handled here.
  const emit = proto.emit;
  proto.emit = function (this: net.Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'error') {
      try {
        const record = listenFailure(args[0]);
        if (record) write(record);
      } catch {
        // ignore
      }
    }
    return (emit as (...a: unknown[]) => boolean).apply(this, [event, ...args]);
  } as typeof proto.emit;
  proto.listen = function (this: net.Server, ...args: unknown[]) {
    this.once('listening', () => report(this));
    const result = (original as (...a: unknown[]) => net.Server).apply(this, args);
    // A numeric host binds synchronously: report now, before the program can exit without an event.
    try {
      if (this.listening) report(this);
    } catch {
      // ignore
    }
    return result;
  } as typeof proto.listen;
}
