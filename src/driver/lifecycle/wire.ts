// Raw JSON-RPC to a live server for the lifecycle checks: a second `initialize` or a cancellation cannot be
// sent through either SDK's client. Stdio shares the phase's pipe; HTTP uses a session of its own. An answer
// never rejects: it is a result, an error, nothing, or the server gone.

import { request as httpRequest, type ClientRequest } from 'node:http';
import type { JsonRpcMessage, PipeTransport } from '../server/stdio-transport.js';
import type { ServerProcess } from '../server/process.js';
import { answerOf, goneWhy, ID_PREFIX, within, writeFailed, type Answer, type Wire } from './answer.js';
import { sseData } from '../http/raw-http.js';
import { defined } from '../../contract/fields.js';
import { verdictTimer } from '../timer-verdict.js';

export { within, type Answer, type Call, type Wire } from './answer.js';

/**
 * The stdio phase's pipe, shared with the SDK client: installed after the client connected, it takes the
 * answers to our ids (string ids the client never uses) and hands every other message to the client.
 */
export function stdioWire(transport: PipeTransport, proc: ServerProcess): Wire {
  const pending = new Map<string, (a: Answer) => void>();
  const client = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = message.id;
    if (typeof id === 'string' && id.startsWith(ID_PREFIX) && !('method' in message)) {
      pending.get(id)?.(answerOf(message));
      pending.delete(id);
      return;
    }
    client?.(message, extra);
  };
  const gone = goneWhy(proc);
  let n = 0;
  const send = (message: Record<string, unknown>): Promise<string | null> =>
    transport.send({ jsonrpc: '2.0', ...message } as JsonRpcMessage).then(
      () => null,
      (e: unknown) => writeFailed(gone, e),
    );
  return {
    request(method, params) {
      const id = `${ID_PREFIX}${++n}`;
      const answer = new Promise<Answer>((resolve) => {
        pending.set(id, resolve);
        void gone.then((why) => resolve({ kind: 'closed', why }));
        void send({ id, method, ...(params ? { params } : {}) }).then((problem) => {
          if (problem) resolve({ kind: 'closed', why: problem });
        });
      });
      return { id, answer };
    },
    notify: (method, params) => send({ method, ...(params ? { params } : {}) }),
    gone,
    end: () => {
      // Late answers to our ids stay off the client's channel: the tap stays.
      pending.clear();
      return Promise.resolve(null);
    },
  };
}

export interface HttpSession {
  wire: Wire;
  /** The `initialize` result of the session's own handshake. */
  init: Record<string, unknown>;
  sessionId?: string;
}

const BODY_LIMIT = 1024 * 1024;

/**
 * A session of our own on the endpoint: `initialize` (without a session id), `notifications/initialized`,
 * then every message with the session id and the negotiated `MCP-Protocol-Version`. Fails with why.
 */
