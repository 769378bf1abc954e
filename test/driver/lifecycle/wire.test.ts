// The lifecycle checks' raw JSON-RPC wire (lifecycle-wire.ts). Over HTTP: `httpSession` against a scripted
// node:http server on a real loopback socket, answering the shapes a server may answer (JSON, SSE, a refusal,
// a dropped connection, silence), each with the answer or the reason the wire must give. Over stdio:
// `stdioWire` on a real PipeTransport whose pipes the test plays the server on. The pure readings (an SSE
// stream, a JSON body, an answer in words) below. The wire under the lifecycle checks against real server
// processes: test/driver/phases/lifecycle.test.ts, test/driver/phases/http-lifecycle.test.ts.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ID_PREFIX, within } from '../../../src/driver/lifecycle/answer.js';
import { describeAnswer, httpSession, jsonAnswer, sseAnswer, stdioWire, type HttpSession } from '../../../src/driver/lifecycle/wire.js';
import type { ExitInfo, ServerProcess } from '../../../src/driver/server/process.js';
import { PipeTransport } from '../../../src/driver/server/stdio-transport.js';

/** A stand-in for the server's process: only `closed` is read, resolved when the test says it exited. */
function process_() {
  let exit!: (e: ExitInfo) => void;
  const closed = new Promise<ExitInfo>((resolve) => (exit = resolve));
  return {
    proc: { closed } as unknown as ServerProcess,
    exit: (code: number | null, signal: NodeJS.Signals | null = null) => exit({ code, signal, at: Date.now() }),
  };
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  text: string;
  body: Record<string, unknown> | null;
}
type Reply = (seen: Seen, res: ServerResponse) => void;

