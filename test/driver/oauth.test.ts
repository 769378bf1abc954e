// The OAuth sub-checks' judges, one at a time: the challenge's resource_metadata, RFC 9728 well-known URIs,
// discovery over real loopback sockets, the metadata document and the 401s, each failure citing its requirement.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  citation,
  discover,
  discoveryCheck,
  metadataCheck,
  refusalCheck,
  resourceMetadataParam,
  roundTripOAuthCheck,
  wellKnownUrls,
  type Discovery,
} from '../../src/driver/oauth.js';

describe('resourceMetadataParam', () => {
  it('reads the parameter from a Bearer challenge, quoted or not, anywhere among the others', () => {
    expect(resourceMetadataParam('Bearer resource_metadata="http://a/x"')).toBe('http://a/x');
    expect(resourceMetadataParam('bearer realm="mcp", resource_metadata="http://a/x", error="invalid_token"')).toBe('http://a/x');
    expect(resourceMetadataParam('Bearer error="invalid_token",resource_metadata=http://a/y')).toBe('http://a/y');
    expect(resourceMetadataParam('Bearer Resource_Metadata = "http://a/z"')).toBe('http://a/z');
  });

  it('nothing without a Bearer challenge or without the parameter (a look-alike name does not count)', () => {
    expect(resourceMetadataParam(null)).toBeUndefined();
    expect(resourceMetadataParam('Basic resource_metadata="http://a/x"')).toBeUndefined();
    expect(resourceMetadataParam('Bearer realm="mcp"')).toBeUndefined();
    expect(resourceMetadataParam('Bearer x_resource_metadata="http://a/x"')).toBeUndefined();
  });
});

describe('wellKnownUrls', () => {
  it('inserts the resource path after the well-known prefix, then the root form (RFC 9728 §3.1)', () => {
    expect(wellKnownUrls('http://127.0.0.1:9/mcp')).toEqual([
      'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp',
      'http://127.0.0.1:9/.well-known/oauth-protected-resource',
    ]);
    expect(wellKnownUrls('http://[::1]:9/a/b/')).toEqual([
      'http://[::1]:9/.well-known/oauth-protected-resource/a/b',
      'http://[::1]:9/.well-known/oauth-protected-resource',
    ]);
    expect(wellKnownUrls('http://h:9/')).toEqual(['http://h:9/.well-known/oauth-protected-resource']);
  });
});

