// The local authorization server, over real loopback sockets and checked with jose as a resource server
// would: RFC 8414 metadata and JWKS, each test token valid or invalid for exactly its reason, the driver's
// token endpoint guarded by its key, and a taken port retried once, then reported (never thrown).
import net from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OTHER_AUDIENCE,
  startAuthorizationServer,
  TEST_AS_PORTS_ENV,
  withAuthorizationServer,
  type AuthorizationServer,
  type TestTokens,
} from '../../src/cells/authorization-server.js';
import type { ResolvedConfig } from '../../src/config/resolve.js';

const AUDIENCE = 'http://127.0.0.1:4321/mcp';
let as: AuthorizationServer;
let tokens: TestTokens;

beforeAll(async () => {
  const started = await startAuthorizationServer({ scopes: ['mcp:read', 'mcp:write'] });
  if (!started.ok) throw new Error(started.cause);
  as = started.server;
  const res = await fetch(as.tokensUrl, { method: 'POST', body: JSON.stringify({ audience: AUDIENCE, key: as.tokensKey }) });
  expect(res.status).toBe(200);
  tokens = (await res.json()) as TestTokens;
});
afterAll(() => as?.close());
afterEach(() => {
  delete process.env[TEST_AS_PORTS_ENV];
});

const verify = (token: string, audience = AUDIENCE) =>
  jwtVerify(token, createRemoteJWKSet(new URL(as.jwksUri)), { issuer: as.issuer, audience, algorithms: ['RS256'] });

describe('the authorization server', () => {
  it('serves RFC 8414 metadata (and the same as OpenID discovery) naming its issuer and JWKS', async () => {
    expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const doc = (await (await fetch(`${as.issuer}${path}`)).json()) as Record<string, unknown>;
      expect(doc).toMatchObject({ issuer: as.issuer, jwks_uri: as.jwksUri, token_endpoint: `${as.issuer}/token` });
    }
    const jwks = (await (await fetch(as.jwksUri)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('the valid token verifies for the audience asked for, with the configured scopes', async () => {
    const { payload } = await verify(tokens.valid);
    expect(payload).toMatchObject({ iss: as.issuer, aud: AUDIENCE, sub: 'mcp-matrix-driver', scope: 'mcp:read mcp:write' });
    expect(payload.exp! - payload.iat!).toBe(600);
  });

  it('each bad token fails verification for its own reason, and only that one', async () => {
    await expect(verify(tokens.otherAudience)).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
    await expect(verify(tokens.otherAudience, OTHER_AUDIENCE)).resolves.toBeDefined();
    await expect(verify(tokens.expired)).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
    // Past any clock tolerance a server may allow.
    await expect(
      jwtVerify(tokens.expired, createRemoteJWKSet(new URL(as.jwksUri)), { issuer: as.issuer, audience: AUDIENCE, clockTolerance: 1800 }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
    // Under the JWKS key's own kid: only a signature check catches it.
    expect(decodeProtectedHeader(tokens.otherKey).kid).toBe(decodeProtectedHeader(tokens.valid).kid);
    await expect(verify(tokens.otherKey)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    expect(decodeProtectedHeader(tokens.algNone).alg).toBe('none');
    expect(tokens.algNone.endsWith('.')).toBe(true);
    await expect(verify(tokens.algNone)).rejects.toThrow();
  });

  it('the driver’s endpoint wants its key; client_credentials with an RFC 8707 resource gives a valid token', async () => {
    const refused = await fetch(as.tokensUrl, { method: 'POST', body: JSON.stringify({ audience: AUDIENCE, key: 'wrong' }) });
    expect(refused.status).toBe(403);
    const garbage = await fetch(as.tokensUrl, { method: 'POST', body: '{not json' });
    expect(garbage.status).toBe(400);
    const res = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: AUDIENCE }),
    });
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('Bearer');
    await expect(verify(body.access_token)).resolves.toBeDefined();
    const noResource = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(noResource.status).toBe(400);
    expect((await fetch(`${as.issuer}/elsewhere`)).status).toBe(404);
  });
});

function holdPort(): Promise<net.Server> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}
const portOf = (s: net.Server): number => (s.address() as net.AddressInfo).port;

describe('a taken port', () => {
  it('is retried once on another port', async () => {
    const holder = await holdPort();
    process.env[TEST_AS_PORTS_ENV] = String(portOf(holder));
    const started = await startAuthorizationServer();
    try {
      expect(started.ok).toBe(true);
      if (started.ok) {
        expect(started.server.issuer).not.toBe(`http://127.0.0.1:${portOf(holder)}`);
        expect(started.server.retriedAfter).toBe(`127.0.0.1:${portOf(holder)}: port already in use`);
      }
    } finally {
      if (started.ok) await started.server.close();
      holder.close();
    }
  });

  it('taken twice: reported with both causes; the http phase is handed the cause (not measured), never a throw', async () => {
    const [a, b] = await Promise.all([holdPort(), holdPort()]);
    process.env[TEST_AS_PORTS_ENV] = `${portOf(a)},${portOf(b)}`;
    const started = await startAuthorizationServer();
    expect(started).toEqual({
      ok: false,
      cause: `the local authorization server could not listen: 127.0.0.1:${portOf(a)}: port already in use; retried: 127.0.0.1:${portOf(b)}: port already in use`,
    });
    process.env[TEST_AS_PORTS_ENV] = `${portOf(a)},${portOf(b)}`;
    const http = { auth: 'oauth', oauth: { scopes: [] } } as unknown as ResolvedConfig['http'];
    const handed = await withAuthorizationServer(http, async (oauth) => oauth);
    expect(handed).toEqual({ unavailable: started.ok ? '' : started.cause });
    a.close();
    b.close();
  });

  it('no oauth: nothing started, nothing handed; the server is closed after the body, even when it throws', async () => {
    expect(await withAuthorizationServer({ auth: 'bearer' } as ResolvedConfig['http'], async (oauth) => oauth)).toBeUndefined();
    let issuer = '';
    await expect(
      withAuthorizationServer(
        { auth: 'oauth', oauth: { audience: 'urn:x', scopes: [] } } as unknown as ResolvedConfig['http'],
        async (oauth) => {
          expect(oauth).toMatchObject({ audience: 'urn:x' });
          issuer = (oauth as { issuer: string }).issuer;
          throw new Error('driver crashed');
        },
      ),
    ).rejects.toThrow('driver crashed');
    await expect(fetch(`${issuer}/jwks`)).rejects.toThrow();
  });
});