const servers: { server: Server; sockets: Set<Socket> }[] = [];
afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A scripted server on a free loopback port: every request recorded, answered by `reply`. */
async function scripted(reply: Reply, host = '127.0.0.1', path = '/mcp') {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, text, body: text ? JSON.parse(text) : null };
      seen.push(s);
      reply(s, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`, port, seen, server };
}

const INIT = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1.0.0' } };

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function events(res: ServerResponse, chunks: string[], end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const c of chunks) res.write(c);
  if (end) res.end();
}

interface Handshake {
  /** The session id the server hands out (null: none). */
  session?: string | null;
  /** The result's protocolVersion (absent from the result when undefined). */
  version?: unknown;
  deleteStatus?: number;
}

/** The handshake and DELETE as a streamable HTTP server answers them; true when `s` was one of them. */
function handshake(s: Seen, res: ServerResponse, h: Handshake = {}): boolean {
  if (s.method === 'DELETE') {
    res.writeHead(h.deleteStatus ?? 200);
    res.end();
    return true;
  }
  if (s.body?.method === 'initialize') {
    const session = h.session === undefined ? 'session-1' : h.session;
    const result = { ...INIT, protocolVersion: 'version' in h ? h.version : INIT.protocolVersion };
    json(res, 200, { jsonrpc: '2.0', id: s.body.id, result }, session ? { 'mcp-session-id': session } : {});
    return true;
  }
  if (s.body?.method === 'notifications/initialized') {
    res.writeHead(202);
    res.end();
    return true;
  }
  return false;
}

/** A server that completes the handshake and answers each request with `answer` (default: a JSON result). */
function server(
  answer: Reply = (s, res) => json(res, 200, { jsonrpc: '2.0', id: s.body?.id, result: { ok: s.body?.method } }),
  h: Handshake = {},
): Reply {
  return (s, res) => {
    if (!handshake(s, res, h)) answer(s, res);
  };
}

const CLIENT = { name: 'wire-test', version: '9.8.7' };

async function session(url: string, proc: ServerProcess, authorization?: string, timeoutMs = 3000): Promise<HttpSession> {
  const s = await httpSession(url, authorization, proc, timeoutMs, CLIENT);
  if (typeof s === 'string') throw new Error(s);
  return s;
}

describe('httpSession: opening its own session', () => {
  it('initialize without a session id, then notifications/initialized and every request with the session id and the negotiated version', async () => {
    const { url, seen } = await scripted(server());
    const { proc } = process_();
    const s = await session(`${url}?tenant=a`, proc, 'Bearer tok-123');
    expect(s.init).toEqual(INIT);
    expect(s.sessionId).toBe('session-1');
    const [init, initialized] = seen;
    expect(init!.method).toBe('POST');
    expect(init!.url).toBe('/mcp?tenant=a');
    expect(init!.body).toEqual({
      jsonrpc: '2.0',
      id: `${ID_PREFIX}0`,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: CLIENT },
    });
    expect(init!.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer tok-123',
      'content-length': String(Buffer.byteLength(init!.text)),
    });
    expect(init!.headers['mcp-session-id']).toBeUndefined();
    expect(init!.headers['mcp-protocol-version']).toBeUndefined();
    expect(initialized!.body).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(initialized!.url).toBe('/mcp?tenant=a');
    expect(initialized!.headers).toMatchObject({
      'mcp-session-id': 'session-1',
      'mcp-protocol-version': '2025-06-18',
      authorization: 'Bearer tok-123',
    });

    const first = s.wire.request('tools/list');
    const second = s.wire.request('tools/call', { name: 'echo', arguments: {} });
    expect([first.id, second.id]).toEqual([`${ID_PREFIX}1`, `${ID_PREFIX}2`]);
    expect(await first.answer).toMatchObject({ kind: 'result', result: { ok: 'tools/list' } });
    expect(await second.answer).toMatchObject({ kind: 'result', result: { ok: 'tools/call' } });
    expect(seen[2]!.body).toEqual({ jsonrpc: '2.0', id: `${ID_PREFIX}1`, method: 'tools/list' });
    expect(seen[3]!.body).toEqual({ jsonrpc: '2.0', id: `${ID_PREFIX}2`, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(seen[3]!.headers).toMatchObject({ 'mcp-session-id': 'session-1', 'mcp-protocol-version': '2025-06-18' });

    expect(await s.wire.notify('notifications/cancelled', { requestId: first.id })).toBeNull();
    expect(seen[4]!.body).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: first.id } });
    expect(await s.wire.end()).toBeNull();
    expect(seen[5]!.method).toBe('DELETE');
  });

  it('a server without sessions, or with no version in its result: neither header is sent, and no DELETE at the end', async () => {
    const { url, seen } = await scripted(server(undefined, { session: null, version: 20250618 }));
    const { proc } = process_();
    const s = await session(url, proc);
    expect(s).not.toHaveProperty('sessionId');
    expect(s.init).toEqual({ ...INIT, protocolVersion: 20250618 });
    expect(await s.wire.request('ping').answer).toMatchObject({ kind: 'result' });
    for (const r of seen) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers['mcp-session-id']).toBeUndefined();
      expect(r.headers['mcp-protocol-version']).toBeUndefined();
    }
    expect(await s.wire.end()).toBeNull();
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('an IPv6 loopback endpoint ([::1] in the URL) is reached, DELETE included', async () => {
    const { url, seen } = await scripted(server(), '::1');
    const { proc } = process_();
    const s = await session(url, proc);
    expect(await s.wire.request('ping').answer).toMatchObject({ kind: 'result', result: { ok: 'ping' } });
    expect(await s.wire.end()).toBeNull();
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST', 'POST', 'DELETE']);
  });

  it('an initialize answered on an SSE stream opens the session too', async () => {
    const { url } = await scripted((s, res) => {
      if (s.body?.method === 'initialize')
        return events(res, [`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: s.body.id, result: INIT })}\n\n`]);
      handshake(s, res);
    });
    const { proc } = process_();
    const s = await session(url, proc);
    expect(s.init).toEqual(INIT);
    expect(s).not.toHaveProperty('sessionId');
  });

  it('initialize refused, answered with an error, or not answered: why, and no session', async () => {
    const { proc } = process_();
    const refused = await scripted((_s, res) => json(res, 401, '{"error":"invalid_token"}', { 'www-authenticate': 'Bearer' }));
    expect(await httpSession(refused.url, 'Bearer wrong', proc, 3000, CLIENT)).toBe(
      'its own session could not be opened: initialize got the error (no code) "HTTP 401: {\\"error\\":\\"invalid_token\\"}"',
    );
    const error = await scripted((s, res) =>
      json(res, 200, { jsonrpc: '2.0', id: s.body?.id, error: { code: -32602, message: 'Unsupported protocol version' } }),
    );
    expect(await httpSession(error.url, undefined, proc, 3000, CLIENT)).toBe(
      'its own session could not be opened: initialize got the error -32602 "Unsupported protocol version"',
    );
    const silent = await scripted(() => undefined);
    expect(await httpSession(silent.url, undefined, proc, 300, CLIENT)).toBe(
      'its own session could not be opened: initialize got no answer within 300 ms',
    );
  });

  it('notifications/initialized refused, or not answered: why, and no session', async () => {
    const { proc } = process_();
    const refused = await scripted((s, res) => {
      if (s.body?.method === 'notifications/initialized')
        return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no' } });
      handshake(s, res);
    });
    expect(await httpSession(refused.url, undefined, proc, 3000, CLIENT)).toBe(
      'its own session could not be opened: notifications/initialized got HTTP 400',
    );
    const redirected = await scripted((s, res) => {
      if (s.body?.method === 'notifications/initialized') return json(res, 300, '');
      handshake(s, res);
    });
    expect(await httpSession(redirected.url, undefined, proc, 3000, CLIENT)).toBe(
      'its own session could not be opened: notifications/initialized got HTTP 300',
    );
    const silent = await scripted((s, res) => {
      if (s.body?.method !== 'notifications/initialized') handshake(s, res);
    });
    expect(await httpSession(silent.url, undefined, proc, 300, CLIENT)).toBe(
      'its own session could not be opened: notifications/initialized got no answer within 300 ms',
    );
  });

  it('a notification answered 200 with a body is delivered; one refused names the status', async () => {
    const { url } = await scripted(
      server((s, res) => {
        if (s.body?.method === 'notifications/ok') return json(res, 200, '');
        if (s.body?.method === 'notifications/gone') return json(res, 404, '');
        json(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'boom' } });
      }),
    );
    const { proc } = process_();
    const s = await session(url, proc);
    expect(await s.wire.notify('notifications/ok')).toBeNull();
    expect(await s.wire.notify('notifications/gone')).toBe('notifications/gone got HTTP 404');
    expect(await s.wire.notify('notifications/cancelled', { requestId: 'x' })).toBe('notifications/cancelled got HTTP 500');
  });

  it('a notification is delivered when its response ends: an SSE stream held open is no delivery, whatever it carries', async () => {
    const { url } = await scripted(
      server((_s, res) => events(res, ['data: {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}\n\n'], false)),
    );
    const { proc } = process_();
    const s = await session(url, proc, undefined, 300);
    expect(await s.wire.notify('notifications/cancelled', { requestId: 'x' })).toBe('notifications/cancelled got no answer within 300 ms');
  });
});

describe('httpSession: reading an answer', () => {
  /** A session on a server whose requests (after the handshake) `answer` answers. */
  async function answering(answer: Reply, timeoutMs = 3000) {
    const scriptedServer = await scripted(server(answer));
    const p = process_();
    return { ...scriptedServer, ...p, s: await session(scriptedServer.url, p.proc, undefined, timeoutMs) };
  }

  it('an SSE stream: other messages skipped, the answer taken as soon as its event is complete, and the stream closed', async () => {
    let closedByClient!: () => void;
    const streamClosed = new Promise<void>((resolve) => (closedByClient = resolve));
    const { s } = await answering((seen, res) => {
      res.on('close', closedByClient);
      const id = seen.body?.id;
      events(
        res,
        [
          `event: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\r\n\r\n`,
          `event: message\ndata: {"jsonrpc":"2.0","id":"${String(id)}",`,
          `\ndata: "result":{"text":"a b"}}\n`,
          '\n',
        ],
        false,
      );
    });
    const answer = await within(s.wire.request('tools/call').answer, 2000);
    expect(answer).toEqual({ kind: 'result', result: { text: 'a b' }, status: 200 });
    await streamClosed;
  });

  it('an SSE stream with CR line ends (SSE allows CRLF, LF or CR), held open after its answer: the answer is taken', async () => {
    const { s } = await answering((seen, res) => {
      const id = String(seen.body?.id);
      // A priming event (an id, empty data), then the answer split across writes, then the stream held open.
      events(
        res,
        ['id: e0\rdata: \r\r', `event: message\rdata: {"jsonrpc":"2.0","id":"${id}",\r`, 'data: "result":{"n":1}}\r', '\r'],
        false,
      );
    });
    expect(await within(s.wire.request('tools/call').answer, 2000)).toEqual({ kind: 'result', result: { n: 1 }, status: 200 });
  });

  it('a JSON body with SSE framing, or an SSE stream with a JSON body, is no answer: the content type says how to read it', async () => {
    const { s } = await answering((seen, res) => {
      const message = JSON.stringify({ jsonrpc: '2.0', id: seen.body?.id, result: {} });
      if (seen.body?.method === 'json-framed-as-sse') return json(res, 200, `data: ${message}\n\n`);
      events(res, [message]);
    });
    expect(await s.wire.request('json-framed-as-sse').answer).toEqual({
      kind: 'none',
      why: 'the response ended without an answer',
      status: 200,
    });
    expect(await s.wire.request('sse-holding-json').answer).toMatchObject({ kind: 'none', why: 'the response ended without an answer' });
  });

  it('an SSE stream that ends without the answer, or a JSON body answering another id: no answer', async () => {
    const { s } = await answering((seen, res) => {
      if (seen.body?.method === 'sse') return events(res, ['data: {"jsonrpc":"2.0","id":"other","result":{}}\n\n', ': keep-alive\n\n']);
      json(res, 200, { jsonrpc: '2.0', id: 'other', result: {} });
    });
    expect(await s.wire.request('sse').answer).toMatchObject({ kind: 'none', why: 'the response ended without an answer' });
    expect(await s.wire.request('json').answer).toMatchObject({ kind: 'none', why: 'the response ended without an answer' });
  });

  it('a JSON-RPC error is the answer, whatever the HTTP status; a refusal without one is an error naming the status and body', async () => {
    const { s } = await answering((seen, res) => {
      const id = seen.body?.id;
      switch (seen.body?.method) {
        case 'own-error':
          return json(res, 400, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
        case 'unbound-error':
          return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request' } });
        case 'string-code':
          return json(res, 422, { error: { code: 'E1' } });
        case 'plain':
          return json(res, 503, 'x'.repeat(300));
        case 'empty':
          return json(res, 500, '');
        case 'ok-empty':
          return json(res, 299, '');
      }
    });
    expect(await s.wire.request('own-error').answer).toEqual({ kind: 'error', code: -32601, message: 'Method not found', status: 400 });
    expect(await s.wire.request('unbound-error').answer).toEqual({
      kind: 'error',
      code: -32600,
      message: 'HTTP 400: {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request"}}',
      status: 400,
    });
    // Strict: a refusal without a numeric JSON-RPC code has no `code` key at all.
    const stringCode = await s.wire.request('string-code').answer;
    expect(stringCode).toStrictEqual({ kind: 'error', message: 'HTTP 422: {"error":{"code":"E1"}}', status: 422 });
    expect(await s.wire.request('plain').answer).toStrictEqual({ kind: 'error', message: `HTTP 503: ${'x'.repeat(200)}`, status: 503 });
    expect(await s.wire.request('empty').answer).toStrictEqual({ kind: 'error', message: 'HTTP 500', status: 500 });
    expect(await s.wire.request('ok-empty').answer).toMatchObject({ kind: 'none', why: 'the response ended without an answer' });
  });

  it('HTTP 404 to a request: the session is gone', async () => {
    const { s } = await answering((_seen, res) =>
      json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
    );
    expect(await s.wire.request('ping').answer).toMatchObject({ kind: 'closed', why: 'the session is gone (HTTP 404)', status: 404 });
  });

  it('an answer past 1 MiB is cut off, named', async () => {
    const { s } = await answering((_seen, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":"never","result":{"pad":"`);
      const chunk = 'x'.repeat(64 * 1024);
      const more = (n: number): void => {
        if (n === 0 || res.destroyed) return void res.end('"}}');
        res.write(chunk, () => more(n - 1));
      };
      more(20);
    });
    expect(await s.wire.request('big').answer).toMatchObject({ kind: 'none', why: 'the answer exceeded 1048576 bytes' });
  });

  it('a body of exactly what fits is read whole', async () => {
    const { s } = await answering((seen, res) => {
      const head = `{"jsonrpc":"2.0","id":"${String(seen.body?.id)}","result":{"pad":"`;
      json(res, 200, `${head}${'x'.repeat(1024 * 1024 - head.length - 3)}"}}`);
    });
    const a = await s.wire.request('fits').answer;
    expect(a.kind).toBe('result');
  });

  it('a connection dropped before any answer: the connection failed, named; the exit instead when the server exits at once', async () => {
    const { s, exit } = await answering((seen, res) => {
      res.socket?.destroy();
      if (seen.body?.method === 'crash') exit(null, 'SIGSEGV');
    });
    const dropped = await s.wire.request('drop').answer;
    expect(dropped).toEqual({ kind: 'closed', why: 'the connection failed: socket hang up' });
    expect(await s.wire.request('crash').answer).toEqual({ kind: 'closed', why: 'the server exited (signal SIGSEGV)' });
  });

  it('a response cut off mid-body: no answer', async () => {
    const { s } = await answering((_seen, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",', () => res.socket?.destroy());
    });
    expect(await within(s.wire.request('cut').answer, 2000)).toMatchObject({ kind: 'none', why: 'the response ended without an answer' });
  });

  it('the server exits while a request waits: the exit is the answer', async () => {
    const { s, exit } = await answering(() => undefined);
    const call = s.wire.request('wait');
    setTimeout(() => exit(3), 50);
    expect(await within(call.answer, 2000)).toEqual({ kind: 'closed', why: 'the server exited (code 3)' });
  });

  it('a refused connection (nothing listening any more): the connection failed', async () => {
    const { s, server: listening } = await answering(() => undefined);
    for (const entry of servers) for (const socket of entry.sockets) socket.destroy();
    await new Promise((resolve) => listening.close(resolve));
    const a = await within(s.wire.request('ping').answer, 3000);
    expect(a.kind).toBe('closed');
    expect((a as { why: string }).why).toMatch(/^the connection failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    expect(await s.wire.end()).toMatch(/^DELETE of the session got connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });
});

