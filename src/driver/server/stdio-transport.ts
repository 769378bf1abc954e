// Our own stdio Transport over a child's pipes (newline-delimited JSON). The SDK's StdioClientTransport
// spawns and kills the child itself, which would hide a server that does not exit; this one only
// ever ends stdin. Owning the framing also lets us see non-JSON-RPC stdout and the initialize result.

import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';

export type JsonRpcMessage = Record<string, unknown> & { jsonrpc: '2.0' };

export interface InitializeResult {
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  serverInfo?: { name?: string; version?: string };
}

/** A line that is not a JSON-RPC 2.0 object: the stdout protocol channel was polluted. */
export function parseLine(line: string): JsonRpcMessage | null {
  try {
    const value: unknown = JSON.parse(line);
    if (value && typeof value === 'object' && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0')
      return value as JsonRpcMessage;
  } catch {
    // not JSON
  }
  return null;
}

/** Splits a byte stream into lines; a line longer than `maxLine` is cut and reported once as noise. */
export class LineSplitter {
  private buffer = '';
  private readonly decoder = new StringDecoder('utf8');
  private readonly maxLine: number;
  private readonly onLine: (line: string) => void;
  private overflowing = false;

  constructor(onLine: (line: string) => void, maxLine = 16 * 1024 * 1024) {
    this.onLine = onLine;
    this.maxLine = maxLine;
  }

  push(chunk: Buffer | string): void {
    const parts = (this.buffer + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk))).split('\n');
    this.buffer = parts.pop() ?? '';
    for (const part of parts) this.emit(part);
    if (this.buffer.length > this.maxLine) {
      if (!this.overflowing) this.onLine(this.buffer.slice(0, 300));
      this.overflowing = true;
      this.buffer = '';
    }
  }

  end(): void {
    const rest = this.buffer + this.decoder.end();
    this.buffer = '';
    if (rest) this.emit(rest);
  }

  private emit(raw: string): void {
    if (this.overflowing) {
      this.overflowing = false;
      return;
    }
    const line = raw.replace(/\r$/, '');
    if (line.trim() !== '') this.onLine(line);
  }
}

export interface StdioTransportOptions {
  onNoise(line: string): void;
}

/** Structurally the SDK's `Transport` (start/send/close + callbacks), for both majors. */
export class PipeTransport {
  onmessage?: (message: JsonRpcMessage, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  initializeResult: InitializeResult | undefined;
  private readonly stdin: Writable;
  private readonly stdout: Readable;
  private readonly options: StdioTransportOptions;
  private readonly splitter: LineSplitter;
  private initializeId: unknown;
  private closed = false;
  /** Ids of requests sent and not yet answered (a cancelled one expects no answer). */
  private readonly unanswered = new Set<unknown>();
  /** The connection ended under a request: it closed with one unanswered, or a write to the server failed. */
  cutOff = false;

  constructor(stdin: Writable, stdout: Readable, options: StdioTransportOptions) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.options = options;
    this.splitter = new LineSplitter((line) => this.receive(line));
  }

  async start(): Promise<void> {
    this.stdout.on('data', (chunk: Buffer) => this.splitter.push(chunk));
    this.stdout.once('end', () => {
      this.splitter.end();
      this.finish();
    });
    this.stdout.once('close', () => this.finish());
    this.stdin.on('error', (error: Error) => this.onerror?.(error));
  }

  private receive(line: string): void {
    const message = parseLine(line);
    if (!message) {
      this.options.onNoise(line);
      return;
    }
    if (message.method === undefined) this.unanswered.delete(message.id);
    if (this.initializeId !== undefined && message.id === this.initializeId && message.result) {
      this.initializeResult = message.result as InitializeResult;
    }
    this.onmessage?.(message);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) {
      this.cutOff = true;
      throw new Error('transport closed');
    }
    if (message.method === 'initialize' && message.id !== undefined) this.initializeId = message.id;
    if (message.method !== undefined && message.id !== undefined) this.unanswered.add(message.id);
    if (message.method === 'notifications/cancelled')
      this.unanswered.delete((message.params as { requestId?: unknown } | undefined)?.requestId);
    const data = JSON.stringify(message) + '\n';
    await new Promise<void>((resolve, reject) => {
      this.stdin.write(data, (error) => {
        if (error) this.cutOff = true;
        return error ? reject(error) : resolve();
      });
    });
  }

  /** Ends stdin (EOF) and nothing more: whether the server then exits is the leaks phase's question. */
  async close(): Promise<void> {
    if (!this.stdin.writableEnded) this.stdin.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.unanswered.size) this.cutOff = true;
    this.onclose?.();
  }
}
