// The only place besides reporters that writes to the terminal. Streams are injected so tests can capture them.
import type { Writable } from 'node:stream';

export interface Logger {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
  out: Writable;
  err: Writable;
}

export function createLogger(out: Writable = process.stdout, err: Writable = process.stderr): Logger {
  return {
    out,
    err,
    info: (line) => void out.write(`${line}\n`),
    warn: (line) => void err.write(`warning: ${line}\n`),
    error: (line) => void err.write(`${line}\n`),
  };
}
