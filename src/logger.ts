// The only place in the harness that writes to the terminal (reporters render strings; the in-cell driver is
// its own program). Streams are injected so tests can capture them.
import type { Writable } from 'node:stream';

export interface Logger {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
  out: Writable;
  err: Writable;
}

export function createLogger(out: Writable = process.stdout, err: Writable = process.stderr): Logger {
  // `mcp-matrix plan | head` closes our stdout early: that ends the output, it is not a crash.
  for (const stream of [out, err]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  return {
    out,
    err,
    info: (line) => void out.write(`${line}\n`),
    warn: (line) => void err.write(`warning: ${line}\n`),
    error: (line) => void err.write(`${line}\n`),
  };
}
