// The http phase's judgements, one sub-check at a time: exactly 401 (never any 4xx), a Bearer
// challenge on the refusal, and one message that reports every sub-check.
import { describe, expect, it } from 'vitest';
import { challengeCheck, checksMessage, statusCheck, type HttpChecks, type SubCheck } from '../../../src/driver/phases/http.js';

const probe = (status: number, wwwAuthenticate: string | null = null) => ({ status, wwwAuthenticate });

describe('statusCheck', () => {
  it('passes exactly 401', () => {
    expect(statusCheck(probe(401), 'no token')).toEqual({ outcome: 'ok', text: '401', short: '401' });
  });

  it.each([403, 400, 404, 407, 429])('fails %i, even with a Bearer challenge: only 401 means "authenticate"', (status) => {
    for (const who of ['no token', 'wrong token'] as const) {
      const check = statusCheck(probe(status, 'Bearer realm="x"'), who);
      expect(check).toEqual({
        outcome: 'failed',
        text: `${status} (want 401)`,
        short: `${status} (want 401)`,
        step: who === 'no token' ? 'request without a token' : 'request with a wrong token',
      });
    }
  });

  it('names what a 2xx means for each request', () => {
    expect(statusCheck(probe(200), 'no token').text).toBe('200 (want 401: the endpoint does not require the bearer token)');
    expect(statusCheck(probe(202), 'wrong token').text).toBe('202 (want 401: a wrong token is accepted)');
  });

  it('fails a request that got no answer, saying why', () => {
    const check = statusCheck(new Error('timed out after 50 ms waiting for an HTTP response'), 'wrong token');
    expect(check).toMatchObject({ outcome: 'failed', text: 'no answer (timed out after 50 ms waiting for an HTTP response)' });
  });
});

describe('challengeCheck', () => {
  it('passes a Bearer challenge (any case, with parameters)', () => {
    expect(challengeCheck(probe(401, 'Bearer realm="mcp"'))?.outcome).toBe('ok');
    expect(challengeCheck(probe(401, 'bearer'))?.outcome).toBe('ok');
    expect(challengeCheck(probe(403, 'Bearer error="invalid_token"'))?.outcome).toBe('ok');
  });

  it('fails a refusal without a challenge, or with another scheme', () => {
    expect(challengeCheck(probe(401))).toMatchObject({ outcome: 'failed', text: 'without WWW-Authenticate', short: 'no challenge' });
    expect(challengeCheck(probe(401, 'Basic realm="x"'))).toMatchObject({
      outcome: 'failed',
      text: 'with WWW-Authenticate "Basic realm=\\"x\\"" (want Bearer)',
    });
  });

  it('does not judge the challenge when there was no refusal', () => {
    expect(challengeCheck(probe(200))).toBeNull();
    expect(challengeCheck(probe(500))).toBeNull();
    expect(challengeCheck(new Error('reset'))).toBeNull();
  });
});

describe('checksMessage', () => {
  const ok = (text: string): SubCheck => ({ outcome: 'ok', text, short: 'ok' });
  it('reports every sub-check, failures and passes alike', () => {
    const checks: HttpChecks = {
      noToken: statusCheck(probe(401), 'no token'),
      wwwAuthenticate: challengeCheck(probe(401))!,
      wrongToken: statusCheck(probe(403), 'wrong token'),
      roundTrip: ok('ok'),
    };
    expect(checksMessage(checks)).toBe('no token → 401 without WWW-Authenticate; wrong token → 403 (want 401); round trip ok');
  });

  it('shows skipped auth checks as "no auth", never as ok', () => {
    const noAuth: SubCheck = { outcome: 'no auth', text: 'no auth (not checked)', short: 'no auth' };
    const message = checksMessage({ noToken: noAuth, wwwAuthenticate: noAuth, wrongToken: noAuth, roundTrip: ok('ok') });
    expect(message).toBe('no token → no auth (not checked); wrong token → no auth (not checked); round trip ok');
  });
});

describe('sub-checks, exactly', () => {
  it('a 3xx is not a 2xx: no reason given; no answer names the step', () => {
    expect(statusCheck(probe(300), 'no token')).toEqual({
      outcome: 'failed',
      text: '300 (want 401)',
      short: '300 (want 401)',
      step: 'request without a token',
    });
    expect(statusCheck(probe(500), 'wrong token').text).toBe('500 (want 401)');
    expect(statusCheck(new Error('reset'), 'no token')).toEqual({
      outcome: 'failed',
      text: 'no answer (reset)',
      short: 'no answer',
      step: 'request without a token',
    });
  });

  it('the challenge: 400 is a refusal; the scheme must come first; each result in full', () => {
    expect(challengeCheck(probe(400, 'Bearer'))).toEqual({ outcome: 'ok', text: 'with a Bearer challenge', short: 'Bearer challenge' });
    expect(challengeCheck(probe(399, 'Bearer'))).toBeNull();
    expect(challengeCheck(probe(401, 'Basic, Bearer'))).toEqual({
      outcome: 'failed',
      text: 'with WWW-Authenticate "Basic, Bearer" (want Bearer)',
      short: 'not a Bearer challenge',
      step: 'request without a token',
    });
    expect(challengeCheck(probe(401))).toEqual({
      outcome: 'failed',
      text: 'without WWW-Authenticate',
      short: 'no challenge',
      step: 'request without a token',
    });
  });

  it('the message has no stray space when the challenge was not judged', () => {
    const notJudged: SubCheck = { outcome: 'n/a', text: '', short: 'n/a' };
    const ok: SubCheck = { outcome: 'ok', text: 'ok', short: 'ok' };
    const message = checksMessage({
      noToken: statusCheck(probe(200), 'no token'),
      wwwAuthenticate: notJudged,
      wrongToken: ok,
      roundTrip: ok,
    });
    expect(message).toBe('no token → 200 (want 401: the endpoint does not require the bearer token); wrong token → ok; round trip ok');
  });
});