describe('discover (real sockets)', () => {
  let server: Server;
  let base = '';
  const routes: Record<string, [number, string]> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [status, body] = routes[req.url ?? ''] ?? [404, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('follows the challenge first', async () => {
    routes['/prm'] = [200, '{"resource":"r"}'];
    const d = await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/prm"`, 2000);
    expect(d).toEqual({ via: 'challenge', url: `${base}/prm`, document: { resource: 'r' }, tried: [{ url: `${base}/prm`, status: 200 }] });
  });

  it('falls back to the path-inserted, then the root well-known URI', async () => {
    routes['/.well-known/oauth-protected-resource'] = [200, '{"resource":"root"}'];
    const d = await discover(`${base}/mcp`, 'Bearer realm="x"', 2000);
    expect(d.via).toBe('well-known');
    expect(d.document).toEqual({ resource: 'root' });
    expect(d.tried).toEqual([
      { url: `${base}/.well-known/oauth-protected-resource/mcp`, status: 404 },
      { url: `${base}/.well-known/oauth-protected-resource`, status: 200 },
    ]);
    delete routes['/.well-known/oauth-protected-resource'];
  });

  it('a 200 that is not a JSON object is a problem named with its URL; nothing anywhere: via none', async () => {
    routes['/.well-known/oauth-protected-resource/mcp'] = [200, '<html>'];
    routes['/.well-known/oauth-protected-resource'] = [200, '[1]'];
    const bad = await discover(`${base}/mcp`, null, 2000);
    expect(bad).toMatchObject({ via: 'well-known', problem: `${base}/.well-known/oauth-protected-resource/mcp answered 200 but not JSON` });
    expect(bad.document).toBeUndefined();
    delete routes['/.well-known/oauth-protected-resource/mcp'];
    expect((await discover(`${base}/mcp`, null, 2000)).problem).toBe(
      `${base}/.well-known/oauth-protected-resource answered 200 but not a JSON object`,
    );
    delete routes['/.well-known/oauth-protected-resource'];
    expect(await discover(`${base}/mcp`, null, 2000)).toEqual({
      via: 'none',
      tried: [
        { url: `${base}/.well-known/oauth-protected-resource/mcp`, status: 404 },
        { url: `${base}/.well-known/oauth-protected-resource`, status: 404 },
      ],
    });
  });

  it('an unreachable URL is recorded with its error, and the next one tried', async () => {
    const d = await discover(`${base}/mcp`, 'Bearer resource_metadata="http://127.0.0.1:1/prm"', 2000);
    expect(d.tried[0]).toMatchObject({ url: 'http://127.0.0.1:1/prm', status: expect.any(String) });
    expect(d.tried).toHaveLength(3);
  });
});

describe('the judges', () => {
  const doc = (document?: Record<string, unknown>): Discovery => ({
    via: document ? 'challenge' : 'none',
    tried: [],
    ...(document ? { document } : {}),
  });
  const ISSUER = 'http://127.0.0.1:7';

  it('every failure cites the level, the revision or RFC, and the requirement', () => {
    expect(citation('audience')).toBe(
      'MUST, MCP 2025-11-25 basic/authorization#token-audience-binding-and-validation: a server MUST validate that an access token was issued for it as the intended audience (RFC 8707 §2)',
    );
    expect(citation('expired')).toBe('MUST, MCP 2025-11-25 basic/authorization#error-handling: an expired token MUST receive HTTP 401');
    expect(citation('metadata')).toMatch(/^MUST, MCP 2025-11-25 basic\/authorization#authorization-server-location: .* \(RFC 9728 §2\)$/);
    // The round trip is the harness's own check: its words, no level.
    expect(citation('roundTrip')).toBe('a valid token for this server, sent in the Authorization header, MUST be accepted');
  });

  it('discovery: ok through the challenge or the well-known URI; failed naming what was tried', () => {
    expect(discoveryCheck({ via: 'challenge', url: 'u', document: {}, tried: [] })).toMatchObject({
      outcome: 'ok',
      short: 'resource_metadata',
      text: 'named by resource_metadata',
    });
    expect(discoveryCheck({ via: 'well-known', url: 'http://h/.w', document: {}, tried: [] })).toMatchObject({
      outcome: 'ok',
      short: 'well-known',
      text: 'served at http://h/.w',
    });
    const failed = discoveryCheck({
      via: 'none',
      tried: [
        { url: 'http://h/a', status: 404 },
        { url: 'http://h/b', status: 'ECONNREFUSED' },
      ],
    });
    expect(failed).toEqual({
      id: 'discovery',
      outcome: 'failed',
      short: 'no metadata',
      step: 'protected resource metadata discovery',
      text: `no resource_metadata in the 401 challenge, and no metadata at http://h/a → 404, http://h/b → ECONNREFUSED (${citation('discovery')})`,
    });
    expect(discoveryCheck({ via: 'well-known', url: 'x', problem: 'x answered 200 but not JSON', tried: [] }).text).toBe(
      `x answered 200 but not JSON (${citation('discovery')})`,
    );
  });

  it('metadata: resource and authorization_servers naming the issuer (a trailing slash is the same issuer)', () => {
    expect(metadataCheck(doc({ resource: 'r', authorization_servers: [`${ISSUER}/`] }), ISSUER)).toMatchObject({
      outcome: 'ok',
      short: 'ok',
    });
    expect(metadataCheck(doc({ resource: 'r', authorization_servers: ['http://x', ISSUER] }), `${ISSUER}/`).outcome).toBe('ok');
    expect(metadataCheck(doc(), ISSUER)).toMatchObject({ outcome: 'n/a', short: 'n/a' });
  });

  it('metadata: each missing or wrong field is named', () => {
    const text = (d: Record<string, unknown>) => metadataCheck(doc(d), ISSUER).text.replace(/ \(MUST.*$/, '');
    expect(text({ authorization_servers: [ISSUER] })).toBe('the metadata has no `resource`');
    expect(text({ resource: '', authorization_servers: [ISSUER] })).toBe('the metadata has no `resource`');
    expect(text({ resource: 'r' })).toBe('the metadata has no `authorization_servers`');
    expect(text({ resource: 'r', authorization_servers: [] })).toBe('the metadata has no `authorization_servers`');
    expect(text({ resource: 7, authorization_servers: 'x' })).toBe('the metadata has no `resource`, no `authorization_servers`');
    expect(text({ resource: 'r', authorization_servers: ['http://elsewhere', 3] })).toBe(
      `the metadata has \`authorization_servers\` ["http://elsewhere",3] does not name the issuer ${ISSUER}`,
    );
    expect(metadataCheck(doc({ resource: 'r' }), ISSUER)).toMatchObject({ outcome: 'failed', step: 'protected resource metadata' });
  });

  it('refusals: exactly 401; a 2xx names what was accepted; another status or no answer is said as such', () => {
    expect(refusalCheck('expired', 401)).toEqual({ id: 'expired', outcome: 'ok', text: '401', short: '401', step: 'expired token' });
    expect(refusalCheck('algNone', 200)).toMatchObject({
      outcome: 'failed',
      short: '200 (want 401)',
      text: `200 (want 401: an unsigned (alg none) token is accepted) (${citation('algNone')})`,
    });
    expect(refusalCheck('otherKey', 299).text).toMatch(/^299 \(want 401: a token signed by another key is accepted\)/);
    expect(refusalCheck('audience', 403)).toMatchObject({
      outcome: 'failed',
      text: `403 (want 401) (${citation('audience')})`,
      step: 'token for another audience',
    });
    expect(refusalCheck('audience', 300).text).toMatch(/^300 \(want 401\) \(/);
    expect(refusalCheck('expired', new Error('timed out'))).toMatchObject({
      outcome: 'failed',
      short: 'no answer',
      text: `no answer (timed out) (${citation('expired')})`,
    });
  });

  it('the round trip keeps its text when ok, and cites the requirement when it failed', () => {
    expect(roundTripOAuthCheck('ok', 'ok', 'ok')).toMatchObject({ outcome: 'ok', text: 'ok', step: 'round trip' });
    expect(roundTripOAuthCheck('failed', 'failed: x', 'failed at initialize').text).toBe(`failed: x (${citation('roundTrip')})`);
  });
});
