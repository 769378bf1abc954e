// A throwaway authorization server for oauth.sh, written apart from mcp-matrix's own (src/cells/authorization-server.ts)
// so that the ground truth does not rest on the harness's code: jose only.
//   node examples/_truth/oauth-as.mjs <dir>
// Listens on 127.0.0.1 (a free port), serves /jwks.json and RFC 8414 metadata (also as OpenID discovery), writes
// its issuer to <dir>/issuer and one token per file for $TRUTH_AUDIENCE: valid, other-audience, expired (an hour
// ago), other-key (same kid, another key), alg-none. Runs until killed.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';

const dir = process.argv[2];
const audience = process.env.TRUTH_AUDIENCE;
const own = await generateKeyPair('RS256');
const other = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(own.publicKey)), kid: 'truth-1', alg: 'RS256', use: 'sig' };
const server = createServer((req, res) => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const body =
    req.url === '/jwks.json'
      ? { keys: [jwk] }
      : req.url === '/.well-known/oauth-authorization-server' || req.url === '/.well-known/openid-configuration'
        ? { issuer, jwks_uri: `${issuer}/jwks.json`, token_endpoint: `${issuer}/token`, response_types_supported: ['token'] }
        : null;
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'not_found' }));
});
server.listen(0, '127.0.0.1', async () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const now = Math.floor(Date.now() / 1000);
  const sign = (aud, iat, key) =>
    new SignJWT({ scope: 'profile email' })
      .setProtectedHeader({ alg: 'RS256', kid: 'truth-1', typ: 'JWT' })
      .setIssuer(issuer)
      .setSubject('ground-truth')
      .setAudience(aud)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(key);
  const tokens = {
    valid: await sign(audience, now, own.privateKey),
    'other-audience': await sign('https://elsewhere.invalid/mcp', now, own.privateKey),
    expired: await sign(audience, now - 7200, own.privateKey),
    'other-key': await sign(audience, now, other.privateKey),
    'alg-none': new UnsecuredJWT({ scope: 'profile email' })
      .setIssuer(issuer)
      .setSubject('ground-truth')
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .encode(),
  };
  for (const [name, token] of Object.entries(tokens)) writeFileSync(join(dir, name), token);
  writeFileSync(join(dir, 'issuer'), issuer);
});
