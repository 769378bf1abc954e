// A loopback proxy that adds `Authorization: Bearer <token>` for the conformance suite, which sends none.
// Transparent to the suite's Host and Origin checks: a value naming the proxy is rewritten to the server's,
// any other (the suite's `evil.example.com`) reaches the server unchanged.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthProxy {
  /** `http://127.0.0.1:<port>`: the proxy's origin (append the server's path). */
  origin: string;
  /** Requests forwarded so far. */
  forwarded(): number;
  close(): Promise<void>;
}

/** The server's endpoint as reached through the proxy: the proxy's origin, the endpoint's path and its query. */
export function proxiedUrl(proxyOrigin: string, serverUrl: string): string {
  const u = new URL(serverUrl);
  return `${proxyOrigin}${u.pathname}${u.search}`;
}

/** Starts the proxy on `host` (a free port) in front of `target` (the server's origin). */
export function startAuthProxy(target: string, token: string, host = '127.0.0.1'): Promise<AuthProxy> {
  const upstream = new URL(target);
  let own = '';
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    const headers: http.OutgoingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` };
    if (req.headers.host === own) headers.host = upstream.host;
    if (req.headers.origin === `http://${own}`) headers.origin = upstream.origin;
    // No keep-alive upstream: nothing of the proxy outlives its close (the leaks phase counts the driver's handles).
    const forward = http.request(
      // An IPv6 URL spells its host in brackets, which a lookup does not take.
      {
        hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // pipe never ends `res` when the answer breaks off: an answer the server cut (it died mid-body) is cut
        // for the suite too, as a direct request would see it, instead of held open until the suite's timeout.
        answer.on('aborted', () => res.destroy());
        answer.on('error', () => res.destroy());
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => {
      // Once the answer has begun, a note in its body would be read as the server's: cut it instead.
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`mcp-matrix proxy: the server did not answer: ${error.message}`);
    });
    // A client that goes away (the suite closing an SSE stream) takes its upstream request with it.
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      own = `${host.includes(':') ? `[${host}]` : host}:${port}`;
      resolve({
        origin: `http://${own}`,
        forwarded: () => count,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
