// The http phase with `auth: 'oauth'`, from src, against the real OAuth fixture servers (fixtures/broken/_oauth
// and its broken copies: jose and the SDK from this repository's node_modules) and the harness's real local
// authorization server: the control passes every sub-check, each broken copy fails exactly its own, with a
// message naming the requirement, its level and the spec revision; no token leaves the phase.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer, type AuthorizationServer } from '../../../src/cells/authorization-server.js';
import { CATALOGUE_IDS, type OAuthCheckId } from '../../../src/driver/http/oauth.js';
import { httpPhase } from '../../../src/driver/phases/http.js';
import type { DriverSpec, OAuthServerSpec, Step } from '../../../src/contract/protocol.js';
import type { PhaseResultOf } from '../../../src/results/types.js';
import { ROOT } from '../helpers/cell.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { resolved } from '../helpers/levels.js';

type HttpSpec = Exclude<DriverSpec['phases']['http'], false>;

const STEP: Step = { tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } };
const fixture = (name: string): string => join(ROOT, 'fixtures/broken', name, 'bin/server.js');

let bench: PhaseBench;
let as: AuthorizationServer;

beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-oauth-phase-');
  const started = await startAuthorizationServer();
  if (!started.ok) throw new Error(started.cause);
  as = started.server;
});
afterAll(async () => {
  await as?.close();
  await bench?.dispose();
});

function coordinates(over: Partial<Extract<OAuthServerSpec, { issuer: string }>> = {}): OAuthServerSpec {
  return { issuer: as.issuer, jwksUri: as.jwksUri, tokensUrl: as.tokensUrl, tokensKey: as.tokensKey, ...over };
}

function spec(bin: string, oauth: OAuthServerSpec = coordinates()): HttpSpec {
  return resolved('http', {
    command: {
      bin,
      args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
      env: { OAUTH_ISSUER: '{issuer}', OAUTH_JWKS_URI: '{jwksUri}', OAUTH_AUDIENCE: '{audience}' },
    },
    host: '127.0.0.1',
    path: '/mcp',
    steps: [STEP],
    readyTimeoutMs: 15_000,
    timeoutMs: 10_000,
    auth: 'oauth',
    oauth,
  });
}

async function run(s: HttpSpec): Promise<{ r: PhaseResultOf<'http'>; started: number; deaths: { role: string; request: string }[] }> {
  const ctx = bench.context();
  const raw = await httpPhase(ctx, s);
  for (const server of ctx.servers) await server.proc.waitExit(5000);
  for (const server of ctx.servers) expect(server.proc.running).toBe(false);
  // Where the leaks phase reads a death under a request (ctx.diedMidRequest).
  const deaths = ctx.diedMidRequest.map((d) => ({ role: d.role, request: d.request }));
  // What leaves the driver: every message passes the context's redactor.
  return { r: ctx.redactor.deep(raw), started: ctx.servers.length, deaths };
}

interface OAuthCheckView {
  id: string;
  outcome: string;
  text: string;
  step: string;
}
const oauthChecks = (r: PhaseResultOf<'http'>): OAuthCheckView[] => (r.details!.checks as { oauth: OAuthCheckView[] }).oauth;
/** No JWT (three base64url parts) and no piece of one: the tokens are the driver's secrets. */
const JWT_PIECE = /eyJ[\w-]{8,}/;

