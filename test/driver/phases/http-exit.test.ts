// http-exit.ts on its own: the wording of an exit met and of the checks after it, which probe of the OAuth checks
// names it, what "before" means, and the cause the lifecycle edges give. The same against real processes is in
// test/driver/phases/spec-checks.test.ts (crash-on-no-token) and test/driver/phases/oauth.test.ts.
import { describe, expect, it } from 'vitest';
import type { OAuthCheck } from '../../../src/driver/http/oauth.js';
import {
  exitCause,
  exitText,
  lifecycleNotRunCause,
  notRunChecks,
  notRunOAuth,
  notRunText,
  oauthAfterExit,
  refusedConnection,
} from '../../../src/driver/phases/http-exit.js';
import type { SubCheckResult } from '../../../src/results/types.js';
import { NoAnswer } from '../../../src/driver/http/raw-http.js';

const coded = (code: string): Error => Object.assign(new Error(code), { code });
const EXIT = { how: 'code 7', during: 'no-token-401' };

describe('the words', () => {
  it('the check that met the exit says under or before which request; the later ones say during which check', () => {
    expect(exitText('code 7', false, 'request without a token')).toBe(
      'the server exited (code 7) under the request without a token (see its stderr)',
    );
    expect(exitText('signal SIGKILL', true, 'request with a wrong token')).toBe(
      'the server exited (signal SIGKILL) before the request with a wrong token (see its stderr)',
    );
    expect(exitCause(EXIT)).toBe('the server exited (code 7) during no-token-401');
    expect(notRunText(EXIT)).toBe('not run: the server exited (code 7) during no-token-401');
  });
  it("nobody listening is ECONNREFUSED, on the error or on fetch's cause; a reset or a timeout is not", () => {
    expect(refusedConnection(coded('ECONNREFUSED'))).toBe(true);
    expect(refusedConnection(new TypeError('fetch failed', { cause: coded('ECONNREFUSED') }))).toBe(true);
    expect(refusedConnection(new TypeError('fetch failed', { cause: coded('ECONNRESET') }))).toBe(false);
    expect(refusedConnection(coded('ECONNRESET'))).toBe(false);
    expect(refusedConnection(new Error('no answer within 5 ms'))).toBe(false);
    expect(refusedConnection(undefined)).toBe(false);
  });
  it('checks not run are skipped with the cause, at their levels (an off one recorded as off)', () => {
    const r = notRunChecks(['origin', 'host'], { origin: 'warn', host: 'off' }, EXIT);
    expect(r.map((c) => [c.id, c.outcome, c.level, c.message, c.short])).toEqual([
      ['origin', 'skipped', 'warn', 'not run: the server exited (code 7) during no-token-401', 'not run'],
      ['host', 'skipped', 'off', 'off in the config (not run)', 'off'],
    ]);
    // None is defaulted: the levels arrive resolved, and a record without one does not compile (npm run typecheck).
    // @ts-expect-error: no level for "protocol-version"
    const missing = () => notRunChecks(['protocol-version'], {}, EXIT);
    expect(missing).toBeTypeOf('function');
  });
});

