// The raw HTTP the http phase's spec checks send: one request over node:http with exactly the headers a
// check needs (a Host override needs node:http: fetch forbids it), and what came back. It lives apart from
// the judgements in spec-checks.ts so those stay pure functions of a RawAnswer.

import { request } from 'node:http';
import { verdictTimer } from '../timer-verdict.js';

/** What one raw request got back: status and the headers the checks read; or why there was no answer. */
export interface RawAnswer {
  status: number;
  sessionId?: string;
  contentType?: string;
  body: string;
}

export interface RawRequest {
  method: 'POST' | 'DELETE' | 'GET';
  headers: Record<string, string>;
  body?: unknown;
  /** The path and query, when not the endpoint's own (the query-string token). */
  path?: string;
}

/**
 * No HTTP answer, as a value (never thrown): none within the bound, or the socket's error, with its code
 * (`ECONNRESET`, `ECONNREFUSED` …) when it had one. An Error, so its message reads as node:http's did.
 */
export class NoAnswer extends Error {
  readonly kind = 'no-answer';
  readonly code?: string;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'NoAnswer';
    if (code !== undefined) this.code = code;
  }

  /** The failure node:http or fetch reported (fetch keeps the socket's in `cause`), its message and code kept. */
  static of(error: unknown): NoAnswer {
    if (!(error instanceof Error)) return new NoAnswer(String(error));
    const code = [error, error.cause].map((e) => (e as NodeJS.ErrnoException | undefined)?.code).find((c) => typeof c === 'string');
    return new NoAnswer(error.message, code);
  }
}

/** What a raw request got: an answer, or why there was none. */
export type Sent = RawAnswer | NoAnswer;

export type Send = (req: RawRequest) => Promise<Sent>;

/** How long a body is read: enough for an initialize answer on an SSE stream. */
const BODY_LIMIT = 64 * 1024;

/** How many same-origin 307/308 redirects a request follows (a trailing-slash rule is one). */
const MAX_REDIRECTS = 3;

/**
 * A sender for one endpoint: node:http, the Host header as given (else the URL's), bounded by `timeoutMs`.
 * A 307 or 308 to the same origin is followed with the same method, body and headers, as the SDK's client
 * (fetch) follows it: the checks judge the endpoint that serves, not its redirect. Another origin's is not.
 */
export function rawSender(url: string, timeoutMs: number): Send {
  const target = new URL(url);
  const once = sendOnce(target, timeoutMs);
  return async (req) => {
    let path = req.path ?? `${target.pathname}${target.search}`;
    for (let hop = 0; ; hop++) {
      const a = await once(req, path);
      if (a instanceof NoAnswer || (a.status !== 307 && a.status !== 308) || !a.location || hop >= MAX_REDIRECTS) return strip(a);
      const next = new URL(a.location, new URL(path, target));
      if (next.origin !== target.origin) return strip(a);
      path = `${next.pathname}${next.search}`;
    }
  };
}

const strip = (a: (RawAnswer & { location?: string }) | NoAnswer): Sent => {
  if (a instanceof NoAnswer) return a;
  const { location: _l, ...rest } = a;
  return rest;
};

function sendOnce(target: URL, timeoutMs: number) {
  return (req: RawRequest, path: string): Promise<(RawAnswer & { location?: string }) | NoAnswer> =>
    new Promise((settle) => {
      // The whole exchange is bounded, not only an idle socket: a stream that trickles comments never goes idle.
      // An answer read in the turn after a late deadline (a stalled process) is that answer.
      const deadline = verdictTimer(() => {
        settle(new NoAnswer(`no answer within ${timeoutMs} ms`));
        r.destroy();
      }, timeoutMs);
      const resolve = (a: (RawAnswer & { location?: string }) | NoAnswer): void => {
        deadline.clear();
        settle(a);
      };
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      const headers: Record<string, string> = { ...req.headers };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const r = request(
        {
          host: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port,
          path,
          method: req.method,
          headers,
          agent: false,
          timeout: timeoutMs,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          const finish = (): void => {
            const sid = res.headers['mcp-session-id'];
            resolve({
              status: res.statusCode ?? 0,
              ...(typeof sid === 'string' ? { sessionId: sid } : {}),
              ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}),
              ...(res.headers.location ? { location: res.headers.location } : {}),
              body: text,
            });
          };
          res.on('data', (chunk: string) => {
            text += chunk;
            // An SSE answer to a POST ends when its response is sent; one that stays open is read up to its first
            // event with data (a priming event, `id` and empty data, is not the answer).
            if (text.length > BODY_LIMIT || (/event-stream/.test(res.headers['content-type'] ?? '') && sseData(text, true).length)) {
              finish();
              res.destroy();
            }
          });
          res.on('end', finish);
          res.on('error', finish);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      r.on('error', (e) => resolve(NoAnswer.of(e)));
      r.end(body);
    });
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export const SPEC_INITIALIZE = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'mcp-matrix-driver', version: '0.1.0' } },
});

/**
 * The data of each SSE event with any, in order: a line ends at CRLF, LF or CR (SSE allows each, and a stream may
 * mix them), an event at a blank line. `complete`: only events whose blank line has come (the last may still be
 * arriving); else the end of the text ends the last event too. A trailing CR read as a line end is never wrong:
 * an LF after it would end the same line.
 */
export function sseData(text: string, complete = false): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  // The piece after the last line end is a line still arriving; without `complete` the text's end ends it.
  if (complete) lines.pop();
  else lines.push('');
  const events: string[] = [];
  let data: string[] = [];
  for (const line of lines) {
    if (line === '') {
      if (data.join('\n')) events.push(data.join('\n'));
      data = [];
    } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return events;
}

/** The protocol version the server answered initialize with (JSON or the first SSE event with data), if it did. */
export function negotiatedVersion(a: RawAnswer): string | undefined {
  const data = /event-stream/.test(a.contentType ?? '') ? sseData(a.body)[0] : a.body;
  try {
    const v = (JSON.parse(data ?? '') as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
