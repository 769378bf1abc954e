// The no-token refusal's challenge, over a real loopback socket: a 401 may carry several challenges (RFC 7235
// §4.1: several WWW-Authenticate lines, or one line with a list), and the Bearer one need not come first. The
// www-authenticate check and OAuth discovery must both find it wherever it is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { citation, discoveryCheck, type OAuthCheck } from '../../../src/driver/http/oauth.js';
import { discover, resourceMetadataParam } from '../../../src/driver/http/oauth-discovery.js';
import { byRevision, checkResult, checkSource } from '../../../src/contract/checks.js';
import {
  asJudged,
  challengeCheck,
  checksMessage,
  phaseMessage,
  postInitialize,
  reportedChecks,
  statusCheck,
  servedAnyway,
  type HttpChecks,
  type SubCheck,
} from '../../../src/driver/phases/http-refusals.js';
import { resolved } from '../helpers/levels.js';

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

describe('asJudged: the 401 and OAuth checks as the message reads them, once judged by the negotiated revision', () => {
  const ok: SubCheck = { outcome: 'ok', text: '401', short: '401' };
  const audience: OAuthCheck = {
    id: 'audience',
    outcome: 'failed',
    text: `200 (want 401: a token for another audience is accepted) (${citation('audience')})`,
    short: '200 (want 401)',
    step: 'token for another audience',
  };
  const expired: OAuthCheck = { id: 'expired', outcome: 'ok', text: '401', short: '401', step: 'expired token' };
  const checks: HttpChecks = { noToken: ok, wwwAuthenticate: ok, wrongToken: ok, roundTrip: ok, oauth: [audience, expired] };
  const judged = (revision: string) => reportedChecks(checks, resolved('http', { auth: 'oauth' })).map((c) => byRevision(c, revision));

  it('under a revision without the requirement: `not applicable (revision X)`, never its finding', () => {
    const shown = asJudged(checks, judged('2024-11-05'));
    expect(shown.noToken).toEqual({ outcome: 'n/a', text: 'not applicable (revision 2024-11-05)', short: 'n/a (2024-11-05)' });
    expect(shown.wrongToken.outcome).toBe('n/a');
    // RFC 6750's challenge is judged under every revision.
    expect(shown.wwwAuthenticate).toBe(ok);
    expect(shown.oauth![0]).toMatchObject({ id: 'audience', outcome: 'n/a', text: 'not applicable (revision 2024-11-05)' });
    expect(shown.roundTrip).toBe(ok);
  });

  it('under a revision with it: the finding stands, its citation naming the revision judged by', () => {
    const shown = asJudged(checks, judged('2025-06-18'));
    expect(shown.noToken).toBe(ok);
    expect(shown.oauth![0]!.text).toBe(
      '200 (want 401: a token for another audience is accepted) (MUST, MCP 2025-06-18 basic/authorization#token-audience-binding-and-validation: a server MUST validate that an access token was issued for it as the intended audience (RFC 8707 §2))',
    );
    // Audience binding arrived in 2025-06-18: under 2025-03-26 it does not apply, expiry (2025-03-26) does.
    const earlier = asJudged(checks, judged('2025-03-26'));
    expect(earlier.oauth!.map((o) => o.outcome)).toEqual(['n/a', 'ok']);
  });
});

describe('servedAnyway: a 401 check a revision without basic/authorization lacks', () => {
  const na = (id: string) =>
    byRevision(
      { id, outcome: 'failed', level: 'require', requirement: 'MUST', message: '200 (want 401)', step: 'request without a token' },
      '2024-11-05',
    );
  it("a served request still fails, as the config's rule (http.auth), naming the status and the revision", () => {
    expect(na('no-token-401').outcome).toBe('not-applicable');
    for (const status of [200, 299]) {
      const c = servedAnyway(na('no-token-401'), status, 'oauth');
      expect(c).toEqual({
        id: 'no-token-401',
        outcome: 'failed',
        level: 'require',
        revision: '2024-11-05',
        message: `${status}: the endpoint served a request without a token, but the config says it requires a bearer token (http.auth 'oauth'); MCP 2024-11-05 has no authorization section, so no status is required of the refusal`,
        short: `${status} (want a refusal)`,
        step: 'request without a token',
        evidence: { seen: { outcome: 'failed', message: '200 (want 401)' }, status, rule: 'http.auth' },
      });
    }
    expect(servedAnyway(na('wrong-token-401'), 204, 'bearer')).toMatchObject({
      outcome: 'failed',
      step: 'request with a wrong token',
      message: expect.stringMatching(/^204: the endpoint served a request with a wrong token, but /),
    });
  });

  it('a refusal of any status, no answer, another check, or one the revision has: unchanged', () => {
    const c = na('no-token-401');
    for (const status of [199, 300, 403, undefined]) expect(servedAnyway(c, status, 'bearer')).toBe(c);
    const other = na('token-in-header');
    expect(servedAnyway(other, 200, 'bearer')).toBe(other);
    const judged = byRevision({ id: 'no-token-401', outcome: 'failed', level: 'require', message: 'x' }, '2025-11-25');
    expect(servedAnyway(judged, 200, 'bearer')).toBe(judged);
  });

  it('the message and the HTTP column read the failure, not "not applicable"', () => {
    const failedCheck = servedAnyway(na('no-token-401'), 200, 'bearer');
    const shown = asJudged(
      {
        noToken: {
          outcome: 'failed',
          text: '200 (want 401: the endpoint does not require the bearer token)',
          short: '200 (want 401)',
          step: 'x',
        },
        wwwAuthenticate: { outcome: 'n/a', text: '', short: 'n/a' },
        wrongToken: { outcome: 'ok', text: '401', short: '401' },
        roundTrip: { outcome: 'ok', text: 'ok', short: 'ok' },
      },
      [failedCheck],
    );
    expect(shown.noToken).toEqual({
      outcome: 'failed',
      text: failedCheck.message,
      short: '200 (want a refusal)',
      step: 'request without a token',
    });
  });
});