describe('oauthAfterExit', () => {
  const ok = (id: OAuthCheck['id'], step: string): OAuthCheck => ({ id, outcome: 'ok', text: '401', short: '401', step });
  const checks: OAuthCheck[] = [
    { id: 'discovery', outcome: 'failed', text: 'no metadata at …', short: 'no metadata', step: 'protected resource metadata discovery' },
    { id: 'metadata', outcome: 'n/a', text: 'not judged (no metadata document)', short: 'n/a', step: 'protected resource metadata' },
    ok('audience', 'token for another audience'),
    ok('expired', 'expired token'),
    ok('otherKey', 'token signed by another key'),
    ok('algNone', 'unsigned token (alg none)'),
  ];
  it('discovery without an answer names the exit; metadata is not run; the answered refusals keep their judgement', () => {
    const r = oauthAfterExit(checks, { discovery: true }, { how: 'code 7', at: 200 }, 100);
    expect(r.died).toEqual({ how: 'code 7', during: 'oauth-discovery' });
    expect(r.checks.map((c) => [c.id, c.outcome, c.text])).toEqual([
      ['discovery', 'failed', 'the server exited (code 7) under the protected resource metadata discovery (see its stderr)'],
      ['metadata', 'not run', 'not run: the server exited (code 7) during oauth-discovery'],
      ['audience', 'ok', '401'],
      ['expired', 'ok', '401'],
      ['otherKey', 'ok', '401'],
      ['algNone', 'ok', '401'],
    ]);
    expect(r.checks[0]).toMatchObject({
      short: 'server exited',
      step: 'protected resource metadata discovery',
      evidence: { exited: 'code 7' },
    });
  });
  it('the first unanswered in report order names it; before when it exited before the requests or nobody listened', () => {
    const r = oauthAfterExit(
      checks,
      { otherKey: new NoAnswer('fetch failed'), expired: new NoAnswer('fetch failed') },
      { how: 'code 7', at: 50 },
      100,
    );
    expect(r.died.during).toBe('oauth-expired');
    expect(r.checks.map((c) => c.outcome)).toEqual(['failed', 'n/a', 'ok', 'failed', 'not run', 'ok']);
    expect(r.checks[3]!.text).toBe('the server exited (code 7) before the request with an expired token (see its stderr)');
    expect(r.checks[4]!.text).toBe('not run: the server exited (code 7) during oauth-expired');
    // The discovery's own failure (it answered) is kept as it was.
    expect(r.checks[0]!.text).toBe('no metadata at …');
    const refused = oauthAfterExit(
      checks,
      { audience: NoAnswer.of(new TypeError('fetch failed', { cause: coded('ECONNREFUSED') })) },
      { how: 'code 7', at: 500 },
      100,
    );
    expect(refused.checks[2]!.text).toBe(
      'the server exited (code 7) before the request with a token for another audience (see its stderr)',
    );
    const under = oauthAfterExit(checks, { audience: new NoAnswer('fetch failed') }, { how: 'code 7', at: 100 }, 100);
    expect(under.checks[2]!.text).toMatch(/ under the request/);
  });
  it('the checks never met are not run, each with its step', () => {
    expect(notRunOAuth(EXIT).map((c) => [c.id, c.outcome, c.text, c.step])).toEqual([
      ['discovery', 'not run', notRunText(EXIT), 'protected resource metadata discovery'],
      ['metadata', 'not run', notRunText(EXIT), 'protected resource metadata'],
      ['audience', 'not run', notRunText(EXIT), 'token for another audience'],
      ['expired', 'not run', notRunText(EXIT), 'expired token'],
      ['otherKey', 'not run', notRunText(EXIT), 'token signed by another key'],
      ['algNone', 'not run', notRunText(EXIT), 'unsigned token (alg none)'],
    ]);
  });
});

describe('lifecycleNotRunCause', () => {
  const check = (id: string, evidence?: Record<string, unknown>): SubCheckResult => ({
    id,
    outcome: 'failed',
    level: 'require',
    message: 'x',
    ...(evidence ? { evidence } : {}),
  });
  it('the exit a check met, else an exit under the round trip, else the round trip failed', () => {
    expect(lifecycleNotRunCause([check('origin'), check('protocol-version', { exited: 'code 9' })], { exitInfo: undefined })).toBe(
      'the server exited (code 9) during protocol-version',
    );
    expect(lifecycleNotRunCause([check('origin')], { exitInfo: { code: 5, signal: null, at: 1 } })).toBe(
      'the server exited (code 5) during the round trip',
    );
    expect(lifecycleNotRunCause([], { exitInfo: { code: null, signal: 'SIGKILL', at: 1 } })).toBe(
      'the server exited (signal SIGKILL) during the round trip',
    );
    expect(lifecycleNotRunCause([check('round-trip')], { exitInfo: undefined })).toBe('the round trip failed');
  });
});
