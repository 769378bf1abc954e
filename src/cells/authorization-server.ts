// The local authorization server an `http.auth: 'oauth'` run needs: a loopback issuer with JWKS and RFC 8414
// metadata, signing RS256 tokens with a key made for this run. The driver has no jose of its own, so it asks
// this server for tokens over a keyed loopback endpoint; failures are returned, never thrown.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import type { ResolvedConfig } from '../config/resolve.js';
import type { OAuthServerSpec, TestTokens } from '../contract/protocol.js';

export type { TestTokens };

export const AS_HOST = '127.0.0.1';
/** Where the driver asks for its test tokens (not advertised in the metadata: the harness's own). */
export const TOKENS_PATH = '/mcp-matrix/tokens';
/** An audience no server under test is: a token for it must be refused (RFC 8707). */
export const OTHER_AUDIENCE = 'https://other-resource.invalid/mcp';
/** Past any clock tolerance a server may allow (usually 60 s, at most a few minutes). */
const EXPIRED_SECONDS_AGO = 3600;
const LIFETIME_SECONDS = 600;

/**
 * Test-only hook: comma-separated ports the authorization server listens on (in order) instead of one the
 * system picks, so a test can make its port be taken. Unset in every real run.
 */
export const TEST_AS_PORTS_ENV = 'MCP_MATRIX_TEST_AS_PORTS';

export interface AuthorizationServer {
  issuer: string;
  jwksUri: string;
  /** RFC 8414 metadata URL. */
  metadataUrl: string;
  /** POST `{ audience, key }` → {@link TestTokens}. */
  tokensUrl: string;
  /** The secret the tokens endpoint asks for. */
  tokensKey: string;
  /** Why the first port was given up, when it was (a taken port, retried on another). */
  retriedAfter?: string;
  /** Mints the test tokens in-process (what the tokens endpoint answers). */
  mint(audience: string): Promise<TestTokens>;
  close(): Promise<void>;
}

export type StartResult = { ok: true; server: AuthorizationServer } | { ok: false; cause: string };

interface Keys {
  privateKey: CryptoKey;
  otherKey: CryptoKey;
  jwk: JWK;
}

/** Made once per run (RSA key generation costs about a second of CPU): every cell's server signs with them. */
let runKeys: Promise<Keys> | undefined;

