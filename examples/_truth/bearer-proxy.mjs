// A loopback proxy that adds `Authorization: Bearer <token>` to every request, written apart from mcp-matrix's own
// (src/driver/http/auth-proxy.ts) so that the conformance ground truth does not rest on the harness: node:http only.
//   node examples/_truth/bearer-proxy.mjs <target origin> <token file> <port file>
// A Host or Origin naming the proxy itself is rewritten to the target's; any other value passes unchanged.
// Writes its port to <port file> once it listens; runs until killed.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';

const [target, tokenFile, portFile] = process.argv.slice(2);
const to = new URL(target);
const token = readFileSync(tokenFile, 'utf8').trim();
const server = createServer((req, res) => {
  const own = `127.0.0.1:${server.address().port}`;
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  if (headers.host === own) headers.host = to.host;
  if (headers.origin === `http://${own}`) headers.origin = to.origin;
  const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
});
server.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(server.address().port)));
