// The OAuth sub-checks' judges, one at a time: the challenge's resource_metadata, RFC 9728 well-known URIs,
// discovery over real loopback sockets, the metadata document and the 401s, each failure citing its requirement.
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CATALOGUE_IDS,
  citation,
  oauthLabel,
  oauthStep,
  discoveryCheck,
  metadataCheck,
  refusalCheck,
  resourceNames,
  roundTripOAuthCheck,
} from '../../../src/driver/http/oauth.js';
import {
  bearerParams,
  discover,
  fetchTokens,
  resourceMetadataParam,
  wellKnownUrls,
  type Discovery,
} from '../../../src/driver/http/oauth-discovery.js';
import { NoAnswer } from '../../../src/driver/http/raw-http.js';

/** The bound of a look-up whose subject is not its time: a hang guard, never reached by a loopback answer however loaded. */
const BOUND = 10_000;

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
    // The Bearer challenge among others (RFC 7235 §4.1), and a parameter of another challenge or inside a quoted string.
    expect(resourceMetadataParam('Basic realm="a", Bearer resource_metadata="http://a/b"')).toBe('http://a/b');
    expect(resourceMetadataParam('DPoP algs="ES256", Bearer realm="m", resource_metadata="http://a/c"')).toBe('http://a/c');
    expect(resourceMetadataParam('Bearer realm="m", Basic resource_metadata="http://a/x"')).toBeUndefined();
    expect(resourceMetadataParam('Bearer error_description="no resource_metadata=http://a/x here"')).toBeUndefined();
    expect(resourceMetadataParam('Bearer error_description="a, b", resource_metadata="http://a/d"')).toBe('http://a/d');
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
  const routes: Record<string, [number, string, Record<string, string>?]> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [status, body, headers] = routes[req.url ?? ''] ?? [404, ''];
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('follows the challenge first', async () => {
    routes['/prm'] = [200, '{"resource":"r"}'];
    const d = await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/prm"`, BOUND);
    expect(d).toEqual({ via: 'challenge', url: `${base}/prm`, document: { resource: 'r' }, tried: [{ url: `${base}/prm`, status: 200 }] });
  });

  it('falls back to the path-inserted, then the root well-known URI', async () => {
    routes['/.well-known/oauth-protected-resource'] = [200, '{"resource":"root"}'];
    const d = await discover(`${base}/mcp`, 'Bearer realm="x"', BOUND);
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
    const bad = await discover(`${base}/mcp`, null, BOUND);
    expect(bad).toMatchObject({ via: 'well-known', problem: `${base}/.well-known/oauth-protected-resource/mcp answered 200 but not JSON` });
    expect(bad.document).toBeUndefined();
    delete routes['/.well-known/oauth-protected-resource/mcp'];
    expect((await discover(`${base}/mcp`, null, BOUND)).problem).toBe(
      `${base}/.well-known/oauth-protected-resource answered 200 but not a JSON object`,
    );
    delete routes['/.well-known/oauth-protected-resource'];
    expect(await discover(`${base}/mcp`, null, BOUND)).toEqual({
      via: 'none',
      tried: [
        { url: `${base}/.well-known/oauth-protected-resource/mcp`, status: 404 },
        { url: `${base}/.well-known/oauth-protected-resource`, status: 404 },
      ],
    });
  });

  it('a redirect within the origin (301, 302, 303, 307, 308) is followed, as the SDK client follows it; one to another origin, or past 5 hops, is not', async () => {
    const doc = JSON.stringify({ resource: `${base}/mcp`, authorization_servers: ['http://127.0.0.1:7'] });
    routes['/.well-known/oauth-protected-resource/mcp/'] = [200, doc];
    for (const status of [301, 302, 303, 307, 308]) {
      // A trailing-slash rule on the path-inserted well-known URI (no resource_metadata in the challenge).
      routes['/.well-known/oauth-protected-resource/mcp'] = [status, '', { location: '/.well-known/oauth-protected-resource/mcp/' }];
      expect(await discover(`${base}/mcp`, 'Bearer realm="x"', BOUND), String(status)).toEqual({
        via: 'well-known',
        url: `${base}/.well-known/oauth-protected-resource/mcp/`,
        document: JSON.parse(doc),
        tried: [
          { url: `${base}/.well-known/oauth-protected-resource/mcp`, status },
          { url: `${base}/.well-known/oauth-protected-resource/mcp/`, status: 200 },
        ],
      });
      // The ground truth, outside the harness: the SDK client's own discovery reads the same document.
      expect(await discoverOAuthProtectedResourceMetadata(`${base}/mcp`), String(status)).toMatchObject({ resource: `${base}/mcp` });
    }
    // Named by the challenge, redirected by an absolute Location of the same origin: followed too.
    routes['/prm-moved'] = [302, '', { location: `${base}/.well-known/oauth-protected-resource/mcp/` }];
    expect(await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/prm-moved"`, BOUND)).toMatchObject({
      via: 'challenge',
      url: `${base}/.well-known/oauth-protected-resource/mcp/`,
      document: JSON.parse(doc),
    });
    // Another origin (another port of the same host): not followed, its status recorded, the next URI tried.
    routes['/.well-known/oauth-protected-resource/mcp'] = [307, '', { location: 'http://127.0.0.1:1/prm' }];
    const away = await discover(`${base}/mcp`, 'Bearer realm="x"', BOUND);
    expect(away.tried).toEqual([
      { url: `${base}/.well-known/oauth-protected-resource/mcp`, status: 307 },
      { url: `${base}/.well-known/oauth-protected-resource`, status: 404 },
    ]);
    expect(away.document).toBeUndefined();
    // A loop within the origin: 5 redirects followed (as the SDK client's bound), then the 6th answer is what it got.
    routes['/.well-known/oauth-protected-resource/mcp'] = [308, '', { location: '/.well-known/oauth-protected-resource/mcp' }];
    const loop = await discover(`${base}/mcp`, 'Bearer realm="x"', BOUND);
    expect(loop.tried.filter((t) => t.url === `${base}/.well-known/oauth-protected-resource/mcp`)).toHaveLength(6);
    expect(loop.tried.every((t) => t.status === 308 || t.url === `${base}/.well-known/oauth-protected-resource`)).toBe(true);
    for (const r of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/mcp/', '/prm-moved'])
      delete routes[r];
  });

  it('an unreachable URL is recorded with its error, and the next one tried', async () => {
    const d = await discover(`${base}/mcp`, 'Bearer resource_metadata="http://127.0.0.1:1/prm"', BOUND);
    expect(d.tried[0]).toMatchObject({ url: 'http://127.0.0.1:1/prm', status: expect.any(String) });
    expect(d.tried).toHaveLength(3);
  });

  it('metadata whose resource names another server fails; this server, with a trailing slash or as a path prefix, passes', async () => {
    const issuer = 'http://127.0.0.1:7';
    const judged = async (resource: string, audience?: string) => {
      routes['/prm-resource'] = [200, JSON.stringify({ resource, authorization_servers: [issuer] })];
      const d = await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/prm-resource"`, BOUND);
      return metadataCheck(d, issuer, [`${base}/mcp`, ...(audience ? [audience] : [])]);
    };
    // A client (RFC 9728 §3.3; the SDK's checkResourceAllowed) refuses metadata for another resource.
    const other = await judged('http://other.example/mcp');
    expect(other).toMatchObject({ outcome: 'failed', step: 'protected resource metadata' });
    expect(other.text).toBe(
      `the metadata has \`resource\` "http://other.example/mcp" that does not name this server (${base}/mcp) (${citation('metadata')})`,
    );
    expect((await judged(`${base}/mcp/other`)).outcome).toBe('failed');
    expect((await judged(`${base}/mcpx`)).outcome).toBe('failed');
    for (const ok of [`${base}/mcp`, `${base}/mcp/`, base, `${base}/`]) expect((await judged(ok)).outcome, ok).toBe('ok');
    // The configured audience (a server known by another name) is this server too.
    expect((await judged('https://mcp.example.com/mcp', 'https://mcp.example.com/mcp/')).outcome).toBe('ok');
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
    // The rule the metadata check enforces, as RFC 9728 and MCP write it: `resource` names this server (§3.3), judged as
    // the SDK clients judge it; `authorization_servers` is MCP's MUST (optional in RFC 9728 §2).
    expect(citation('metadata')).toBe(
      "MUST, MCP 2025-11-25 basic/authorization#authorization-server-location: the Protected Resource Metadata MUST have `resource` naming this server (RFC 9728 §3.3: a client MUST NOT use metadata whose `resource` is not identical to the resource it asked about; judged as the SDK clients judge it: the same origin as the endpoint, whose path is `resource`'s path or under it, trailing slashes aside) and `authorization_servers` naming its authorization server (MUST in MCP; optional in RFC 9728 §2)",
    );
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
    expect(refusalCheck('expired', new NoAnswer('timed out'))).toMatchObject({
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

describe('fetchTokens (real sockets)', () => {
  let server: Server;
  let base = '';
  const seen: { method?: string; type?: string; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, type: req.headers['content-type'], body });
        if (req.url === '/hang') return;
        const ok = req.url === '/tokens';
        res.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' }).end(ok ? '{"valid":"v","otherAudience":"o"}' : '{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });

  it('POSTs the audience and the key as JSON and returns the tokens', async () => {
    expect(await fetchTokens(`${base}/tokens`, 'k3y', 'http://a/mcp', BOUND)).toEqual({ valid: 'v', otherAudience: 'o' });
    expect(seen.at(-1)).toEqual({ method: 'POST', type: 'application/json', body: '{"audience":"http://a/mcp","key":"k3y"}' });
  });

  it('a refusal, no answer in time, or nobody listening is an Error naming the authorization server (never a throw)', async () => {
    const refused = await fetchTokens(`${base}/other`, 'k', 'a', BOUND);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe("the local authorization server answered 403 to the driver's token request");
    const late = await fetchTokens(`${base}/hang`, 'k', 'a', 100);
    expect((late as Error).message).toBe(
      `the local authorization server did not answer the driver's token request: timed out after 100 ms waiting for an answer from ${base}/hang`,
    );
    const nobody = await fetchTokens('http://127.0.0.1:1/tokens', 'k', 'a', BOUND);
    expect((nobody as Error).message).toMatch(/^the local authorization server did not answer the driver's token request: /);
  });
});

describe('names', () => {
  it('each sub-check has its label (message), step (verdict) and catalogue id', () => {
    const ids = ['discovery', 'metadata', 'audience', 'expired', 'otherKey', 'algNone', 'roundTrip'] as const;
    expect(ids.map((id) => [oauthLabel(id), oauthStep(id), CATALOGUE_IDS[id]])).toEqual([
      ['metadata discovery', 'protected resource metadata discovery', 'oauth-discovery'],
      ['metadata', 'protected resource metadata', 'oauth-metadata'],
      ['other audience', 'token for another audience', 'oauth-audience'],
      ['expired token', 'expired token', 'oauth-expired'],
      ['other key', 'token signed by another key', 'oauth-other-key'],
      ['alg none', 'unsigned token (alg none)', 'oauth-alg-none'],
      ['round trip', 'round trip', 'round-trip'],
    ]);
    for (const id of ids.slice(0, 6)) expect(citation(id)).toMatch(/^MUST, MCP 2025-11-25 basic\/authorization#[a-z-]+: /);
  });
});

describe('more edges', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: '/doc' }).end();
      else if (req.url === '/doc') res.writeHead(200, { 'content-type': 'application/json' }).end('{"resource":"r"}');
      else if (req.url === '/null') res.writeHead(200, { 'content-type': 'application/json' }).end('null');
      else if (req.url === '/string') res.writeHead(200, { 'content-type': 'application/json' }).end('"resource"');
      else if (req.url === '/accept') res.writeHead(req.headers.accept === 'application/json' ? 200 : 406).end('{"a":1}');
      else if (req.url === '/hang') return;
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });

  it('a redirect is not followed (recorded as such); JSON null is not an object; it asks for JSON; a hung URL times out', async () => {
    const redirected = await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/redirect"`, BOUND);
    expect(redirected.tried[0]).toEqual({ url: `${base}/redirect`, status: 302 });
    expect((await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/null"`, BOUND)).problem).toBe(
      `${base}/null answered 200 but not a JSON object`,
    );
    expect((await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/string"`, BOUND)).problem).toBe(
      `${base}/string answered 200 but not a JSON object`,
    );
    expect((await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/accept"`, BOUND)).document).toEqual({ a: 1 });
    const hung = await discover(`${base}/mcp`, `Bearer resource_metadata="${base}/hang"`, 100);
    expect(hung.tried[0]).toEqual({ url: `${base}/hang`, status: `timed out after 100 ms waiting for an answer from ${base}/hang` });
  });

  it('a challenge with leading spaces counts; a look-alike scheme does not', () => {
    expect(resourceMetadataParam('  Bearer resource_metadata="u"')).toBe('u');
    expect(resourceMetadataParam('Bearerx resource_metadata="u"')).toBeUndefined();
    expect(resourceMetadataParam('Bearer realm="x" resource_metadata=u2')).toBe('u2');
  });

  it('discovery with nothing tried says "the well-known URI"; metadata texts; every refusal names what was accepted', () => {
    expect(discoveryCheck({ via: 'none', tried: [] }).text).toMatch(
      /^no resource_metadata in the 401 challenge, and no metadata at the well-known URI \(MUST/,
    );
    const ISSUER = 'http://127.0.0.1:7';
    expect(metadataCheck({ via: 'none', tried: [] }, ISSUER)).toEqual({
      id: 'metadata',
      outcome: 'n/a',
      text: 'not judged (no metadata document)',
      short: 'n/a',
      step: 'protected resource metadata',
    });
    expect(
      metadataCheck({ via: 'challenge', tried: [], document: { resource: 'r', authorization_servers: [`${ISSUER}//`] } }, ISSUER),
    ).toEqual({
      id: 'metadata',
      outcome: 'ok',
      text: 'resource "r", authorization_servers names the issuer',
      short: 'ok',
      step: 'protected resource metadata',
    });
    expect(metadataCheck({ via: 'challenge', tried: [], document: { authorization_servers: [ISSUER] } }, ISSUER).short).toBe(
      'no `resource`',
    );
    const what = (id: 'audience' | 'expired' | 'otherKey' | 'algNone') => refusalCheck(id, 200).text.replace(/\) \(MUST.*$/, ')');
    expect([what('audience'), what('expired'), what('otherKey'), what('algNone')]).toEqual([
      '200 (want 401: a token for another audience is accepted)',
      '200 (want 401: an expired token is accepted)',
      '200 (want 401: a token signed by another key is accepted)',
      '200 (want 401: an unsigned (alg none) token is accepted)',
    ]);
    expect(refusalCheck('expired', 199).text).toMatch(/^199 \(want 401\) \(MUST/);
    expect(refusalCheck('expired', 299).text).toMatch(/^299 \(want 401: an expired token is accepted\)/);
  });
});

// The WWW-Authenticate list as RFC 7235 §4.1 and RFC 9110 §11.6.1 spell it: quoted strings with commas and escapes,
// empty items, spaces around `=`, several challenges (docs/testing.md, oauth.ts rescored).
describe('bearerParams: the Bearer challenge in a list of challenges', () => {
  it('a comma or an escaped quote inside a quoted string does not end the parameter', () => {
    expect(bearerParams('Bearer realm="a, b", error="x"')).toEqual(['realm="a, b"', 'error="x"']);
    expect(bearerParams('Bearer realm="a\\", b", error="x"')).toEqual(['realm="a\\", b"', 'error="x"']);
    // A backslash that ends the header keeps what it has.
    expect(bearerParams('Bearer realm="a\\')).toEqual(['realm="a\\']);
  });

  it('empty items are no parameters; a scheme alone, or followed by several spaces, starts its challenge', () => {
    expect(bearerParams('Bearer x="1",, y="2",')).toEqual(['x="1"', 'y="2"']);
    expect(bearerParams('Bearer')).toEqual([]);
    expect(bearerParams('Basic, Bearer')).toEqual([]);
    expect(bearerParams('Bearer  realm="x"')).toEqual(['realm="x"']);
  });

  it('a parameter with spaces around its `=`, or a stray quoted string, is a parameter, not a new challenge', () => {
    expect(bearerParams('Bearer a=1, realm  = "x", b=2')).toEqual(['a=1', 'realm  = "x"', 'b=2']);
    expect(bearerParams('Bearer a=1, "x"')).toEqual(['a=1', '"x"']);
  });

  it("parameters before any challenge, or of another scheme, are not Bearer's; the first Bearer challenge is the one read", () => {
    expect(bearerParams('a=b, Bearer c=d')).toEqual(['c=d']);
    expect(bearerParams('Basic a=1, b=2, Bearer c=3')).toEqual(['c=3']);
    expect(bearerParams('Bearer a=1, Basic b=2, Bearer c=3')).toEqual(['a=1']);
    expect(bearerParams('Basic a=1')).toBeUndefined();
  });

  it('resource_metadata unescapes a quoted value', () => {
    expect(resourceMetadataParam('Bearer resource_metadata="http://x/a\\"b"')).toBe('http://x/a"b');
  });
});

describe('metadataCheck and resourceNames: several problems, several identities, no URL', () => {
  it('names every identity of this server, and every problem in the short text too', () => {
    const d: Discovery = {
      via: 'challenge',
      url: 'http://s/prm',
      document: { resource: 'http://other/mcp', authorization_servers: [] },
      tried: [],
    };
    const c = metadataCheck(d, 'http://issuer', ['http://s/mcp', 'aud-1', 'http://s/mcp']);
    const problems = '`resource` "http://other/mcp" that does not name this server (http://s/mcp or aud-1), no `authorization_servers`';
    expect(c).toMatchObject({ outcome: 'failed', short: problems });
    expect(c.text).toBe(`the metadata has ${problems} (${citation('metadata')})`);
  });

  it('a document found is the discovery check passed, under its own id', () => {
    const d: Discovery = { via: 'well-known', url: 'http://s/.well-known/oauth-protected-resource', document: {}, tried: [] };
    expect(discoveryCheck(d)).toMatchObject({ id: 'discovery', outcome: 'ok', short: 'well-known' });
  });

  it('a resource or a URL that is no URL names nothing', () => {
    expect(resourceNames('not a url', 'http://s/mcp')).toBe(false);
    expect(resourceNames('http://s/mcp', 'not a url')).toBe(false);
  });
});