describe('httpSession: ending the session', () => {
  it('DELETE with the session id, the version and the credentials, without a content type; 2xx and 405 are fine, anything else is named', async () => {
    let status = 200;
    const { url, seen } = await scripted(
      server(undefined, {
        get deleteStatus() {
          return status;
        },
      } as Handshake),
    );
    const { proc } = process_();
    const s = await session(url, proc, 'Bearer tok');
    expect(await s.wire.end()).toBeNull();
    const del = seen.at(-1)!;
    expect(del.method).toBe('DELETE');
    expect(del.url).toBe('/mcp');
    expect(del.headers).toMatchObject({
      'mcp-session-id': 'session-1',
      'mcp-protocol-version': '2025-06-18',
      authorization: 'Bearer tok',
      accept: 'application/json, text/event-stream',
    });
    expect(del.headers['content-type']).toBeUndefined();
    status = 204;
    expect(await s.wire.end()).toBeNull();
    status = 405;
    expect(await s.wire.end()).toBeNull();
    status = 299;
    expect(await s.wire.end()).toBeNull();
    status = 300;
    expect(await s.wire.end()).toBe('DELETE of the session got HTTP 300');
    status = 404;
    expect(await s.wire.end()).toBe('DELETE of the session got HTTP 404');
    status = 500;
    expect(await s.wire.end()).toBe('DELETE of the session got HTTP 500');
  });

  it('a DELETE whose response is cut off mid-body: its status is the answer', async () => {
    const { url } = await scripted((s, res) => {
      if (s.method !== 'DELETE') return void handshake(s, res);
      res.writeHead(500, { 'content-length': '100' });
      res.write('partial', () => res.socket?.destroy());
    });
    const { proc } = process_();
    const s = await session(url, proc);
    expect(await s.wire.end()).toBe('DELETE of the session got HTTP 500');
  });

  it('a DELETE not answered within the timeout is named', async () => {
    const { url } = await scripted((s, res) => {
      if (s.method !== 'DELETE') handshake(s, res);
    });
    const { proc } = process_();
    const s = await session(url, proc, undefined, 300);
    expect(await s.wire.end()).toBe('DELETE of the session got no answer within 300 ms');
  });

  it('ending abandons every call still open: its connection is closed', async () => {
    let abandoned!: () => void;
    const closed = new Promise<void>((resolve) => (abandoned = resolve));
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const { url } = await scripted(
      server((_seen, res) => {
        res.on('close', abandoned);
        received();
      }),
    );
    const { proc } = process_();
    const s = await session(url, proc);
    const call = s.wire.request('wait');
    // Open on both ends (however long that takes on a loaded machine), so that its connection is one end closes.
    await arrived;
    expect(await s.wire.end()).toBeNull();
    await closed;
    // The destroyed request reads as a dropped connection: the call is over, not left waiting.
    expect(await within(call.answer, 2000)).toEqual({ kind: 'closed', why: 'the connection failed: socket hang up' });
  });
});

