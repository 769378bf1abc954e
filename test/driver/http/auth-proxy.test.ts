// The conformance phase's auth proxy (auth-proxy.ts) over real loopback sockets: every request reaches the
// server with the bearer token added, on IPv4 and on IPv6 (`http.host: '::1'`, whose URL spells the host in
// brackets); a proxy that cannot reach the server would turn each scenario into a false failure (502).
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { proxiedUrl, startAuthProxy, type AuthProxy } from '../../../src/driver/http/auth-proxy.js';

let server: Server | undefined;
let proxy: AuthProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = proxy = undefined;
});

async function serve(host: string): Promise<{ origin: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  server = createServer((req, res) => {
    seen.push({ ...req.headers, 'x-url': req.url });
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => server!.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, seen };
}

describe('startAuthProxy', () => {
  for (const host of ['127.0.0.1', '::1']) {
    it(`${host}: forwards to the server with the token added, its Host rewritten to the server's`, async () => {
      const { origin, seen } = await serve(host);
      proxy = await startAuthProxy(origin, 'tok', host);
      const res = await fetch(`${proxy.origin}/mcp`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect([res.status, await res.text()]).toEqual([200, '{"ok":true}']);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ authorization: 'Bearer tok', host: new URL(origin).host });
      expect(proxy.forwarded()).toBe(1);
    });
  }

  it('the suite is pointed at the endpoint behind the proxy with its path and its query (a path such as /x/mcp?tenant=a)', async () => {
    const { origin, seen } = await serve('127.0.0.1');
    proxy = await startAuthProxy(origin, 'tok');
    const url = proxiedUrl(proxy.origin, `${origin}/x/mcp?tenant=a`);
    expect(url).toBe(`${proxy.origin}/x/mcp?tenant=a`);
    expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(seen[0]!['x-url']).toBe('/x/mcp?tenant=a');
  });
});

// What the suite sends that is not the proxy's own (its DNS-rebinding scenario's foreign Host and Origin), the
// request's method and body, an upstream that is gone, a client that goes away and a close with a stream open.
describe('startAuthProxy: what it passes on and what it does not', () => {
  /** A server that records each request (method, url, headers, body) and answers with `answer`. */
  async function record(
    answer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(200).end('ok'),
  ): Promise<{ origin: string; seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] }> {
    const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        answer(res);
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  it("a Host or Origin naming the proxy becomes the server's; any other reaches the server unchanged", async () => {
    const { origin, seen } = await record();
    proxy = await startAuthProxy(origin, 'tok');
    const own = new URL(proxy.origin).host;
    const send = (headers: Record<string, string>): Promise<void> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(`${proxy!.origin}/mcp`, { method: 'POST', headers }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end('{}');
      });
    await send({ host: own, origin: `http://${own}` });
    await send({ host: 'evil.example.com', origin: 'http://evil.example.com' });
    // The proxy's origin spelled as a bare host (no scheme) is not its origin: passed on as it came.
    await send({ host: own, origin: own });
    expect(seen.map((s) => [s.headers.host, s.headers.origin])).toEqual([
      [new URL(origin).host, origin],
      ['evil.example.com', 'http://evil.example.com'],
      [new URL(origin).host, own],
    ]);
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer tok', 'Bearer tok', 'Bearer tok']);
  });

  it("the request's method, path, headers and body reach the server as they came; its status, headers and body come back", async () => {
    const { origin, seen } = await record((res) =>
      res.writeHead(202, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' }).end('data: {}\n\n'),
    );
    proxy = await startAuthProxy(origin, 'tok');
    const res = await fetch(`${proxy.origin}/mcp?x=1`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': 'abc', authorization: 'Bearer theirs' },
      body: 'the body',
    });
    expect([res.status, res.headers.get('content-type'), res.headers.get('mcp-session-id'), await res.text()]).toEqual([
      202,
      'text/event-stream',
      's-1',
      'data: {}\n\n',
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'DELETE', url: '/mcp?x=1', body: 'the body' });
    // The run's token replaces any the client sent.
    expect(seen[0]!.headers).toMatchObject({ 'mcp-session-id': 'abc', authorization: 'Bearer tok' });
  });

  it('an upstream that does not answer is a 502 naming why, in plain text', async () => {
    const { origin } = await record();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    proxy = await startAuthProxy(origin, 'tok');
    const res = await fetch(`${proxy.origin}/mcp`, { method: 'POST', body: '{}' });
    expect([res.status, res.headers.get('content-type')]).toEqual([502, 'text/plain']);
    expect(await res.text()).toMatch(/^mcp-matrix proxy: the server did not answer: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    expect(proxy.forwarded()).toBe(1);
  });

  it('a client that goes away takes its upstream request with it (an SSE stream the suite closes)', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      res.on('close', () => upstreamClosed());
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    proxy = await startAuthProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'tok');
    const abort = new AbortController();
    const res = await fetch(`${proxy.origin}/mcp`, { signal: abort.signal });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    // Without the proxy's destroy the server's stream stays open (and the test times out).
    await closed;
  });

  it('close ends the connections it holds, a stream still open among them', async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    proxy = await startAuthProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'tok');
    const res = await fetch(`${proxy.origin}/mcp`);
    const reader = res.body!.getReader();
    await reader.read();
    // server.close alone waits for that stream to end, which it never does.
    await proxy.close();
    await expect(reader.read()).rejects.toThrow();
    server.closeAllConnections();
  });

  it('an answer the server cuts mid-body is cut for the client too, at once (not held open until its timeout)', async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"jsonrpc":"2.0",');
      // The server dies mid-answer: its connection goes without the rest of the body.
      setTimeout(() => res.socket?.destroy(), 50);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    proxy = await startAuthProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'tok');
    const res = await fetch(`${proxy.origin}/mcp`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    // Read as a direct request would be: the body fails (the server cut it 50 ms in). The old proxy never ended it:
    // the 15 s wait is a hang guard inside the test's 20 s, not a speed bound.
    let guard: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      res.text().then(
        () => 'ended',
        () => 'cut',
      ),
      new Promise((r) => (guard = setTimeout(() => r('still open'), 15_000))),
    ]);
    clearTimeout(guard);
    expect(outcome).toBe('cut');
  });

  it('a host it cannot listen on is an error at once', async () => {
    // 192.0.2.1 (TEST-NET-1) is no address of this host: EADDRNOTAVAIL.
    await expect(startAuthProxy('http://127.0.0.1:1', 'tok', '192.0.2.1')).rejects.toMatchObject({ code: 'EADDRNOTAVAIL' });
  });
});