describe('the 401 and OAuth checks read out: the message, the reported checks, the rest that decides', () => {
  const ok = (text: string, short = text): SubCheck => ({ outcome: 'ok', text, short });
  const oauth = (id: OAuthCheck['id'], outcome: OAuthCheck['outcome'], text: string): OAuthCheck => ({
    id,
    outcome,
    text,
    short: text,
    step: id,
  });
  const base: HttpChecks = {
    noToken: ok('401'),
    wwwAuthenticate: ok('with a Bearer challenge', 'Bearer challenge'),
    wrongToken: ok('401'),
    roundTrip: ok('ok'),
  };

  it('statusCheck: a 2xx says what it means; any other status only what was wanted', () => {
    expect(statusCheck({ status: 200, wwwAuthenticate: null }, 'no token')).toEqual({
      outcome: 'failed',
      text: '200 (want 401: the endpoint does not require the bearer token)',
      short: '200 (want 401)',
      step: 'request without a token',
    });
    expect(statusCheck({ status: 299, wwwAuthenticate: null }, 'wrong token').text).toBe('299 (want 401: a wrong token is accepted)');
    for (const status of [199, 300, 403])
      expect(statusCheck({ status, wwwAuthenticate: null }, 'wrong token')).toEqual({
        outcome: 'failed',
        text: `${status} (want 401)`,
        short: `${status} (want 401)`,
        step: 'request with a wrong token',
      });
  });

  it('checksMessage: each OAuth check after the round trip, by its label; its own round trip and those not run left out', () => {
    const c: HttpChecks = {
      ...base,
      oauth: [
        oauth('discovery', 'ok', 'named by resource_metadata'),
        oauth('audience', 'failed', '200 (want 401)'),
        oauth('expired', 'not run', 'not run: the server exited (code 7) during oauth-audience'),
        oauth('roundTrip', 'ok', 'ok'),
      ],
    };
    expect(checksMessage(c)).toBe(
      'no token → 401 with a Bearer challenge; wrong token → 401; round trip ok; metadata discovery → named by resource_metadata; other audience → 200 (want 401)',
    );
    // A challenge not run (the server had exited) is not read out after the status.
    expect(checksMessage({ ...base, wwwAuthenticate: { outcome: 'not run', text: 'not run: gone', short: 'not run' } })).toBe(
      'no token → 401; wrong token → 401; round trip ok',
    );
    expect(checksMessage(base)).toBe('no token → 401 with a Bearer challenge; wrong token → 401; round trip ok');
  });

  it("reportedChecks: the OAuth checks between the 401 checks and the spec's, the evidence kept, their round trip once", () => {
    const exited: SubCheck = {
      outcome: 'failed',
      text: 'the server exited',
      short: 'server exited',
      step: 'x',
      evidence: { exited: 'code 7' },
    };
    const reported = reportedChecks(
      { ...base, noToken: exited, oauth: [oauth('audience', 'ok', '401'), oauth('roundTrip', 'ok', 'ok')] },
      resolved('http', { auth: 'oauth' }),
    );
    expect(reported.map((r) => r.id)).toEqual(['no-token-401', 'www-authenticate', 'wrong-token-401', 'oauth-audience', 'round-trip']);
    expect(reported[0]).toMatchObject({ outcome: 'failed', evidence: { exited: 'code 7' } });
    expect(reported[1]).not.toHaveProperty('evidence');
  });

  it('asJudged: an OAuth failure whose check was not reported, or cites another section, is left as it was', () => {
    const audience = oauth('audience', 'failed', `200 (want 401) (${citation('audience')})`);
    const c: HttpChecks = { ...base, oauth: [audience] };
    expect(asJudged(c, []).oauth![0]).toBe(audience);
    const elsewhere = checkResult('oauth-audience', 'require', { outcome: 'failed', message: 'x' });
    const moved = { ...elsewhere, spec: { revision: 'MCP 2025-06-18', section: 'basic/authorization#elsewhere' } };
    expect(asJudged(c, [moved]).oauth![0]).toBe(audience);
  });

  it('phaseMessage: after the read-out, each other required check that failed or was not measured; never a warning again', () => {
    const origin = checkResult('origin', 'require', { outcome: 'failed', message: 'a foreign Origin got 200', short: '200' });
    const host = checkResult('host', 'warn', { outcome: 'failed', message: 'a foreign Host got 200' });
    const session = checkResult('session-required', 'require', { outcome: 'not-measured', message: 'no session' });
    const noToken = checkResult('no-token-401', 'require', { outcome: 'failed', message: '200' });
    const audience = checkResult('oauth-audience', 'require', { outcome: 'failed', message: '200' });
    const passed = checkResult('protocol-version', 'require', { outcome: 'passed', message: 'ok' });
    const read = checksMessage(base);
    expect(phaseMessage(base, [noToken, audience, origin, host, session, passed])).toBe(
      [
        read,
        'origin: a foreign Origin got 200 [MUST, MCP 2025-11-25 basic/transports#security-warning, level require]',
        `session-required: no session [${checkSource(session)}]`,
      ].join('; '),
    );
    expect(phaseMessage(base, [host, passed])).toBe(read);
  });
});
