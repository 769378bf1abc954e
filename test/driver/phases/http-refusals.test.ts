// The no-token refusal's challenge, over a real loopback socket: a 401 may carry several challenges (RFC 7235
// §4.1: several WWW-Authenticate lines, or one line with a list), and the Bearer one need not come first. The
// www-authenticate check and OAuth discovery must both find it wherever it is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryCheck } from '../../../src/driver/http/oauth.js';
import { discover, resourceMetadataParam } from '../../../src/driver/http/oauth-discovery.js';
import { challengeCheck, postInitialize } from '../../../src/driver/phases/http-refusals.js';

let server: Server;
let base = '';
const META = { resource: 'x', authorization_servers: ['http://as.example'] };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // The metadata only where the challenge names it: discovery can find it only through the challenge.
      if (req.url === '/meta/mcp') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(META));
      const challenges: Record<string, string[]> = {
        '/two-lines': ['Basic realm="legacy"', `Bearer realm="mcp", resource_metadata="${base}/meta/mcp"`],
        '/one-line': [`Basic realm="a, b", Bearer resource_metadata="${base}/meta/mcp", error="invalid_request"`],
        '/basic-only': ['Basic realm="legacy", resource_metadata="x"'],
      };
      const c = challenges[req.url ?? ''];
      if (!c) return res.writeHead(404).end();
      res.statusCode = 401;
      res.setHeader('www-authenticate', c);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a 401 with several challenges, the Bearer one not first', () => {
  for (const path of ['/two-lines', '/one-line']) {
    it(`${path}: the challenge check passes and discovery follows its resource_metadata`, async () => {
      const probe = await postInitialize(`${base}${path}`, undefined, 5000);
      expect(probe.status).toBe(401);
      expect(challengeCheck(probe)).toEqual({ outcome: 'ok', text: 'with a Bearer challenge', short: 'Bearer challenge' });
      expect(resourceMetadataParam(probe.wwwAuthenticate)).toBe(`${base}/meta/mcp`);
      const d = await discover(`${base}${path}`, probe.wwwAuthenticate, 5000);
      expect([d.via, d.url, discoveryCheck(d).outcome]).toEqual(['challenge', `${base}/meta/mcp`, 'ok']);
    });
  }

  it('no Bearer challenge among them still fails, naming the header', async () => {
    const probe = await postInitialize(`${base}/basic-only`, undefined, 5000);
    expect(challengeCheck(probe)).toEqual({
      outcome: 'failed',
      text: 'with WWW-Authenticate "Basic realm=\\"legacy\\", resource_metadata=\\"x\\"" (want Bearer)',
      short: 'not a Bearer challenge',
      step: 'request without a token',
    });
    expect(resourceMetadataParam(probe.wwwAuthenticate)).toBeUndefined();
  });
});
