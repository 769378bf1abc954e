// The http phase's judgements, one sub-check at a time: exactly 401 (never any 4xx), a Bearer
// challenge on the refusal, and one message that reports every sub-check.
import { describe, expect, it } from 'vitest';
import {
  challengeCheck,
  checksMessage,
  endpointUrl,
  firstFailure,
  portRace,
  statusCheck,
  takeTestPort,
  TEST_PORTS_ENV,
  type HttpChecks,
  type SubCheck,
} from '../../../src/driver/phases/http.js';

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

describe('firstFailure: the sub-check that names the step', () => {
  const ok: SubCheck = { outcome: 'ok', text: 'ok', short: 'ok' };
  const fail = (step: string): SubCheck => ({ outcome: 'failed', text: step, short: step, step });
  const noAuth: SubCheck = { outcome: 'no auth', text: 'no auth (not checked)', short: 'no auth' };
  it('is the first failed one in message order, and none when nothing failed', () => {
    expect(firstFailure({ noToken: ok, wwwAuthenticate: ok, wrongToken: ok, roundTrip: ok })).toBeUndefined();
    expect(firstFailure({ noToken: noAuth, wwwAuthenticate: noAuth, wrongToken: noAuth, roundTrip: ok })).toBeUndefined();
    expect(firstFailure({ noToken: ok, wwwAuthenticate: fail('b'), wrongToken: fail('c'), roundTrip: fail('d') })?.step).toBe('b');
    expect(firstFailure({ noToken: fail('a'), wwwAuthenticate: fail('b'), wrongToken: ok, roundTrip: ok })?.step).toBe('a');
    expect(firstFailure({ noToken: ok, wwwAuthenticate: ok, wrongToken: fail('c'), roundTrip: fail('d') })?.step).toBe('c');
    expect(firstFailure({ noToken: ok, wwwAuthenticate: ok, wrongToken: ok, roundTrip: fail('d') })?.step).toBe('d');
  });
});

describe('endpointUrl', () => {
  it('brackets an IPv6 host and gives the path its leading slash', () => {
    expect(endpointUrl('127.0.0.1', 4000, '/mcp')).toBe('http://127.0.0.1:4000/mcp');
    expect(endpointUrl('127.0.0.1', 4000, 'mcp')).toBe('http://127.0.0.1:4000/mcp');
    expect(endpointUrl('::1', 4000, '/')).toBe('http://[::1]:4000/');
  });
});

describe('takeTestPort: the test hook is a queue in the environment', () => {
  it('hands out the valid ports in order, then nothing, and removes the variable once empty', () => {
    const env: NodeJS.ProcessEnv = { [TEST_PORTS_ENV]: '4100, x,0,-3,1.5,4101' };
    expect(takeTestPort(env)).toBe(4100);
    expect(env[TEST_PORTS_ENV]).toBe('4101');
    expect(takeTestPort(env)).toBe(4101);
    expect(env).not.toHaveProperty(TEST_PORTS_ENV);
    expect(takeTestPort(env)).toBeUndefined();
    expect(takeTestPort({})).toBeUndefined();
    expect(takeTestPort({ [TEST_PORTS_ENV]: '' })).toBeUndefined();
  });
});

describe('portRace: another process holds the port', () => {
  const identity = { step: 'port identity', reason: "127.0.0.1:4123 answers, but no process of the started server's group holds it" };
  const exited = { step: 'wait for listen', reason: 'server exited (code 1) before listening on 127.0.0.1:4123' };
  const EADDRINUSE = 'Error: listen EADDRINUSE: address already in use 127.0.0.1:4123\n    at Server.setupListenHandle\n';
  it('a foreign listener is a race, named with its holder when /proc tells (its command line cut at 120)', () => {
    const cmdline = `python3 ${'x'.repeat(200)}`;
    expect(portRace('', 4123, identity, () => ({ pid: 77, cmdline }))).toEqual({
      port: 4123,
      cause: `${identity.reason} (held by pid 77: ${cmdline.slice(0, 120)})`,
    });
    expect(portRace('', 4123, identity, () => null)).toEqual({ port: 4123, cause: identity.reason });
  });

  it("EADDRINUSE on the harness's port in the server's stderr is a race; on another port, or none, it is not", () => {
    const holderOf = (): never => {
      throw new Error('only a foreign listener is looked up');
    };
    expect(portRace(EADDRINUSE, 4123, exited, holderOf)).toEqual({
      port: 4123,
      cause: "port 4123 is already in use (EADDRINUSE in the server's stderr)",
    });
    expect(portRace(EADDRINUSE.replace('4123', '9090'), 4123, exited, holderOf)).toBeNull();
    expect(portRace('refusing to start\n', 4123, exited, holderOf)).toBeNull();
  });
});