export async function httpSession(
  url: string,
  authorization: string | undefined,
  proc: ServerProcess,
  timeoutMs: number,
  clientInfo: { name: string; version: string },
): Promise<HttpSession | string> {
  const target = new URL(url);
  const open = new Set<ClientRequest>();
  const gone = goneWhy(proc);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(authorization ? { authorization } : {}),
  };
  let n = 0;
  /** One POST; its answer is the response to `id` (null for a notification: the status alone). */
  const post = (
    message: Record<string, unknown>,
    id: string | null,
  ): { answer: Promise<Answer & { status?: number; session?: string }> } => {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    const answer = new Promise<Answer & { status?: number; session?: string }>((resolve) => {
      const req = httpRequest(
        {
          host: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: false,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const sid = res.headers['mcp-session-id'];
          const session = typeof sid === 'string' ? sid : undefined;
          const sse = /event-stream/.test(res.headers['content-type'] ?? '');
          let text = '';
          let done = false;
          const finish = (a: Answer): void => {
            if (done) return;
            done = true;
            resolve({ ...a, status, ...(session ? { session } : {}) });
            res.destroy();
          };
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.length > BODY_LIMIT) return finish({ kind: 'none', why: `the answer exceeded ${BODY_LIMIT} bytes` });
            if (sse && id !== null) {
              const found = sseAnswer(text, id);
              if (found) finish(found);
            }
          });
          const ended = (): void => {
            if (status === 404 && id !== null) return finish({ kind: 'closed', why: 'the session is gone (HTTP 404)' });
            const parsed = id === null ? undefined : sse ? sseAnswer(text, id) : jsonAnswer(text, id);
            if (parsed) return finish(parsed);
            if (status >= 400) {
              const code = errorCodeIn(text);
              return finish({
                kind: 'error',
                ...defined({ code }),
                message: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`,
              });
            }
            finish({ kind: 'none', why: id === null ? `HTTP ${status}` : 'the response ended without an answer' });
          };
          res.on('end', ended);
          res.on('close', ended);
          res.on('error', ended);
        },
      );
      open.add(req);
      req.on('close', () => open.delete(req));
      // A refused or reset connection is most often the server's exit: named as that when it follows at once.
      req.on('error', (e) => {
        const timer = verdictTimer(() => resolve({ kind: 'closed', why: `the connection failed: ${e.message}` }), 500);
        void gone.then((why) => {
          timer.clear();
          resolve({ kind: 'closed', why });
        });
      });
      void gone.then((why) => resolve({ kind: 'closed', why }));
      req.end(body);
    });
    return { answer };
  };
  const first = await within(
    post(
      { id: `${ID_PREFIX}0`, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo } },
      `${ID_PREFIX}0`,
    ).answer,
    timeoutMs,
  );
  if (first.kind !== 'result') return `its own session could not be opened: initialize got ${describeAnswer(first)}`;
  const session = 'session' in first ? (first.session as string | undefined) : undefined;
  if (session) headers['mcp-session-id'] = session;
  const version = first.result.protocolVersion;
  if (typeof version === 'string') headers['mcp-protocol-version'] = version;
  const notify = async (method: string, params?: Record<string, unknown>): Promise<string | null> => {
    const a = await within(post({ method, ...(params ? { params } : {}) }, null).answer, timeoutMs);
    const status = (a as { status?: number }).status;
    return status !== undefined && status >= 200 && status < 300 ? null : `${method} got ${status ? `HTTP ${status}` : describeAnswer(a)}`;
  };
  const initialized = await notify('notifications/initialized');
  if (initialized) return `its own session could not be opened: ${initialized}`;
  const wire: Wire = {
    request(method, params) {
      const id = `${ID_PREFIX}${++n}`;
      return { id, answer: post({ id, method, ...(params ? { params } : {}) }, id).answer };
    },
    notify,
    gone,
    async end() {
      for (const req of open) req.destroy();
      if (!session) return null;
      const status = await deleteSession(target, headers, timeoutMs);
      // 405: the server does not let clients end sessions, which the spec allows.
      return typeof status === 'number' && ((status >= 200 && status < 300) || status === 405)
        ? null
        : `DELETE of the session got ${typeof status === 'number' ? `HTTP ${status}` : status}`;
    },
  };
  return { wire, init: first.result, ...(session ? { sessionId: session } : {}) };
}

function deleteSession(target: URL, headers: Record<string, string>, timeoutMs: number): Promise<number | string> {
  return new Promise((resolve) => {
    const { 'content-type': _type, ...rest } = headers;
    const req = httpRequest(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: 'DELETE',
        headers: rest,
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve(e.message));
    req.end();
  });
}

/** The response to `id` in an SSE body, once its event is complete (CRLF, LF or CR line ends: raw-http's reader). */
export function sseAnswer(text: string, id: string): Answer | null {
  for (const data of sseData(text, true)) {
    const found = jsonAnswer(data, id);
    if (found) return found;
  }
  return null;
}

/** The response to `id` in a JSON body (one message or a batch). */
export function jsonAnswer(text: string, id: string): Answer | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const messages = Array.isArray(value) ? value : [value];
  const mine = messages.find((m): m is Record<string, unknown> => !!m && typeof m === 'object' && (m as { id?: unknown }).id === id);
  return mine && ('result' in mine || 'error' in mine) ? answerOf(mine) : null;
}

/** The JSON-RPC error code in a refusal's body (`id: null` when the server could not tie it to a request). */
function errorCodeIn(text: string): number | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** One answer in words: `a result`, `the error -32601 "Method not found"`, `no answer within 3000 ms`. */
export function describeAnswer(a: Answer): string {
  switch (a.kind) {
    case 'result':
      return a.result.isError === true ? 'an isError result' : 'a result';
    case 'error':
      return `the error ${a.code ?? '(no code)'} ${JSON.stringify(a.message.slice(0, 160))}`;
    case 'none':
    case 'closed':
      return a.why;
  }
}