describe('stdioWire', () => {
  /** A real PipeTransport whose server side the test plays: `sent` is what the wire wrote, `say` answers. */
  async function pipe() {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const transport = new PipeTransport(toServer, fromServer, { onNoise: () => undefined });
    await transport.start();
    const client: unknown[] = [];
    transport.onmessage = (m) => client.push(m);
    const sent: Record<string, unknown>[] = [];
    toServer.setEncoding('utf8');
    toServer.on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) sent.push(JSON.parse(line) as Record<string, unknown>);
    });
    const p = process_();
    const wire = stdioWire(transport, p.proc);
    const say = (m: Record<string, unknown>) => fromServer.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    return { transport, wire, client, sent, say, fromServer, toServer, ...p };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('sends each request under its own string id (params only when given) and takes its answer off the client', async () => {
    const { wire, client, sent, say } = await pipe();
    const a = wire.request('tools/list');
    const b = wire.request('tools/call', { name: 'x' });
    expect([a.id, b.id]).toEqual([`${ID_PREFIX}1`, `${ID_PREFIX}2`]);
    await tick();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: `${ID_PREFIX}1`, method: 'tools/list' },
      { jsonrpc: '2.0', id: `${ID_PREFIX}2`, method: 'tools/call', params: { name: 'x' } },
    ]);
    say({ id: b.id, error: { code: -32602, message: 'bad' } });
    say({ id: a.id, result: { tools: [] } });
    expect(await a.answer).toEqual({ kind: 'result', result: { tools: [] } });
    expect(await b.answer).toEqual({ kind: 'error', code: -32602, message: 'bad' });
    expect(client).toEqual([]);
  });

  it('hands the client every other message: its own ids, other string ids, and a request that reuses one of ours', async () => {
    const { wire, client, say } = await pipe();
    const a = wire.request('ping');
    const others = [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 'client-7', result: {} },
      { jsonrpc: '2.0', id: `x${ID_PREFIX}1`, result: {} },
      { jsonrpc: '2.0', id: a.id, method: 'roots/list' },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } },
    ];
    for (const m of others) say(m);
    await tick();
    expect(client).toEqual(others);
    say({ id: a.id, result: {} });
    expect(await a.answer).toEqual({ kind: 'result', result: {} });
  });

  it('an answer to one of our ids no call waits for (late, or after end) stays off the client', async () => {
    const { wire, client, say } = await pipe();
    const a = wire.request('ping');
    expect(await wire.end()).toBeNull();
    say({ id: a.id, result: {} });
    say({ id: `${ID_PREFIX}99`, result: {} });
    await tick();
    expect(client).toEqual([]);
    expect(await within(a.answer, 50)).toEqual({ kind: 'none', why: 'no answer within 50 ms' });
  });

  it('a pipe with no client on it yet: messages that are not ours are dropped, ours still answered', async () => {
    const { transport, say } = await pipe();
    transport.onmessage = undefined;
    const bare = stdioWire(transport, process_().proc);
    const a = bare.request('ping');
    say({ method: 'notifications/message', params: { level: 'info' } });
    say({ id: 1, result: {} });
    say({ id: a.id, result: { pong: true } });
    expect(await a.answer).toEqual({ kind: 'result', result: { pong: true } });
  });

  it('notify sends the notification (params only when given) and resolves null', async () => {
    const { wire, sent } = await pipe();
    expect(await wire.notify('notifications/cancelled', { requestId: 'r' })).toBeNull();
    expect(await wire.notify('notifications/initialized')).toBeNull();
    await tick();
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'r' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('the server exits while a call waits: the exit is its answer, and gone says it', async () => {
    const { wire, exit } = await pipe();
    const a = wire.request('tools/call', { name: 'wait' });
    exit(7);
    expect(await a.answer).toEqual({ kind: 'closed', why: 'the server exited (code 7)' });
    expect(await wire.gone).toBe('the server exited (code 7)');
  });

  it('a write that fails: the write error after the grace, or the exit when it comes first', async () => {
    const { wire, transport, exit } = await pipe();
    await transport.close();
    expect(await wire.notify('notifications/initialized')).toBe('could not write to its stdin: transport closed');
    expect(await wire.request('ping').answer).toEqual({ kind: 'closed', why: 'could not write to its stdin: transport closed' });
    const late = wire.notify('notifications/initialized');
    exit(null, 'SIGKILL');
    expect(await late).toBe('the server exited (signal SIGKILL)');
  });
});