describe("http phase, auth: 'oauth'", () => {
  it('a server that exits under the metadata discovery: oauth-discovery names the exit, the later checks are skipped with it, the answered token refusals are still judged', async () => {
    // 401 with a Bearer challenge (no resource_metadata) to every POST; the well-known GET, unanswered: exits (code 7)
    // once the four bad tokens (JWTs, sent with it) have had their 401.
    const bin = bench.server(
      'exits-on-discovery.mjs',
      `import http from 'node:http';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
let jwts = 0;
let pending = false;
const exitWhenDone = () => pending && jwts >= 4 && process.exit(7);
http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/.well-known/')) return void ((pending = true), exitWhenDone());
  req.resume();
  const jwt = /^Bearer eyJ/.test(req.headers.authorization ?? '');
  res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'application/json' }).end('{}', () => {
    if (jwt) jwts++;
    exitWhenDone();
  });
}).listen(port, '127.0.0.1');
`,
    );
    const { r, deaths } = await run(spec(bin));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.step).toBe('protected resource metadata discovery');
    // Issue 32 item 8: recorded where leaks reads it, so what the driver still holds from the probe is not its own leak.
    expect(deaths).toEqual([{ role: 'http', request: 'oauth-discovery' }]);
    const notRun = 'not run: the server exited (code 7) during oauth-discovery';
    const seen = Object.fromEntries(r.checks!.map((c) => [c.id, `${c.outcome}: ${c.message}`]));
    expect(seen).toMatchObject({
      'no-token-401': 'passed: 401',
      'wrong-token-401': 'passed: 401',
      'oauth-discovery': 'failed: the server exited (code 7) under the protected resource metadata discovery (see its stderr)',
      'oauth-metadata': `skipped: ${notRun}`,
      'oauth-audience': 'passed: 401',
      'oauth-alg-none': 'passed: 401',
      origin: `skipped: ${notRun}`,
      'protocol-version': `skipped: ${notRun}`,
      'session-ended-404': `skipped: ${notRun}`,
      'round-trip': 'failed: failed: not run: the server exited during oauth-discovery',
      'unknown-method': `skipped: ${notRun}`,
    });
    expect(r.checks!.find((c) => c.id === 'oauth-discovery')).toMatchObject({ evidence: { exited: 'code 7' } });
    expect(JSON.stringify(r.checks)).not.toMatch(/ECONNREFUSED|fetch failed|other side closed|socket hang up/);
  });

  it('the control passes every sub-check: metadata found through the challenge, four bad tokens refused, round trip ok', async () => {
    const { r } = await run(spec(fixture('_oauth')));
    expect(r.verdict, r.message).toBe('passed');
    const port = r.details!.port as number;
    expect(r.message).toBe(
      `no token → 401 with a Bearer challenge; wrong token → 401; round trip ok; metadata discovery → named by resource_metadata; metadata → resource "http://127.0.0.1:${port}/mcp", authorization_servers names the issuer; other audience → 401; expired token → 401; other key → 401; alg none → 401`,
    );
    expect(oauthChecks(r).map((c) => [c.id, c.outcome])).toEqual([
      ['discovery', 'ok'],
      ['metadata', 'ok'],
      ['audience', 'ok'],
      ['expired', 'ok'],
      ['otherKey', 'ok'],
      ['algNone', 'ok'],
      ['roundTrip', 'ok'],
    ]);
    // The server was told the authorization server's coordinates and its own audience (the endpoint URL).
    expect(r.details).toMatchObject({
      auth: 'oauth',
      issuer: as.issuer,
      jwksUri: as.jwksUri,
      audience: `http://127.0.0.1:${port}/mcp`,
      roundTrip: true,
      tools: 2,
    });
    // Reported as sub-checks (the catalogue's shape): each at level require, with its MUST and spec section.
    const authIds = ['no-token-401', 'www-authenticate', 'wrong-token-401', ...Object.values(CATALOGUE_IDS)];
    expect(r.checks!.filter((c) => authIds.includes(c.id)).map((c) => [c.id, c.outcome, c.level])).toEqual(
      authIds.map((id) => [id, 'passed', 'require']),
    );
    // The transport's spec checks run with the valid token too; none required fails (Origin and Host only warn behind it).
    expect(r.checks!.filter((c) => c.level === 'require' && c.outcome === 'failed')).toEqual([]);
    expect(r.checks!.find((c) => c.id === 'oauth-audience')).toMatchObject({
      requirement: 'MUST',
      spec: { revision: 'MCP 2025-11-25', section: 'basic/authorization#token-audience-binding-and-validation' },
    });
    expect(JSON.stringify(r)).not.toMatch(JWT_PIECE);
    expect(JSON.stringify(r)).not.toContain(as.tokensKey);
  });

  it('a correct server whose well-known metadata URI redirects within its origin (308, a trailing-slash rule) passes every sub-check', async () => {
    // Its challenge names no resource_metadata: the SDK client finds the metadata by following the redirect.
    const { r } = await run(spec(fixture('oauth-metadata-redirect')));
    const port = r.details!.port as number;
    expect(r.verdict, r.message).toBe('passed');
    expect(r.message).toBe(
      `no token → 401 with a Bearer challenge; wrong token → 401; round trip ok; metadata discovery → served at http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp/; metadata → resource "http://127.0.0.1:${port}/mcp", authorization_servers names the issuer; other audience → 401; expired token → 401; other key → 401; alg none → 401`,
    );
    expect((r.details!.oauth as { discovery: { tried: unknown[] } }).discovery.tried).toEqual([
      { url: `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`, status: 308 },
      { url: `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp/`, status: 200 },
    ]);
  });

  const CASES: { fixture: string; id: string; step: string; message: RegExp }[] = [
    {
      fixture: 'oauth-no-discovery',
      id: 'discovery',
      step: 'protected resource metadata discovery',
      message:
        /; metadata discovery → no resource_metadata in the 401 challenge, and no metadata at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp → 401, http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource → 401 \(MUST, MCP 2025-11-25 basic\/authorization#authorization-server-location: a server MUST name its Protected Resource Metadata: .* \(RFC 9728 §3, §5\.1\)\); metadata → not judged \(no metadata document\); other audience → 401/,
    },
    {
      fixture: 'oauth-no-authorization-servers',
      id: 'metadata',
      step: 'protected resource metadata',
      message:
        /; metadata → the metadata has no `authorization_servers` \(MUST, MCP 2025-11-25 basic\/authorization#authorization-server-location: the Protected Resource Metadata MUST have `resource` naming this server \(RFC 9728 §3\.3: a client MUST NOT use metadata whose `resource` is not identical to the resource it asked about; judged as the SDK clients judge it: the same origin as the endpoint, whose path is `resource`'s path or under it, trailing slashes aside\) and `authorization_servers` naming its authorization server \(MUST in MCP; optional in RFC 9728 §2\)\); other audience → 401/,
    },
    {
      fixture: 'oauth-audience-unchecked',
      id: 'audience',
      step: 'token for another audience',
      message:
        /; other audience → 200 \(want 401: a token for another audience is accepted\) \(MUST, MCP 2025-11-25 basic\/authorization#token-audience-binding-and-validation: a server MUST validate that an access token was issued for it as the intended audience \(RFC 8707 §2\)\); expired token → 401; other key → 401; alg none → 401$/,
    },
    {
      fixture: 'oauth-expired-accepted',
      id: 'expired',
      step: 'expired token',
      message:
        /; expired token → 200 \(want 401: an expired token is accepted\) \(MUST, MCP 2025-11-25 basic\/authorization#error-handling: an expired token MUST receive HTTP 401\); other key → 401; alg none → 401$/,
    },
    {
      fixture: 'oauth-signature-unchecked',
      id: 'otherKey',
      step: 'token signed by another key',
      message:
        /; other key → 200 \(want 401: a token signed by another key is accepted\) \(MUST, MCP 2025-11-25 basic\/authorization#token-handling: an invalid token \(signature not by the authorization server\) MUST receive HTTP 401 \(OAuth 2\.1 §5\.2\)\); alg none → 401$/,
    },
    {
      fixture: 'oauth-alg-none',
      id: 'algNone',
      step: 'unsigned token (alg none)',
      message:
        /; alg none → 200 \(want 401: an unsigned \(alg none\) token is accepted\) \(MUST, MCP 2025-11-25 basic\/authorization#token-handling: an invalid token \(unsigned, `alg: none`\) MUST receive HTTP 401 \(OAuth 2\.1 §5\.2\)\)$/,
    },
  ];

  it.each(CASES.map((c) => [c.fixture, c] as const))('%s fails exactly its own sub-check, naming the requirement', async (_f, c) => {
    const { r } = await run(spec(fixture(c.fixture)));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.step).toBe(c.step);
    expect(r.message).toMatch(/^no token → 401 with a Bearer challenge; wrong token → 401; round trip ok; /);
    expect(r.message).toMatch(c.message);
    const failed = oauthChecks(r)
      .filter((x) => x.outcome === 'failed')
      .map((x) => x.id);
    expect(failed).toEqual([c.id]);
    // The same one, and only it, failed among the reported sub-checks, at level require.
    expect(r.checks!.filter((x) => x.outcome === 'failed' && x.level === 'require').map((x) => [x.id, x.level])).toEqual([
      [CATALOGUE_IDS[c.id as OAuthCheckId], 'require'],
    ]);
    expect(JSON.stringify(r)).not.toMatch(JWT_PIECE);
  });

  it('no authorization server for the run: not measured, naming why; no server started', async () => {
    const { r, started } = await run(
      spec(fixture('_oauth'), { unavailable: 'the local authorization server could not listen: 127.0.0.1:1: port already in use' }),
    );
    expect(r).toMatchObject({
      verdict: 'not-measured',
      step: 'authorization server',
      message: 'the local authorization server could not listen: 127.0.0.1:1: port already in use',
    });
    expect(started).toBe(0);
  });

  it('an authorization server that refuses the driver (wrong key): not measured, never failed; no server started', async () => {
    const { r, started } = await run(spec(fixture('_oauth'), coordinates({ tokensKey: 'not-the-key-0123456789' })));
    expect(r).toMatchObject({
      verdict: 'not-measured',
      step: 'authorization server',
      message: "the local authorization server answered 403 to the driver's token request",
    });
    expect(started).toBe(0);
    expect(JSON.stringify(r)).not.toContain('not-the-key-0123456789');
  });

  it('a fixed audience from the config ({port} filled in) is the one the server is told and the tokens carry', async () => {
    const { r } = await run(spec(fixture('_oauth'), coordinates({ audience: 'urn:mcp-matrix:test:{port}' })));
    expect(r.verdict, r.message).toBe('passed');
    expect(r.details!.audience).toBe(`urn:mcp-matrix:test:${r.details!.port as number}`);
    expect(r.message).toContain(`metadata → resource "urn:mcp-matrix:test:${r.details!.port as number}"`);
  });
});
