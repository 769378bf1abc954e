// The conformance phase's auth proxy (auth-proxy.ts) over real loopback sockets: every request reaches the
// server with the bearer token added, on IPv4 and on IPv6 (`http.host: '::1'`, whose URL spells the host in
// brackets); a proxy that cannot reach the server would turn each scenario into a false failure (502).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { proxiedUrl, startAuthProxy, type AuthProxy } from '../../src/driver/auth-proxy.js';

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
