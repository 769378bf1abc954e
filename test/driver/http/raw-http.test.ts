// The spec checks' raw sender (raw-http.ts) over a real loopback socket: an SSE answer to a POST that the
// server keeps open after its event is read up to that event, whatever the line ends (SSE allows CRLF,
// LF or CR), so a server that holds its stream open is judged on its answer, not timed out.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, negotiatedVersion, rawSender, SPEC_INITIALIZE, sseData, type RawAnswer } from '../../../src/driver/http/raw-http.js';

let server: Server;
let base = '';
const RESULT = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: {} } });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // /mcp → /mcp/ (308, as a framework's trailing-slash rule does); /away → another origin (not followed).
      if (req.url === '/mcp') return res.writeHead(308, { location: '/mcp/' }).end();
      if (req.url === '/away') return res.writeHead(307, { location: 'http://other.invalid/mcp' }).end();
      if (req.url === '/mcp/') {
        if (req.headers.origin === 'http://evil.example') return res.writeHead(403).end();
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': `at ${req.headers.host}` });
        return res.end(RESULT);
      }
      if (req.url === '/keepalive') {
        // Headers, then only SSE comments, one every 100 ms: the socket is never idle, the answer never comes.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => res.write(': keepalive\n\n'), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      const eol = req.url === '/crlf' ? '\r\n' : req.url === '/cr' ? '\r' : '\n';
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'abc' });
      // A priming event first (an id, empty data: what a server with an event store sends), a moment apart.
      if (req.url === '/priming') res.write(`id: e0${eol}data: ${eol}${eol}`);
      // The event, then the stream held open (a server that keeps it for later messages).
      setTimeout(() => res.write(`event: message${eol}data: ${RESULT}${eol}${eol}`), 20);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe('rawSender on an SSE answer held open', () => {
  for (const path of ['/lf', '/crlf', '/cr', '/priming']) {
    it(`${path}: the first event with data is the answer, read without waiting for the stream's end`, async () => {
      // The stream never ends: a sender that waited for its end would give 'no answer within …' at its bound. The
      // bound is a hang guard, far from the ~20 ms the answer takes on a quiet machine.
      const a = await rawSender(
        `${base}${path}`,
        10_000,
      )({ method: 'POST', headers: JSON_HEADERS, body: SPEC_INITIALIZE(1, '2025-03-26') });
      expect(a).not.toBeInstanceOf(Error);
      if (a instanceof Error) return;
      expect([a.status, a.sessionId, negotiatedVersion(a)]).toEqual([200, 'abc', '2025-03-26']);
    });
  }

  it('a stream that only ever sends comments is bounded by the timeout as a whole, not by idleness', async () => {
    const startedAt = Date.now();
    const a = await rawSender(`${base}/keepalive`, 600)({ method: 'POST', headers: JSON_HEADERS, body: SPEC_INITIALIZE(1, '2025-03-26') });
    const ms = Date.now() - startedAt;
    // Bounded by idleness it would never end (a comment every 100 ms): a hang guard well inside the test's 10 s.
    expect(ms).toBeLessThan(8000);
    expect(a).toBeInstanceOf(Error);
    expect((a as Error).message).toBe('no answer within 600 ms');
  }, 10_000);

  it('a 307/308 to the same origin is followed with the same method, body and headers; to another origin it is not', async () => {
    const send = rawSender(`${base}/mcp`, 3000);
    const served = await send({ method: 'POST', headers: JSON_HEADERS, body: SPEC_INITIALIZE(1, '2025-03-26') });
    expect(served).toMatchObject({ status: 200, sessionId: `at ${new URL(base).host}` });
    expect(negotiatedVersion(served as RawAnswer)).toBe('2025-03-26');
    const foreign = await send({ method: 'POST', headers: { ...JSON_HEADERS, origin: 'http://evil.example' }, body: {} });
    expect(foreign).toMatchObject({ status: 403 });
    // The Host override goes along: the judge sees what the final endpoint does with it.
    const host = await send({ method: 'POST', headers: { ...JSON_HEADERS, host: 'evil.example:1' }, body: {} });
    expect(host).toMatchObject({ status: 200, sessionId: 'at evil.example:1' });
    expect(await rawSender(`${base}/away`, 3000)({ method: 'POST', headers: JSON_HEADERS, body: {} })).toMatchObject({ status: 307 });
  });
});

describe('sseData', () => {
  it('ends lines at CRLF, LF or CR, mixed within one stream; an event at a blank line; `complete` keeps only ended events', () => {
    expect(sseData('data: a\r\n\ndata: b\n\r\ndata: c\r\rdata: d', true)).toEqual(['a', 'b', 'c']);
    expect(sseData('data: a\r\n\ndata: b\n\r\ndata: c\r\rdata: d')).toEqual(['a', 'b', 'c', 'd']);
    // A priming event (empty data) is no event with data; two data lines are joined by LF.
    expect(sseData('id: 1\rdata:\r\rdata: x\rdata: y\r\r', true)).toEqual(['x\ny']);
  });
});