describe('jsonAnswer', () => {
  it('finds the response to its id, in one message or a batch', () => {
    expect(jsonAnswer('{"jsonrpc":"2.0","id":"a","result":{"x":1}}', 'a')).toEqual({ kind: 'result', result: { x: 1 } });
    expect(jsonAnswer('[{"id":"b","result":{}},{"id":"a","error":{"code":-32601,"message":"nope"}}]', 'a')).toEqual({
      kind: 'error',
      code: -32601,
      message: 'nope',
    });
  });
  it('another id, a request with the same id, a non-object, or no JSON: null', () => {
    expect(jsonAnswer('{"id":"b","result":{}}', 'a')).toBeNull();
    expect(jsonAnswer('{"id":"a","method":"ping"}', 'a')).toBeNull();
    expect(jsonAnswer('[null, 3, "a"]', 'a')).toBeNull();
    expect(jsonAnswer('not json', 'a')).toBeNull();
    expect(jsonAnswer('{"id":"a","error":null}', 'a')).toEqual({ kind: 'result', result: {} });
  });
});

describe('sseAnswer', () => {
  it('reads the data lines of each complete event, a space after `data:` dropped, CRLF or LF', () => {
    const body = 'event: message\ndata: {"id":"other","result":{}}\n\nid: 7\ndata: {"id":"a",\ndata:"result":{"ok":true}}\n\n';
    expect(sseAnswer(body, 'a')).toEqual({ kind: 'result', result: { ok: true } });
    expect(sseAnswer('data: {"id":"a","result":{"n":2}}\r\n\r\n', 'a')).toEqual({ kind: 'result', result: { n: 2 } });
    expect(sseAnswer('data:  {"id":"a","result":{"n":3}}\n\n', 'a')).toEqual({ kind: 'result', result: { n: 3 } });
  });
  it('only the data lines of an event count, each one kept whole: other fields, spaces inside, and line breaks between them', () => {
    expect(sseAnswer('event: message\ndata: {"id":"a","result":{"n":4}}\nretry: 10\n\n', 'a')).toEqual({
      kind: 'result',
      result: { n: 4 },
    });
    expect(sseAnswer('data:{"id":"a","result":{"t":"a b"}}\n\n', 'a')).toEqual({ kind: 'result', result: { t: 'a b' } });
    // Two data lines are joined by a line break, which ends a number: `1\n2` is no JSON.
    expect(sseAnswer('data: {"id":"a","result":{"n":1\ndata: 2}}\n\n', 'a')).toBeNull();
  });
  it('CR line ends, alone or mixed with CRLF and LF, end lines and events as LF does', () => {
    expect(sseAnswer('event: message\rdata: {"id":"a","result":{"n":5}}\r\r', 'a')).toEqual({ kind: 'result', result: { n: 5 } });
    expect(sseAnswer('data: {"id":"b","result":{}}\r\rdata: {"id":"a","result":{"n":6}}\r\n\n', 'a')).toEqual({
      kind: 'result',
      result: { n: 6 },
    });
    expect(sseAnswer('data: {"id":"a",\rdata: "result":{"n":7}}\n\r', 'a')).toEqual({ kind: 'result', result: { n: 7 } });
    // Not yet complete: one line end after the data, no blank line.
    expect(sseAnswer('data: {"id":"a","result":{}}\r', 'a')).toBeNull();
  });
  it('an event not yet complete, one without data, or not its id: null', () => {
    expect(sseAnswer('data: {"id":"a","result":{}}\n', 'a')).toBeNull();
    expect(sseAnswer('data: {"id":"a","result":{}}', 'a')).toBeNull();
    expect(sseAnswer(': keep-alive\n\nevent: x\n\n', 'a')).toBeNull();
    expect(sseAnswer('data: {"id":"b","result":{}}\n\n', 'a')).toBeNull();
    expect(sseAnswer('xdata: {"id":"a","result":{}}\n\n', 'a')).toBeNull();
  });
});

describe('describeAnswer', () => {
  it('names each kind of answer', () => {
    expect(describeAnswer({ kind: 'result', result: {} })).toBe('a result');
    expect(describeAnswer({ kind: 'result', result: { isError: true } })).toBe('an isError result');
    expect(describeAnswer({ kind: 'result', result: { isError: 'yes' } })).toBe('a result');
    expect(describeAnswer({ kind: 'error', code: -32601, message: 'Method not found' })).toBe('the error -32601 "Method not found"');
    expect(describeAnswer({ kind: 'error', message: 'm'.repeat(200) })).toBe(`the error (no code) "${'m'.repeat(160)}"`);
    expect(describeAnswer({ kind: 'none', why: 'no answer within 5 ms' })).toBe('no answer within 5 ms');
    expect(describeAnswer({ kind: 'closed', why: 'the server exited (code 1)' })).toBe('the server exited (code 1)');
  });
});