async function makeKeys(): Promise<Keys> {
  const [own, other] = await Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...(await exportJWK(own.publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateKey: own.privateKey, otherKey: other.privateKey, jwk };
}

/** The next forced port from the hook (the variable is the queue), else 0: the system picks a free one. */
export function takeForcedPort(env: NodeJS.ProcessEnv = process.env): number {
  const ports = (env[TEST_AS_PORTS_ENV] ?? '')
    .split(',')
    .map(Number)
    .filter((p) => Number.isInteger(p) && p > 0);
  const [first, ...rest] = ports;
  if (rest.length) env[TEST_AS_PORTS_ENV] = rest.join(',');
  else delete env[TEST_AS_PORTS_ENV];
  return first ?? 0;
}

function listen(server: Server, port: number): Promise<number | Error> {
  return new Promise((resolve) => {
    const onError = (error: Error): void => resolve(error);
    server.once('error', onError);
    server.listen(port, AS_HOST, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Starts it; a taken port is tried once more on another before giving up with both causes. */
export async function startAuthorizationServer(options: { scopes?: string[] } = {}): Promise<StartResult> {
  runKeys ??= makeKeys();
  const keys = await runKeys;
  const causes: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const wanted = takeForcedPort();
    const state: { issuer: string } = { issuer: '' };
    const tokensKey = randomBytes(24).toString('hex');
    const mint = (audience: string): Promise<TestTokens> => mintTokens(keys, state.issuer, audience, options.scopes ?? []);
    const server = createServer((req, res) => void handle(req, res, keys, state.issuer, tokensKey, mint));
    const port = await listen(server, wanted);
    if (port instanceof Error) {
      server.close();
      const code = (port as NodeJS.ErrnoException).code;
      causes.push(`${AS_HOST}:${wanted}: ${code === 'EADDRINUSE' ? 'port already in use' : port.message}`);
      continue;
    }
    state.issuer = `http://${AS_HOST}:${port}`;
    return {
      ok: true,
      server: {
        issuer: state.issuer,
        jwksUri: `${state.issuer}/jwks`,
        metadataUrl: `${state.issuer}/.well-known/oauth-authorization-server`,
        tokensUrl: `${state.issuer}${TOKENS_PATH}`,
        tokensKey,
        ...(causes.length ? { retriedAfter: causes[0]! } : {}),
        mint,
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      },
    };
  }
  return { ok: false, cause: `the local authorization server could not listen: ${causes.join('; retried: ')}` };
}

async function mintTokens(keys: Keys, issuer: string, audience: string, scopes: string[]): Promise<TestTokens> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { ...(scopes.length ? { scope: scopes.join(' ') } : {}), client_id: 'mcp-matrix' };
  const header = { alg: 'RS256', kid: keys.jwk.kid!, typ: 'at+jwt' };
  const signed = (aud: string, iat: number, key: CryptoKey): Promise<string> =>
    new SignJWT(claims)
      .setProtectedHeader(header)
      .setIssuer(issuer)
      .setSubject('mcp-matrix-driver')
      .setAudience(aud)
      .setIssuedAt(iat)
      .setExpirationTime(iat + LIFETIME_SECONDS)
      .setJti(randomBytes(8).toString('hex'))
      .sign(key);
  const [valid, otherAudience, expired, otherKey] = await Promise.all([
    signed(audience, now, keys.privateKey),
    signed(OTHER_AUDIENCE, now, keys.privateKey),
    signed(audience, now - EXPIRED_SECONDS_AGO - LIFETIME_SECONDS, keys.privateKey),
    signed(audience, now, keys.otherKey),
  ]);
  const algNone = new UnsecuredJWT(claims)
    .setIssuer(issuer)
    .setSubject('mcp-matrix-driver')
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + LIFETIME_SECONDS)
    .encode();
  return { valid, otherAudience, expired, otherKey, algNone };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 64 * 1024) req.destroy(new Error('request body too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  keys: Keys,
  issuer: string,
  tokensKey: string,
  mint: (audience: string) => Promise<TestTokens>,
): Promise<void> {
  const path = new URL(req.url ?? '/', issuer).pathname;
  try {
    if (req.method === 'GET' && (path === '/.well-known/oauth-authorization-server' || path === '/.well-known/openid-configuration')) {
      json(res, 200, {
        issuer,
        jwks_uri: `${issuer}/jwks`,
        token_endpoint: `${issuer}/token`,
        grant_types_supported: ['client_credentials'],
        response_types_supported: ['token'],
        token_endpoint_auth_methods_supported: ['none'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
      return;
    }
    if (req.method === 'GET' && path === '/jwks') {
      json(res, 200, { keys: [keys.jwk] });
      return;
    }
    if (req.method === 'POST' && path === '/token') {
      // client_credentials with an RFC 8707 `resource`: a valid token for that resource.
      const form = new URLSearchParams(await readBody(req));
      const resource = form.get('resource');
      if (form.get('grant_type') !== 'client_credentials' || !resource) {
        json(res, 400, { error: 'invalid_request', error_description: 'grant_type=client_credentials and resource are required' });
        return;
      }
      json(res, 200, { access_token: (await mint(resource)).valid, token_type: 'Bearer', expires_in: LIFETIME_SECONDS });
      return;
    }
    if (req.method === 'POST' && path === TOKENS_PATH) {
      const body = JSON.parse(await readBody(req)) as { audience?: unknown; key?: unknown };
      if (body.key !== tokensKey || typeof body.audience !== 'string') {
        json(res, 403, { error: 'forbidden' });
        return;
      }
      json(res, 200, await mint(body.audience));
      return;
    }
    json(res, 404, { error: 'not_found' });
  } catch (error) {
    json(res, 400, { error: 'invalid_request', error_description: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Runs `body` with the authorization server an `auth: 'oauth'` http phase needs (closed after it, whatever
 * happens), handing it what the driver's spec carries: the coordinates, or why there are none.
 */
export async function withAuthorizationServer<T>(http: ResolvedConfig['http'], body: (oauth?: OAuthServerSpec) => Promise<T>): Promise<T> {
  if (!http || http.auth !== 'oauth') return body();
  const started = await startAuthorizationServer({ scopes: http.oauth?.scopes ?? [] });
  if (!started.ok) return body({ unavailable: started.cause });
  const { issuer, jwksUri, tokensUrl, tokensKey, retriedAfter } = started.server;
  try {
    return await body({
      issuer,
      jwksUri,
      tokensUrl,
      tokensKey,
      ...(http.oauth?.audience ? { audience: http.oauth.audience } : {}),
      ...(retriedAfter ? { retriedAfter } : {}),
    });
  } finally {
    await started.server.close();
  }
}
