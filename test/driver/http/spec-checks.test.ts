// spec-checks.ts on scripted answers, no server: each judge at the edges of its pass and fail (status
// ranges, the visible-ASCII bounds, every message, short, step and evidence), and specChecks' requests in
// order (headers, paths, bodies), its levels, its not-measured and its clean-up of the sessions it opened.
// The same checks against real servers are in test/driver/phases/spec-checks.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { CheckLevel, SubCheckResult } from '../../../src/results/types.js';
import { NoAnswer, type RawAnswer, type RawRequest, type Send, type Sent } from '../../../src/driver/http/raw-http.js';
import { SPEC_CHECK_IDS, specChecks, type SpecCheckInput } from '../../../src/driver/http/spec-checks.js';
import {
  judgeHost,
  judgeOrigin,
  judgeProtocolVersion,
  judgeQueryToken,
  judgeSessions,
  originRule,
} from '../../../src/driver/http/spec-judges.js';

const a = (status: number, extra: Partial<RawAnswer> = {}): RawAnswer => ({ status, body: '', ...extra });
const reset = new NoAnswer('socket hang up');
/** What node:http gives when the server closes or resets the connection without an answer. */
const closedBy = (message: string, code: string): NoAnswer => new NoAnswer(message, code);
const hangUp = closedBy('socket hang up', 'ECONNRESET');

describe('judgeOrigin', () => {
  const L = 'http://localhost:7';
  /** A loopback Origin served, with the revision the server negotiated (none read: no InitializeResult). */
  const at = (v: string, status = 200): RawAnswer =>
    a(status, { contentType: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: v } }) });
  const NONE = 'judged by MCP 2025-11-25: no negotiated revision was read';
  const NEW = 'judged by MCP 2025-11-25, the revision it negotiated';
  const OLD = (v: string) => `judged by MCP ${v}, the revision it negotiated, which names no status`;
  const SPEC = (v: string) => ({ revision: `MCP ${v}`, section: 'basic/transports#security-warning' });
  it('passes a foreign 403 with a loopback 2xx (200 and 299), naming both, the revision and keeping the evidence', () => {
    expect(judgeOrigin(a(403), a(200), L)).toEqual({
      outcome: 'passed',
      message: `a foreign Origin got 403; a loopback Origin got 200 (${NONE})`,
      short: '403',
      evidence: { foreign: '403', loopback: '200', loopbackOrigin: L, revision: '2025-11-25' },
      spec: SPEC('2025-11-25'),
    });
    expect(judgeOrigin(a(403), a(299), L).outcome).toBe('passed');
    expect(judgeOrigin(a(403), at('2025-11-25'), L).message).toBe(`a foreign Origin got 403; a loopback Origin got 200 (${NEW})`);
    // A later revision keeps 2025-11-25's rule, naming what it negotiated.
    expect(judgeOrigin(a(403), at('2026-06-30'), L)).toMatchObject({
      message: 'a foreign Origin got 403; a loopback Origin got 200 (judged by MCP 2025-11-25; it negotiated 2026-06-30)',
      spec: SPEC('2025-11-25'),
    });
    // A version that is no date is no revision read.
    expect(judgeOrigin(a(403), at('latest'), L).message).toBe(`a foreign Origin got 403; a loopback Origin got 200 (${NONE})`);
  });
  it('no answer to the foreign Origin fails as no answer, naming the error, whatever the revision', () => {
    expect(judgeOrigin(reset, a(200), L)).toEqual({
      outcome: 'failed',
      message: `a foreign Origin (http://evil.example) got no answer (socket hang up) (want 403; ${NONE})`,
      short: 'no answer',
      step: 'request with a foreign Origin',
      evidence: { foreign: 'no answer (socket hang up)', loopback: '200', loopbackOrigin: L, revision: '2025-11-25' },
      spec: SPEC('2025-11-25'),
    });
    // Before 2025-11-25 a refusal is enough, but a timeout or nobody listening is none.
    for (const e of [new NoAnswer('no answer within 5 ms'), closedBy('connect ECONNREFUSED x', 'ECONNREFUSED')])
      expect(judgeOrigin(e, at('2025-06-18'), L)).toMatchObject({
        outcome: 'failed',
        message: `a foreign Origin (http://evil.example) got no answer (${e.message}) (want a refusal, a 4xx or a closed connection; ${OLD('2025-06-18')})`,
        short: 'no answer',
        spec: SPEC('2025-06-18'),
      });
  });
  it('a foreign 2xx is named as no Origin validation; a foreign non-2xx other than 403 is only named', () => {
    expect(judgeOrigin(a(200), a(200), L)).toEqual({
      outcome: 'failed',
      message: `a foreign Origin (http://evil.example) got 200 (want 403: the server does not validate Origin (DNS rebinding); ${NONE})`,
      short: '200 (want 403)',
      step: 'request with a foreign Origin',
      evidence: { foreign: '200', loopback: '200', loopbackOrigin: L, revision: '2025-11-25' },
      spec: SPEC('2025-11-25'),
    });
    expect(judgeOrigin(a(299), a(200), L).message).toMatch(/\(DNS rebinding\); judged by/);
    for (const s of [199, 300, 401, 404])
      expect(judgeOrigin(a(s), at('2025-11-25'), L)).toMatchObject({
        outcome: 'failed',
        message: `a foreign Origin (http://evil.example) got ${s} (want 403; ${NEW})`,
        short: `${s} (want 403)`,
      });
  });
  it('a server that negotiated a revision before 2025-11-25 (2024-11-05, 2025-03-26, 2025-06-18): any 4xx or a closed connection refuses; 2xx, 3xx, 5xx do not', () => {
    for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-24']) {
      for (const s of [400, 403, 404, 499])
        expect(judgeOrigin(a(s), at(v), L)).toEqual({
          outcome: 'passed',
          message: `a foreign Origin got ${s}, a refusal; a loopback Origin got 200 (${OLD(v)})`,
          short: String(s),
          evidence: { foreign: String(s), loopback: '200', loopbackOrigin: L, revision: v },
          spec: SPEC(v),
        });
      for (const e of [hangUp, closedBy('write EPIPE', 'EPIPE')])
        expect(judgeOrigin(e, at(v), L)).toMatchObject({
          outcome: 'passed',
          message: `a foreign Origin got the connection closed (${e.message}), a refusal; a loopback Origin got 200 (${OLD(v)})`,
          short: 'closed',
          spec: SPEC(v),
        });
      for (const s of [200, 299, 300, 399, 500])
        expect(judgeOrigin(a(s), at(v), L)).toMatchObject({
          outcome: 'failed',
          short: `${s} (want a refusal)`,
          step: 'request with a foreign Origin',
          spec: SPEC(v),
        });
      expect(judgeOrigin(a(200), at(v), L).message).toBe(
        `a foreign Origin (http://evil.example) got 200 (want a refusal, a 4xx or a closed connection: the server does not validate Origin (DNS rebinding); ${OLD(v)})`,
      );
      expect(judgeOrigin(a(500), at(v), L).message).toBe(
        `a foreign Origin (http://evil.example) got 500 (want a refusal, a 4xx or a closed connection; ${OLD(v)})`,
      );
    }
  });
  it('a loopback Origin refused too (an error, 199, 300, 403) fails: it refuses every Origin', () => {
    expect(judgeOrigin(a(403), a(403), L)).toEqual({
      outcome: 'failed',
      message: `a foreign Origin got 403, but a loopback Origin (${L}) got 403 too (want 2xx: it refuses every Origin; ${NONE})`,
      short: 'loopback Origin 403',
      step: 'request with a loopback Origin',
      evidence: { foreign: '403', loopback: '403', loopbackOrigin: L, revision: '2025-11-25' },
      spec: SPEC('2025-11-25'),
    });
    expect(judgeOrigin(a(403), reset, L)).toMatchObject({ outcome: 'failed', short: 'loopback Origin no answer (socket hang up)' });
    expect(judgeOrigin(a(403), a(199), L).outcome).toBe('failed');
    expect(judgeOrigin(a(403), a(300), L).outcome).toBe('failed');
    // A refused loopback answer's version is not read: its revision is unknown, so 2025-11-25 judges.
    expect(judgeOrigin(a(400), at('2025-06-18', 403), L)).toMatchObject({ outcome: 'failed', short: '400 (want 403)' });
  });
});

describe('judgeHost', () => {
  it('any 4xx (400, 403, 499) is a refusal, named with its status', () => {
    for (const s of [400, 403, 499])
      expect(judgeHost(a(s), 8080)).toEqual({
        outcome: 'passed',
        message: `Host evil.example:8080 refused with ${s}`,
        short: String(s),
        evidence: { status: s },
      });
  });
  it('399, 500 and 200 are not refusals; no answer fails as no answer', () => {
    for (const s of [200, 399, 500])
      expect(judgeHost(a(s), 8080)).toEqual({
        outcome: 'failed',
        message: `Host evil.example:8080 got ${s} (want a 4xx refusal: the server does not validate Host, so a DNS-rebound page reaches it)`,
        short: `${s} (want 4xx)`,
        step: 'request with a foreign Host',
        evidence: { status: s },
      });
    expect(judgeHost(reset, 8080)).toEqual({
      outcome: 'failed',
      message: 'Host evil.example:8080 got no answer (socket hang up) (want a 4xx refusal)',
      short: 'no answer',
      step: 'request with a foreign Host',
    });
  });
});

describe('a connection closed without an HTTP answer (ECONNRESET, EPIPE)', () => {
  const L = 'http://localhost:7';
  it('is a Host refusal when its own Host is served; not measured when that is refused too; without a control it is no answer', () => {
    const own = { host: '127.0.0.1:8080', answer: a(200) };
    for (const e of [hangUp, closedBy('read ECONNRESET', 'ECONNRESET'), closedBy('write EPIPE', 'EPIPE')])
      expect(judgeHost(e, 8080, own)).toEqual({
        outcome: 'passed',
        message: `Host evil.example:8080: the connection was closed without an HTTP answer (${e.message}), a refusal (a DNS-rebound page reads nothing), while its own Host (127.0.0.1:8080) is served`,
        short: 'closed',
        evidence: { status: 'closed', own: '200' },
      });
    expect(judgeHost(hangUp, 8080, { ...own, answer: a(403) })).toEqual({
      outcome: 'not-measured',
      message:
        "Host evil.example:8080: the connection was closed without an HTTP answer (socket hang up), but initialize with its own Host (127.0.0.1:8080) got 403 too: the refusal is not the Host's, so this could not be judged",
      short: 'not measured',
      evidence: { status: 'closed', own: '403' },
    });
    expect(judgeHost(hangUp, 8080)).toMatchObject({ outcome: 'failed', short: 'no answer' });
    // Nobody listening, or a timeout, is no refusal.
    for (const e of [closedBy('connect ECONNREFUSED 127.0.0.1:8080', 'ECONNREFUSED'), new NoAnswer('no answer within 5 ms')])
      expect(judgeHost(e, 8080, own)).toMatchObject({ outcome: 'failed', short: 'no answer' });
  });
  it('refuses a foreign Origin, but fails it for the 403 MCP 2025-11-25 requires, named as such; every Origin closed fails as refusing all', () => {
    const v25 = a(200, {
      contentType: 'application/json',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } }),
    });
    expect(judgeOrigin(hangUp, v25, L)).toEqual({
      outcome: 'failed',
      message:
        'a foreign Origin (http://evil.example) got no HTTP answer: the connection was closed (socket hang up), which refuses it (a DNS-rebound page reads nothing), but an invalid Origin MUST get 403 Forbidden (judged by MCP 2025-11-25, the revision it negotiated; earlier revisions named no status)',
      short: 'closed (want 403)',
      step: 'request with a foreign Origin',
      evidence: { foreign: 'closed (socket hang up)', loopback: '200', loopbackOrigin: L, revision: '2025-11-25' },
      spec: { revision: 'MCP 2025-11-25', section: 'basic/transports#security-warning' },
    });
    expect(judgeOrigin(hangUp, hangUp, L)).toMatchObject({
      outcome: 'failed',
      message: `a foreign Origin got the connection closed (socket hang up), but a loopback Origin (${L}) got no answer (socket hang up) too (want 2xx: it refuses every Origin; judged by MCP 2025-11-25: no negotiated revision was read)`,
      step: 'request with a loopback Origin',
    });
    expect(judgeOrigin(closedBy('connect ECONNREFUSED x', 'ECONNREFUSED'), a(200), L)).toMatchObject({ short: 'no answer' });
  });
});

describe('judgeProtocolVersion', () => {
  it('passes exactly 400 for the unsupported version and 2xx (200, 299) for the negotiated one', () => {
    expect(judgeProtocolVersion(a(400), a(200), '2025-06-18')).toEqual({
      outcome: 'passed',
      message: '1999-01-01 got 400; the negotiated 2025-06-18 got 200',
      short: '400',
      evidence: { unsupported: '400', negotiated: '200', version: '2025-06-18' },
    });
    expect(judgeProtocolVersion(a(400), a(299), 'v').outcome).toBe('passed');
  });
  it('the unsupported version served (200, 299) says the header is ignored; 199, 300, 401 or no answer are only named', () => {
    expect(judgeProtocolVersion(a(200), a(200), 'v')).toEqual({
      outcome: 'failed',
      message: 'a request with MCP-Protocol-Version 1999-01-01 got 200 (want 400: the header is ignored)',
      short: '200 (want 400)',
      step: 'request with an unsupported protocol version',
      evidence: { unsupported: '200', negotiated: '200', version: 'v' },
    });
    expect(judgeProtocolVersion(a(299), a(200), 'v').message).toMatch(/: the header is ignored\)$/);
    for (const s of [199, 300, 401])
      expect(judgeProtocolVersion(a(s), a(200), 'v')).toMatchObject({
        message: `a request with MCP-Protocol-Version 1999-01-01 got ${s} (want 400)`,
        short: `${s} (want 400)`,
      });
    expect(judgeProtocolVersion(reset, a(200), 'v')).toMatchObject({
      outcome: 'failed',
      message: 'a request with MCP-Protocol-Version 1999-01-01 got no answer (socket hang up) (want 400)',
      short: 'no answer (socket hang up) (want 400)',
    });
  });
  it('the negotiated version refused (199, 300, 400, no answer) fails naming it', () => {
    expect(judgeProtocolVersion(a(400), a(400), '2025-06-18')).toEqual({
      outcome: 'failed',
      message: 'MCP-Protocol-Version 1999-01-01 got 400, but the negotiated 2025-06-18 got 400 too (want 2xx)',
      short: 'negotiated 400',
      step: 'request with the negotiated protocol version',
      evidence: { unsupported: '400', negotiated: '400', version: '2025-06-18' },
    });
    for (const n of [a(199), a(300), reset]) expect(judgeProtocolVersion(a(400), n, 'v').outcome).toBe('failed');
    expect(judgeProtocolVersion(a(400), reset, 'v').short).toBe('negotiated no answer (socket hang up)');
  });
});

describe('judgeSessions', () => {
  const ok = { first: 'abc', second: 'abd', withId: a(200), withoutId: a(400), deleted: a(204), afterDelete: a(404) };
  it('all four pass, with their messages', () => {
    expect(judgeSessions(ok)).toEqual({
      'session-id-visible-ascii': { outcome: 'passed', message: '3 visible ASCII characters', short: 'ok' },
      'session-id-distinct': { outcome: 'passed', message: 'two sessions got different IDs', short: 'ok' },
      'session-required': { outcome: 'passed', message: 'a request without Mcp-Session-Id got 400', short: '400' },
      'session-ended-404': { outcome: 'passed', message: 'after DELETE (204) the ID got 404', short: '404' },
    });
  });
  it('visible ASCII is 0x21 to 0x7E, the whole ID: the bounds pass, a space or DEL anywhere fails', () => {
    expect(judgeSessions({ ...ok, first: '!~' })['session-id-visible-ascii'].outcome).toBe('passed');
    for (const id of [' ab', 'a b', 'ab ', 'ab\x7f', '\x7fab', ''])
      expect(judgeSessions({ ...ok, first: id })['session-id-visible-ascii'], JSON.stringify(id)).toEqual({
        outcome: 'failed',
        message: `the session ID ${JSON.stringify(id)} has characters outside visible ASCII (0x21 to 0x7E)`,
        short: 'not visible ASCII',
        step: 'initialize',
      });
  });
  it('distinct: no second ID, or the same one, fails at the second initialize', () => {
    const { second: _, ...noSecond } = ok;
    expect(judgeSessions(noSecond)['session-id-distinct']).toEqual({
      outcome: 'failed',
      message: 'a second initialize got no Mcp-Session-Id',
      short: 'no second ID',
      step: 'second initialize',
    });
    expect(judgeSessions({ ...ok, second: 'abc' })['session-id-distinct']).toEqual({
      outcome: 'failed',
      message: 'two sessions got the same Mcp-Session-Id',
      short: 'same ID',
      step: 'second initialize',
    });
  });
  it('distinct: a refused second initialize fails, naming the refusal, even when it carries a new Mcp-Session-Id', () => {
    // A 4xx opened no session: an ID on it proves nothing (it used to pass as "two sessions got different IDs").
    expect(judgeSessions({ ...ok, second: 'abd', secondRefused: '400' })['session-id-distinct']).toEqual({
      outcome: 'failed',
      message: 'a second initialize (while the first session was open) got 400 (want 2xx with a new Mcp-Session-Id)',
      short: '400',
      step: 'second initialize',
    });
  });
  it('specChecks: a refused second initialize carrying an Mcp-Session-Id is judged by its refusal, not by the ID', async () => {
    let inits = 0;
    const { send } = scripted((q) => {
      if ((q.body as { method?: string } | undefined)?.method !== 'initialize' || q.headers.origin || q.headers.host || q.path)
        return undefined;
      // The first initialize opens s-first; the second is refused with 400 yet names a fresh ID.
      return ++inits === 1
        ? a(200, {
            sessionId: 's-first',
            contentType: 'application/json',
            body: '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}',
          })
        : a(400, { sessionId: 's-refused' });
    });
    const r = await specChecks({ ...INPUT, levels: { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' } }, send);
    expect(r.find((c) => c.id === 'session-id-distinct')).toMatchObject({
      outcome: 'failed',
      message: 'a second initialize (while the first session was open) got 400 (want 2xx with a new Mcp-Session-Id)',
    });
  });
  it('required: only 400 passes; 401, 200 or no answer fail naming what came', () => {
    for (const [w, seen] of [
      [a(401), '401'],
      [a(200), '200'],
      [reset, 'no answer (socket hang up)'],
    ] as const)
      expect(judgeSessions({ ...ok, withoutId: w })['session-required']).toEqual({
        outcome: 'failed',
        message: `a request (ping) without Mcp-Session-Id got ${seen} (want 400)`,
        short: `${seen} (want 400)`,
        step: 'request without a session ID',
      });
  });
  it('required: the same request with its session is the control; refused too (400, 401, no answer), nothing was judged', () => {
    for (const [withId, seen] of [
      [a(400), '400'],
      [a(401), '401'],
      [reset, 'no answer (socket hang up)'],
    ] as const) {
      expect(judgeSessions({ ...ok, withId })['session-required']).toEqual({
        outcome: 'not-measured',
        message: `a request (ping) without Mcp-Session-Id got 400, but the same request with its session got ${seen} too: the refusal is not the missing ID's, so this could not be judged`,
        short: 'not measured',
        evidence: { withoutId: '400', withId: seen },
      });
      // Refused without the ID with another status, or not answered: not judged either.
      expect(judgeSessions({ ...ok, withId, withoutId: a(404) })['session-required'].outcome).toBe('not-measured');
      expect(judgeSessions({ ...ok, withId, withoutId: reset })['session-required'].outcome).toBe('not-measured');
      // Served without the ID fails whatever the control got.
      expect(judgeSessions({ ...ok, withId, withoutId: a(200) })['session-required'].outcome).toBe('failed');
    }
    expect(judgeSessions({ ...ok, withId: a(299) })['session-required'].outcome).toBe('passed');
  });
  it('ended: DELETE 405 is skipped; DELETE not 2xx (199, 300, 500, no answer) fails; 200 and 299 go on', () => {
    expect(judgeSessions({ ...ok, deleted: a(405) })['session-ended-404']).toEqual({
      outcome: 'skipped',
      message: 'the server does not let a client end its session (DELETE got 405)',
      short: 'DELETE 405',
    });
    for (const [d, seen] of [
      [a(199), '199'],
      [a(300), '300'],
      [a(500), '500'],
      [reset, 'no answer (socket hang up)'],
    ] as const)
      expect(judgeSessions({ ...ok, deleted: d })['session-ended-404']).toEqual({
        outcome: 'failed',
        message: `DELETE of the session got ${seen} (want 2xx, or 405 when clients may not end sessions)`,
        short: `DELETE ${seen}`,
        step: 'session DELETE',
      });
    expect(judgeSessions({ ...ok, deleted: a(200) })['session-ended-404'].message).toBe('after DELETE (200) the ID got 404');
    expect(judgeSessions({ ...ok, deleted: a(299) })['session-ended-404'].outcome).toBe('passed');
  });
  it('ended: after DELETE only 404 passes; a 2xx (200, 299) says the session is still valid; 400, 300, 199, no answer are only named', () => {
    expect(judgeSessions({ ...ok, afterDelete: a(200) })['session-ended-404']).toEqual({
      outcome: 'failed',
      message: "after DELETE (204) a request with the ended session's ID got 200 (want 404: the session is still valid)",
      short: '200 (want 404)',
      step: 'request after session DELETE',
    });
    expect(judgeSessions({ ...ok, afterDelete: a(299) })['session-ended-404'].message).toMatch(/still valid\)$/);
    for (const [x, seen] of [
      [a(400), '400'],
      [a(300), '300'],
      [a(199), '199'],
      [reset, 'no answer (socket hang up)'],
    ] as const)
      expect(judgeSessions({ ...ok, afterDelete: x })['session-ended-404']).toMatchObject({
        outcome: 'failed',
        message: `after DELETE (204) a request with the ended session's ID got ${seen} (want 404)`,
        short: `${seen} (want 404)`,
      });
  });
  it('no first ID: all four skipped, saying the server has no sessions', () => {
    const none = { outcome: 'skipped', message: 'the server issued no Mcp-Session-Id (no sessions)', short: 'no sessions' };
    expect(judgeSessions({ withId: reset, withoutId: a(200), deleted: reset, afterDelete: reset })).toEqual({
      'session-id-visible-ascii': none,
      'session-id-distinct': none,
      'session-required': none,
      'session-ended-404': none,
    });
  });
});

describe('judgeQueryToken', () => {
  it('judged only when the no-token request got a 4xx (400 and 499 are; 399, 500 and none are not)', () => {
    const skipped = {
      outcome: 'skipped',
      message: 'not judged: a request without any token was not refused (see no-token-401)',
      short: 'n/a',
    };
    for (const anon of [undefined, 200, 399, 500]) expect(judgeQueryToken(a(200), anon)).toEqual(skipped);
    expect(judgeQueryToken(a(200), 400).outcome).toBe('failed');
    expect(judgeQueryToken(a(200), 499).outcome).toBe('failed');
  });
  it('401 passes whatever the no-token status; so does the no-token status itself', () => {
    expect(judgeQueryToken(a(401), 403)).toEqual({
      outcome: 'passed',
      message: 'the token in the query string got 401, as a request without a token does',
      short: '401',
    });
    expect(judgeQueryToken(a(403), 403)).toMatchObject({ outcome: 'passed', short: '403' });
  });
  it('anything else fails: a 2xx (200, 299) names the token in the URI as accepted; 300, 403 or no answer are only named', () => {
    expect(judgeQueryToken(a(200), 401)).toEqual({
      outcome: 'failed',
      message:
        'the right token in the query string (?access_token=…) without an Authorization header got 200 (want 401: a token in the URI is accepted)',
      short: '200 (want 401)',
      step: 'request with the token in the query string',
    });
    expect(judgeQueryToken(a(299), 401).message).toMatch(/is accepted\)$/);
    for (const [x, seen] of [
      [a(300), '300'],
      [a(199), '199'],
      [a(403), '403'],
      [reset, 'no answer (socket hang up)'],
    ] as const)
      expect(judgeQueryToken(x, 401)).toEqual({
        outcome: 'failed',
        message: `the right token in the query string (?access_token=…) without an Authorization header got ${seen} (want 401)`,
        short: `${seen} (want 401)`,
        step: 'request with the token in the query string',
      });
  });
});

/** A scripted stateful server: what a conforming one answers, with `over` changing one answer. */
function scripted(over: (req: RawRequest, n: number) => Sent | undefined = () => undefined) {
  const sent: RawRequest[] = [];
  const deleted = new Set<string>();
  let sessions = 0;
  const send: Send = async (req) => {
    sent.push(req);
    const changed = over(req, sent.length);
    if (changed) return changed;
    const method = (req.body as { method?: string } | undefined)?.method;
    const h = req.headers;
    if (req.method === 'DELETE') {
      deleted.add(h['mcp-session-id']!);
      return a(200);
    }
    if (method === 'initialize') {
      if (h.origin === 'http://evil.example' || h.host?.startsWith('evil.example')) return a(403);
      if (req.path?.includes('access_token')) return a(401);
      const result = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18' } });
      return a(200, { sessionId: `s${++sessions}`, contentType: 'application/json', body: result });
    }
    if (method === 'notifications/initialized') return a(202);
    const sid = h['mcp-session-id'];
    if (!sid) return a(400);
    if (deleted.has(sid)) return a(404);
    if (h['mcp-protocol-version'] === '1999-01-01') return a(400);
    return a(200);
  };
  return { sent, send };
}

/** Every spec check at require (the levels arrive resolved: the checks read them as given). */
const REQUIRED = Object.fromEntries(SPEC_CHECK_IDS.map((id) => [id, 'require' as const]));
const INPUT: SpecCheckInput = {
  url: 'http://127.0.0.1:5555/mcp',
  port: 5555,
  authorization: 'Bearer tok',
  token: 'tok',
  anonymousStatus: 401,
  timeoutMs: 1000,
  levels: REQUIRED,
};
const JSON_H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const AUTH_H = { ...JSON_H, authorization: 'Bearer tok' };
/** Every initialize of the checks offers the client's revision; without one, LATEST_OFFER (2025-11-25). */
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-matrix-driver', version: '0.1.0' } },
};
const PING = { jsonrpc: '2.0', id: 2, method: 'ping' };
/** Runs the body against a real server listening on loopback, closed after it. */
async function onLoopback(server: Server, body: (port: number) => Promise<void>): Promise<void> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await body((server.address() as AddressInfo).port);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
}
/** Every spec check off but the named ones. */
const only = (levels: Record<string, CheckLevel>): Record<string, CheckLevel> =>
  Object.fromEntries(SPEC_CHECK_IDS.map((id) => [id, levels[id] ?? 'off']));
const outcomes = (r: { id: string; outcome: string; level: string }[]): Record<string, string> =>
  Object.fromEntries(r.map((c) => [c.id, `${c.outcome}/${c.level}`]));

describe('specChecks on a scripted server', () => {
  it('a conforming stateful server passes every check, in report order, at require by default; the requests are exactly these', async () => {
    const { sent, send } = scripted();
    const r = await specChecks(INPUT, send);
    expect(r.map((c) => c.id)).toEqual(SPEC_CHECK_IDS);
    expect(SPEC_CHECK_IDS).toEqual([
      'token-in-header',
      'origin',
      'host',
      'protocol-version',
      'session-id-visible-ascii',
      'session-id-distinct',
      'session-required',
      'session-ended-404',
    ]);
    expect(r.every((c) => c.outcome === 'passed' && c.level === 'require')).toBe(true);
    // Offered 2025-11-25, it negotiated 2025-06-18: judged by that revision, where any refusal is one.
    expect(r.find((c) => c.id === 'origin')).toMatchObject({
      message:
        'a foreign Origin got 403, a refusal; a loopback Origin got 200 (judged by MCP 2025-06-18, the revision it negotiated, which names no status)',
      spec: { revision: 'MCP 2025-06-18', section: 'basic/transports#security-warning' },
    });
    expect(r.find((c) => c.id === 'protocol-version')!.message).toBe('1999-01-01 got 400; the negotiated 2025-06-18 got 200');
    const v = { 'mcp-protocol-version': '2025-06-18' };
    expect(sent).toStrictEqual([
      // Every initialize offers the client's revision: the answer says which revision (and rule) judges.
      { method: 'POST', headers: { ...AUTH_H, origin: 'http://evil.example' }, body: INIT },
      { method: 'POST', headers: { ...AUTH_H, origin: 'http://localhost:5555' }, body: INIT },
      { method: 'POST', headers: { ...AUTH_H, host: 'evil.example:5555' }, body: INIT },
      { method: 'POST', headers: JSON_H, body: INIT, path: '/mcp?access_token=tok' },
      { method: 'POST', headers: AUTH_H, body: INIT },
      {
        method: 'POST',
        headers: { ...AUTH_H, 'mcp-session-id': 's2', ...v },
        body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      },
      { method: 'POST', headers: { ...AUTH_H, 'mcp-session-id': 's2', 'mcp-protocol-version': '1999-01-01' }, body: PING },
      { method: 'POST', headers: { ...AUTH_H, 'mcp-session-id': 's2', ...v }, body: PING },
      { method: 'POST', headers: AUTH_H, body: INIT },
      { method: 'POST', headers: { ...AUTH_H, ...v }, body: PING },
      { method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's2', ...v } },
      { method: 'POST', headers: { ...AUTH_H, 'mcp-session-id': 's2', ...v }, body: PING },
      // The clean-up: the loopback Origin's session and the second one; s2 was ended by the check itself.
      { method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's1' } },
      { method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's3' } },
    ]);
  });

  it("every initialize offers the client's revision, and the first revision a served initialize names is reported once", async () => {
    const { sent, send } = scripted();
    const named: string[] = [];
    await specChecks({ ...INPUT, offer: '2025-03-26', onNegotiated: (v) => void named.push(v) }, send);
    const inits = sent.filter((q) => (q.body as { method?: string } | undefined)?.method === 'initialize');
    expect(inits.length).toBeGreaterThan(3);
    for (const q of inits) expect((q.body as typeof INIT).params.protocolVersion).toBe('2025-03-26');
    // The script answers 2025-06-18 to every served initialize: reported once, from the first (the loopback Origin's).
    expect(named).toEqual(['2025-06-18']);
    // A refused initialize names no revision.
    const refused = scripted((q) => ((q.body as { method?: string } | undefined)?.method === 'initialize' ? a(403) : undefined));
    const none: string[] = [];
    await specChecks({ ...INPUT, onNegotiated: (v) => void none.push(v) }, refused.send);
    expect(none).toEqual([]);
  });

  it('the query-string token keeps the URL query and its path; without authorization no header is sent, and token-in-header is skipped without a token', async () => {
    const { sent, send } = scripted();
    const r = await specChecks(
      { ...INPUT, url: 'http://127.0.0.1:5555/x/mcp?tenant=a', levels: { ...REQUIRED, origin: 'off', host: 'off' } },
      send,
    );
    expect(sent[0]).toStrictEqual({ method: 'POST', headers: JSON_H, body: INIT, path: '/x/mcp?tenant=a&access_token=tok' });
    expect(outcomes(r)['token-in-header']).toBe('passed/require');

    const open = scripted();
    const { authorization: _a, token: _t, ...none } = INPUT;
    const r2 = await specChecks({ ...none, levels: { ...REQUIRED, origin: 'off', host: 'off' } }, open.send);
    expect(r2.find((c) => c.id === 'token-in-header')).toMatchObject({
      outcome: 'skipped',
      message: 'no token (auth none)',
      short: 'no auth',
    });
    expect(open.sent[0]).toStrictEqual({ method: 'POST', headers: JSON_H, body: INIT });
    expect(open.sent.every((q) => !('authorization' in q.headers))).toBe(true);
    expect(open.sent.filter((q) => 'path' in q)).toEqual([]);
  });

  it('a check set to off sends nothing for it and is recorded skipped/off; a level is reported as configured', async () => {
    const { sent, send } = scripted();
    const levels: Record<string, CheckLevel> = {
      ...REQUIRED,
      origin: 'off',
      host: 'warn',
      'token-in-header': 'off',
      'protocol-version': 'off',
      'session-id-visible-ascii': 'off',
      'session-id-distinct': 'off',
      'session-required': 'off',
      'session-ended-404': 'off',
    };
    const r = await specChecks({ ...INPUT, levels }, send);
    // The foreign Host's refusal, then its control (initialize with the own Host), whose session is cleaned up.
    expect(sent).toStrictEqual([
      { method: 'POST', headers: { ...AUTH_H, host: 'evil.example:5555' }, body: INIT },
      { method: 'POST', headers: AUTH_H, body: INIT },
      { method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's1' } },
    ]);
    expect(outcomes(r)).toEqual({
      'token-in-header': 'skipped/off',
      origin: 'skipped/off',
      host: 'passed/warn',
      'protocol-version': 'skipped/off',
      'session-id-visible-ascii': 'skipped/off',
      'session-id-distinct': 'skipped/off',
      'session-required': 'skipped/off',
      'session-ended-404': 'skipped/off',
    });
    expect(r.find((c) => c.id === 'origin')!.message).toBe('off in the config (not run)');
  });

  it('one session check on is enough to initialize and run the session requests; protocol-version off sends no bogus version', async () => {
    const { sent, send } = scripted();
    const off: Record<string, CheckLevel> = { origin: 'off', host: 'off', 'token-in-header': 'off', 'protocol-version': 'off' };
    for (const on of ['session-id-visible-ascii', 'session-id-distinct', 'session-required', 'session-ended-404']) {
      sent.length = 0;
      const levels = Object.fromEntries(
        ['session-id-visible-ascii', 'session-id-distinct', 'session-required', 'session-ended-404'].map((id) => [
          id,
          id === on ? 'warn' : 'off',
        ]),
      ) as Record<string, CheckLevel>;
      const r = await specChecks({ ...INPUT, levels: { ...off, ...levels } }, send);
      expect(outcomes(r)[on], on).toBe('passed/warn');
      expect(sent.some((q) => q.headers['mcp-protocol-version'] === '1999-01-01')).toBe(false);
      expect(sent.filter((q) => q.method === 'DELETE').length).toBe(2);
    }
  });

  it('protocol-version alone: no second initialize, no ping without a session, no DELETE of the session but the clean-up', async () => {
    const { sent, send } = scripted();
    const levels: Record<string, CheckLevel> = {
      ...REQUIRED,
      origin: 'off',
      host: 'off',
      'token-in-header': 'off',
      'session-id-visible-ascii': 'off',
      'session-id-distinct': 'off',
      'session-required': 'off',
      'session-ended-404': 'off',
    };
    const r = await specChecks({ ...INPUT, levels }, send);
    expect(outcomes(r)['protocol-version']).toBe('passed/require');
    expect(sent.map((q) => `${q.method} ${(q.body as { method?: string } | undefined)?.method ?? ''}`)).toEqual([
      'POST initialize',
      'POST notifications/initialized',
      'POST ping',
      'POST ping',
      'DELETE ',
    ]);
    expect(sent.at(-1)).toStrictEqual({ method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's1' } });
  });

  it('initialize refused or unanswered: protocol-version and the session checks are not measured, saying why', async () => {
    const levels: Record<string, CheckLevel> = { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' };
    for (const [answer, seen] of [
      [a(500), '500'],
      [a(199), '199'],
      [a(300), '300'],
      [reset, 'no answer (socket hang up)'],
    ] as const) {
      const { sent, send } = scripted((q) => ((q.body as { method?: string })?.method === 'initialize' ? answer : undefined));
      const r = await specChecks({ ...INPUT, levels }, send);
      expect(sent.length).toBe(1);
      const measured = r.filter((c) => c.id === 'protocol-version' || c.id.startsWith('session-'));
      expect(measured.length).toBe(5);
      for (const c of measured)
        expect(c).toMatchObject({
          outcome: 'not-measured',
          message: `initialize with the right credentials got ${seen}, so this could not be judged (the round trip says why)`,
          short: 'not measured',
        });
    }
  });

  it('a server that gives no negotiated version is spoken to in the revision offered; one at 2xx other than 200 is measured', async () => {
    const { sent, send } = scripted((q) =>
      (q.body as { method?: string })?.method === 'initialize' ? a(299, { sessionId: 'only', body: 'not json' }) : undefined,
    );
    const levels: Record<string, CheckLevel> = { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' };
    const r = await specChecks({ ...INPUT, levels }, send);
    expect(sent[1]!.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(r.find((c) => c.id === 'protocol-version')).toMatchObject({
      outcome: 'passed',
      message: '1999-01-01 got 400; the negotiated 2025-11-25 got 200',
    });
    // Both initializes got the same ID: not distinct.
    expect(r.find((c) => c.id === 'session-id-distinct')!.message).toBe('two sessions got the same Mcp-Session-Id');
  });

  it('a stateless server (no session ID): the session checks are skipped; no second initialize, and no DELETE but the clean-up', async () => {
    const { sent, send } = scripted((q) => {
      const m = (q.body as { method?: string } | undefined)?.method;
      if (m === 'initialize' && !q.headers.origin && !q.headers.host && !q.path) return a(200, { body: '' });
      if (m === 'ping') return a(200);
      return undefined;
    });
    const r = await specChecks(INPUT, send);
    expect(outcomes(r)).toMatchObject({
      'protocol-version': 'failed/require',
      'session-id-visible-ascii': 'skipped/require',
      'session-ended-404': 'skipped/require',
    });
    const afterInit = sent.slice(4);
    expect(afterInit.map((q) => `${q.method} ${(q.body as { method?: string } | undefined)?.method ?? ''}`)).toEqual([
      'POST initialize',
      'POST notifications/initialized',
      'POST ping',
      'POST ping',
      'POST ping',
      'DELETE ',
    ]);
    expect(afterInit[1]!.headers).toStrictEqual({ ...AUTH_H, 'mcp-protocol-version': '2025-11-25' });
    // Only the loopback Origin's session (s1 from the script) is closed.
    expect(sent.filter((q) => q.method === 'DELETE')).toStrictEqual([
      { method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's1' } },
    ]);
  });

  it('an empty Mcp-Session-Id is no session: the checks are skipped and nothing is closed; an empty second one is no second ID', async () => {
    const empty = scripted((q) =>
      (q.body as { method?: string } | undefined)?.method === 'initialize' ? a(200, { sessionId: '' }) : undefined,
    );
    const levels: Record<string, CheckLevel> = {
      ...REQUIRED,
      origin: 'off',
      host: 'off',
      'token-in-header': 'off',
      'protocol-version': 'off',
    };
    const r = await specChecks({ ...INPUT, levels }, empty.send);
    expect(outcomes(r)).toMatchObject({ 'session-id-visible-ascii': 'skipped/require', 'session-id-distinct': 'skipped/require' });
    expect(empty.sent.filter((q) => q.method === 'DELETE')).toEqual([]);

    let inits = 0;
    const second = scripted((q) => {
      if ((q.body as { method?: string } | undefined)?.method !== 'initialize') return undefined;
      inits += 1;
      return inits === 2 ? a(200, { sessionId: '' }) : undefined;
    });
    const r2 = await specChecks({ ...INPUT, levels }, second.send);
    expect(r2.find((c) => c.id === 'session-id-distinct')!.message).toBe('a second initialize got no Mcp-Session-Id');
  });

  it('a second initialize without an ID fails distinct; one refused is not kept for the clean-up', async () => {
    let inits = 0;
    const { sent, send } = scripted((q) => {
      if ((q.body as { method?: string } | undefined)?.method !== 'initialize') return undefined;
      inits += 1;
      return inits === 2 ? a(200) : undefined;
    });
    const r = await specChecks({ ...INPUT, levels: { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' } }, send);
    expect(r.find((c) => c.id === 'session-id-distinct')!.message).toBe('a second initialize got no Mcp-Session-Id');
    expect(sent.filter((q) => q.method === 'DELETE').map((q) => q.headers['mcp-session-id'])).toEqual(['s1']);

    const errs = scripted((q) => {
      if ((q.body as { method?: string } | undefined)?.method !== 'initialize') return undefined;
      // Every loopback Origin (localhost, and the URL's own 127.0.0.1) reset: no answer to either.
      return q.headers.origin === 'http://localhost:5555' || q.headers.origin === 'http://127.0.0.1:5555' ? reset : undefined;
    });
    const r2 = await specChecks({ ...INPUT, levels: { ...REQUIRED, host: 'off', 'token-in-header': 'off' } }, errs.send);
    expect(r2.find((c) => c.id === 'origin')).toMatchObject({ outcome: 'failed', short: 'loopback Origin no answer (socket hang up)' });
    // s1 ended by its check; s2 (the second initialize) cleaned up.
    expect(errs.sent.filter((q) => q.method === 'DELETE').map((q) => q.headers['mcp-session-id'])).toEqual(['s1', 's2']);
  });

  it('a session whose DELETE fails (500, 405, or no answer) is still closed by the clean-up', async () => {
    for (const answer of [a(500), a(405), reset, a(300)]) {
      let deletes = 0;
      const { sent, send } = scripted((q) => (q.method === 'DELETE' && ++deletes === 1 ? answer : undefined));
      await specChecks({ ...INPUT, levels: { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' } }, send);
      expect(sent.filter((q) => q.method === 'DELETE').map((q) => q.headers['mcp-session-id'])).toEqual(['s1', 's1', 's2']);
    }
  });

  it('a DELETE at 2xx other than 200 ends the session: the clean-up does not close it again', async () => {
    const { sent, send } = scripted((q) => (q.method === 'DELETE' ? a(299) : undefined));
    await specChecks({ ...INPUT, levels: { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' } }, send);
    expect(sent.filter((q) => q.method === 'DELETE').map((q) => q.headers['mcp-session-id'])).toEqual(['s1', 's2']);
  });

  it('a sender that throws: every session opened so far is closed before the error goes on', async () => {
    const { sent, send } = scripted((q) => {
      if ((q.body as { method?: string } | undefined)?.method === 'ping') throw new Error('sender broke');
      return undefined;
    });
    await expect(
      specChecks({ ...INPUT, levels: { ...REQUIRED, origin: 'off', host: 'off', 'token-in-header': 'off' } }, send),
    ).rejects.toThrow('sender broke');
    expect(sent.filter((q) => q.method === 'DELETE')).toStrictEqual([
      { method: 'DELETE', headers: { authorization: 'Bearer tok', 'mcp-session-id': 's1' } },
    ]);
  });

  it('a server that exits: the check under way fails naming it (under, or before when nobody listened), the rest are not run, nothing is cleaned up', async () => {
    let gone = false;
    const { sent, send } = scripted((req) => {
      if (gone) return closedBy('connect ECONNREFUSED 127.0.0.1:5555', 'ECONNREFUSED');
      // It exits under the ping without a session ID.
      if ((req.body as { method?: string } | undefined)?.method === 'ping' && !req.headers['mcp-session-id']) {
        gone = true;
        return hangUp;
      }
      return undefined;
    });
    const r = await specChecks({ ...INPUT, exited: () => Promise.resolve(gone ? 'code 9' : null) }, send);
    expect(outcomes(r)).toEqual({
      'token-in-header': 'passed/require',
      origin: 'passed/require',
      // Refused (403) and its control (the session checks' initialize) served: judged although the server is gone.
      host: 'passed/require',
      'protocol-version': 'passed/require',
      'session-id-visible-ascii': 'skipped/require',
      'session-id-distinct': 'skipped/require',
      'session-required': 'failed/require',
      'session-ended-404': 'skipped/require',
    });
    expect(r.find((c) => c.id === 'session-required')).toMatchObject({
      message: 'the server exited (code 9) under the request without a session ID (see its stderr)',
      short: 'server exited',
      step: 'request without a session ID',
      evidence: { exited: 'code 9' },
    });
    expect(r.find((c) => c.id === 'session-ended-404')).toMatchObject({
      message: 'not run: the server exited (code 9) during session-required',
      short: 'not run',
    });
    // The ping without the ID was the last request: no DELETE, no clean-up of a server that is gone.
    expect(sent.at(-1)!.headers['mcp-session-id']).toBeUndefined();
    expect(sent.filter((q) => q.method === 'DELETE')).toEqual([]);

    // Gone before the first request: the first check on names it as before its request.
    const dead = scripted(() => closedBy('connect ECONNREFUSED 127.0.0.1:5555', 'ECONNREFUSED'));
    const r2 = await specChecks({ ...INPUT, exited: () => Promise.resolve('signal SIGKILL') }, dead.send);
    expect(r2.find((c) => c.id === 'origin')).toMatchObject({
      outcome: 'failed',
      message: 'the server exited (signal SIGKILL) before the request with a foreign Origin (see its stderr)',
    });
    expect(r2.filter((c) => c.outcome === 'skipped').map((c) => c.message)).toEqual(
      Array(7).fill('not run: the server exited (signal SIGKILL) during origin'),
    );
    expect(dead.sent).toHaveLength(1);
  });

  it('no answer from a server still running is judged as before: the exit is asked for, and null goes on', async () => {
    let asked = 0;
    const { send } = scripted((req) => ((req.headers.origin ?? '') === 'http://evil.example' ? hangUp : undefined));
    const r = await specChecks({ ...INPUT, exited: () => (asked++, Promise.resolve(null)) }, send);
    expect(asked).toBe(1);
    // It negotiated 2025-06-18: the closed connection is a refusal.
    expect(r.find((c) => c.id === 'origin')).toMatchObject({ outcome: 'passed', short: 'closed' });
    expect(r.filter((c) => c.id !== 'origin').every((c) => c.outcome === 'passed')).toBe(true);
  });

  it('the query-string token is judged against the no-token status given', async () => {
    const { send } = scripted((q) => (q.path ? a(200) : undefined));
    const r = await specChecks({ ...INPUT, levels: { ...REQUIRED, origin: 'off', host: 'off' } }, send);
    expect(r.find((c) => c.id === 'token-in-header')).toMatchObject({ outcome: 'failed', short: '200 (want 401)' });
    const served = scripted((q) => (q.path ? a(200) : undefined));
    const { anonymousStatus: _, ...noAnon } = INPUT;
    const r2 = await specChecks({ ...noAnon, levels: { ...REQUIRED, origin: 'off', host: 'off' } }, served.send);
    expect(r2.find((c) => c.id === 'token-in-header')!.outcome).toBe('skipped');
  });
});

describe('specChecks on a real loopback server that serves only its own Origin', () => {
  // Origin must be the origin of the Host it was reached at (http://127.0.0.1:PORT): a policy that refuses
  // the foreign Origin and serves the loopback page of its own address. Not "refuses every Origin".
  it('origin passes with its own address as the loopback Origin; the refused localhost one is not the verdict', async () => {
    const origins: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        origins.push(req.headers.origin);
        if (req.method === 'DELETE') return res.writeHead(200).end();
        if (req.headers.origin !== undefined && req.headers.origin !== `http://${req.headers.host}`) return res.writeHead(403).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: {} } }));
      });
    });
    await onLoopback(server, async (port) => {
      const levels = only({ origin: 'require' });
      const r = await specChecks({ url: `http://127.0.0.1:${port}/mcp`, port, timeoutMs: 5000, levels });
      expect(r.find((c) => c.id === 'origin')).toMatchObject({
        outcome: 'passed',
        message:
          'a foreign Origin got 403, a refusal; a loopback Origin got 200 (judged by MCP 2025-03-26, the revision it negotiated, which names no status)',
        evidence: { foreign: '403', loopback: '200', loopbackOrigin: `http://127.0.0.1:${port}`, revision: '2025-03-26' },
      });
      expect(origins).toEqual(['http://evil.example', `http://localhost:${port}`, `http://127.0.0.1:${port}`]);
    });
  });

  it('refusing both loopback Origins still fails, naming both', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.headers.origin ? 403 : 200).end());
    });
    await onLoopback(server, async (port) => {
      const levels = only({ origin: 'require' });
      const r = await specChecks({ url: `http://127.0.0.1:${port}/mcp`, port, timeoutMs: 5000, levels });
      expect(r.find((c) => c.id === 'origin')).toMatchObject({
        outcome: 'failed',
        message: `a foreign Origin got 403, but a loopback Origin (http://localhost:${port} or http://127.0.0.1:${port}) got 403 too (want 2xx: it refuses every Origin; judged by MCP 2025-11-25: no negotiated revision was read)`,
        step: 'request with a loopback Origin',
      });
    });
  });
});

describe('specChecks on a real loopback server that refuses every initialize', () => {
  // A 4xx to a foreign Host proves nothing when initialize with its own Host is refused the same: not a pass.
  it('host is not measured, naming the refusal its own Host got too; a server that serves its own Host passes', async () => {
    let refuseAll = true;
    let onlyLocalhost = false;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'DELETE') return res.writeHead(200).end();
        if (refuseAll || req.headers.host?.startsWith('evil.example')) return res.writeHead(400).end();
        if (onlyLocalhost && !req.headers.host?.startsWith('localhost:')) return res.writeHead(400).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: {} } }));
      });
    });
    await onLoopback(server, async (port) => {
      const levels = only({ host: 'require' });
      const input = { url: `http://127.0.0.1:${port}/mcp`, port, timeoutMs: 5000, levels };
      expect((await specChecks(input)).find((c) => c.id === 'host')).toMatchObject({
        outcome: 'not-measured',
        message: `Host evil.example:${port} got 400, but initialize with its own Host (127.0.0.1:${port}) got 400 too: the refusal is not the Host's, so this could not be judged`,
      });
      refuseAll = false;
      expect((await specChecks(input)).find((c) => c.id === 'host')).toMatchObject({
        outcome: 'passed',
        message: `Host evil.example:${port} refused with 400`,
      });
      // A Host allowlist of localhost:PORT only refuses the URL's own 127.0.0.1:PORT too, yet validates Host: a pass.
      onlyLocalhost = true;
      expect((await specChecks(input)).find((c) => c.id === 'host')).toMatchObject({
        outcome: 'passed',
        message: `Host evil.example:${port} refused with 400`,
      });
    });
  });
});

describe('specChecks on a real loopback server that refuses every request after initialize', () => {
  // Sessions are issued, and every later request is refused with 400, with its session or without: a 400 to the
  // request without Mcp-Session-Id is not the missing ID's refusal. It passed session-required when protocol-version
  // (whose negotiated ping was the only request sent with the session) was off, and even with it on.
  it('session-required is not measured, naming the refusal the same request with its session got, whatever protocol-version is', async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method === 'DELETE') return res.writeHead(200).end();
        if ((JSON.parse(body || '{}') as { method?: string }).method !== 'initialize') return res.writeHead(400).end('bad request');
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': `s-${Math.random()}` });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: {} } }));
      });
    });
    await onLoopback(server, async (port) => {
      for (const version of ['off', 'warn'] as const) {
        const levels = only({ 'session-required': 'warn', 'protocol-version': version });
        const r = await specChecks({ url: `http://127.0.0.1:${port}/mcp`, port, timeoutMs: 5000, levels });
        expect(
          r.find((c) => c.id === 'session-required'),
          version,
        ).toMatchObject({
          outcome: 'not-measured',
          message:
            "a request (ping) without Mcp-Session-Id got 400, but the same request with its session got 400 too: the refusal is not the missing ID's, so this could not be judged",
        });
      }
    });
  });
});

describe('specChecks on a real loopback server that serves one session at a time', () => {
  // A second initialize refused (503) is named as refused, not as "no Mcp-Session-Id" from a served one.
  it('session-id-distinct names the refusal of the second initialize', async () => {
    let open = 0;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method === 'DELETE') {
          open = 0;
          return res.writeHead(200).end();
        }
        const method = (JSON.parse(body || '{}') as { method?: string }).method;
        if (method === 'initialize') {
          if (open) return res.writeHead(503).end();
          open = 1;
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'only-one' });
          return res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: {} } }));
        }
        if (!req.headers['mcp-session-id']) return res.writeHead(400).end();
        res.writeHead(method === 'notifications/initialized' ? 202 : 200, { 'content-type': 'application/json' });
        res.end(method === 'notifications/initialized' ? '' : JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} }));
      });
    });
    await onLoopback(server, async (port) => {
      const levels = only({ 'session-id-distinct': 'warn' });
      const r = await specChecks({ url: `http://127.0.0.1:${port}/mcp`, port, timeoutMs: 5000, levels });
      expect(r.find((c) => c.id === 'session-id-distinct')).toMatchObject({
        outcome: 'failed',
        message: 'a second initialize (while the first session was open) got 503 (want 2xx with a new Mcp-Session-Id)',
        short: '503',
        step: 'second initialize',
      });
    });
  });
});

// Which check and which request an exit is named under, for every request the checks send (each `at(…)` label), and
// what the foreign Host's answer still gives once the server is gone (docs/testing.md, spec-checks.ts rescored).
describe('specChecks: a server that exits under each request in turn', () => {
  /** The scripted server, gone under request `at` (a reset), nobody listening after it. */
  function exitingAt(at: number, over: (req: RawRequest) => RawAnswer | undefined = () => undefined) {
    let gone = false;
    const s = scripted((req, n) => {
      if (gone) return closedBy('connect ECONNREFUSED 127.0.0.1:5555', 'ECONNREFUSED');
      if (n === at) {
        gone = true;
        return hangUp;
      }
      return over(req);
    });
    return { ...s, exited: () => Promise.resolve(gone ? 'code 9' : null) };
  }
  const failedUnder = (r: SubCheckResult[]) => r.filter((c) => c.outcome === 'failed').map((c) => [c.id, c.step, c.message]);
  const under = (id: string, step: string) => [[id, step, `the server exited (code 9) under the ${step} (see its stderr)`]];

  const ALL_ON: [number, string, string, string][] = [
    // request, the check under way, its request, what host is then
    [1, 'origin', 'request with a foreign Origin', 'skipped'],
    [2, 'origin', 'request with a loopback Origin', 'skipped'],
    [3, 'host', 'request with a foreign Host', 'failed'],
    // Refused (403), but its control (the first initialize) never answered: not judged.
    [4, 'token-in-header', 'request with the token in the query string', 'skipped'],
    [5, 'protocol-version', 'initialize', 'skipped'],
    // From here the control was served: the refusal is judged.
    [6, 'protocol-version', 'notifications/initialized', 'passed'],
    [7, 'protocol-version', 'request with an unsupported protocol version', 'passed'],
    [8, 'protocol-version', 'request with the negotiated protocol version', 'passed'],
    [9, 'session-id-distinct', 'second initialize', 'passed'],
    [10, 'session-required', 'request without a session ID', 'passed'],
    [11, 'session-ended-404', 'session DELETE', 'passed'],
    [12, 'session-ended-404', 'request after session DELETE', 'passed'],
  ];
  for (const [n, id, step, host] of ALL_ON)
    it(`every check on, gone under request ${n}: ${id}, "${step}"; host ${host}`, async () => {
      const s = exitingAt(n);
      const r = await specChecks({ ...INPUT, exited: s.exited }, s.send);
      expect(failedUnder(r)).toEqual(under(id, step));
      expect(r.find((c) => c.id === 'host')!.outcome).toBe(id === 'host' ? 'failed' : host);
      expect(s.sent).toHaveLength(n);
    });

  it("protocol-version off: the first initialize is the first session check's, and the ping with the session is session-required's", async () => {
    const levels = { ...REQUIRED, origin: 'off', 'token-in-header': 'off', 'protocol-version': 'off' } as const;
    // foreign Host, initialize, notifications/initialized, second initialize, the ping with the session.
    for (const [n, id, step] of [
      [2, 'session-id-visible-ascii', 'initialize'],
      [5, 'session-required', 'request with a session ID'],
    ] as const) {
      const s = exitingAt(n);
      const r = await specChecks({ ...INPUT, levels, exited: s.exited }, s.send);
      expect(failedUnder(r)).toEqual(under(id, step));
    }
  });

  it('host alone: its control is an initialize of its own, named as such', async () => {
    const levels = {
      ...Object.fromEntries(SPEC_CHECK_IDS.filter((id) => id !== 'host').map((id) => [id, 'off' as const])),
      host: 'require' as const,
    };
    const s = exitingAt(2);
    const r = await specChecks({ ...INPUT, levels, exited: s.exited }, s.send);
    expect(failedUnder(r)).toEqual(under('host', 'initialize with its own Host'));
  });

  it('a foreign Host served (200) is judged failed though the server is gone before any control', async () => {
    const s = exitingAt(5, (req) => (req.headers.host?.startsWith('evil.example') ? a(200) : undefined));
    const r = await specChecks({ ...INPUT, exited: s.exited }, s.send);
    expect(r.find((c) => c.id === 'host')).toMatchObject({ outcome: 'failed', short: '200 (want 4xx)' });
  });
});

describe('specChecks: the Host control, exactly the requests it needs', () => {
  const only = (...on: string[]) =>
    Object.fromEntries(SPEC_CHECK_IDS.map((id) => [id, on.includes(id) ? ('require' as const) : ('off' as const)]));

  it('a foreign Host not refused (200, 500, 399) needs no control: one request, failed', async () => {
    for (const status of [200, 500, 399]) {
      const s = scripted((req) => (req.headers.host?.startsWith('evil.example') ? a(status) : undefined));
      const r = await specChecks({ ...INPUT, levels: only('host') }, s.send);
      expect(r.find((c) => c.id === 'host')).toMatchObject({ outcome: 'failed', short: `${status} (want 4xx)` });
      expect(s.sent.map((q) => q.method)).toEqual(['POST']);
    }
  });

  it("not refused while the session checks' initialize was refused: no localhost:PORT initialize either", async () => {
    const s = scripted((req) =>
      req.headers.host?.startsWith('evil.example')
        ? a(200)
        : (req.body as { method?: string })?.method === 'initialize'
          ? a(401)
          : undefined,
    );
    const r = await specChecks({ ...INPUT, levels: only('host', 'protocol-version') }, s.send);
    expect(r.find((c) => c.id === 'host')).toMatchObject({ outcome: 'failed', short: '200 (want 4xx)' });
    expect(s.sent.map((q) => q.headers.host)).toEqual(['evil.example:5555', undefined]);
  });

  it('an endpoint at localhost:PORT refused at its own Host is not asked again with the same Host', async () => {
    const s = scripted((req) => ((req.body as { method?: string })?.method === 'initialize' ? a(403) : undefined));
    const r = await specChecks({ ...INPUT, url: 'http://localhost:5555/mcp', levels: only('host') }, s.send);
    expect(r.find((c) => c.id === 'host')!.outcome).toBe('not-measured');
    expect(s.sent.map((q) => q.headers.host)).toEqual(['evil.example:5555', undefined]);
  });

  it("refused at its URL's Host but served as localhost:PORT: that is the control, named", async () => {
    const allowlist = (req: RawRequest) =>
      (req.body as { method?: string })?.method === 'initialize' && req.headers.host !== 'localhost:5555';
    const s = scripted((req) => (allowlist(req) ? a(403) : undefined));
    const r = await specChecks({ ...INPUT, levels: only('host') }, s.send);
    expect(r.find((c) => c.id === 'host')).toMatchObject({ outcome: 'passed', evidence: { status: 403 } });
    expect(s.sent.map((q) => [q.method, q.headers.host])).toEqual([
      ['POST', 'evil.example:5555'],
      ['POST', undefined],
      ['POST', 'localhost:5555'],
      // The clean-up of the session that initialize opened.
      ['DELETE', undefined],
    ]);
    // A connection closed on the foreign Host names the Host that was served.
    const c = scripted((req) => (req.headers.host?.startsWith('evil.example') ? hangUp : allowlist(req) ? a(403) : undefined));
    const rc = await specChecks({ ...INPUT, levels: only('host') }, c.send);
    expect(rc.find((x) => x.id === 'host')).toMatchObject({ outcome: 'passed', evidence: { status: 'closed', own: '200' } });
    expect(rc.find((x) => x.id === 'host')!.message).toContain('while its own Host (localhost:5555) is served');
  });

  it('origin: an endpoint at http://localhost:PORT whose loopback Origin is refused is not asked again with the same Origin', async () => {
    const s = scripted((req) => (req.headers.origin ? a(403) : undefined));
    const r = await specChecks({ ...INPUT, url: 'http://localhost:5555/mcp', levels: only('origin') }, s.send);
    expect(r.find((c) => c.id === 'origin')!.outcome).toBe('failed');
    expect(s.sent.map((q) => q.headers.origin)).toEqual(['http://evil.example', 'http://localhost:5555']);
  });
});

describe('judgeHost and originRule at their edges', () => {
  it('a foreign Host not refused (200, 500) fails whatever its own Host got; a 4xx with its own Host refused is not measured, in full', () => {
    for (const status of [200, 500])
      expect(judgeHost(a(status), 5555, { host: '127.0.0.1:5555', answer: a(403) })).toMatchObject({
        outcome: 'failed',
        short: `${status} (want 4xx)`,
      });
    expect(judgeHost(a(403), 5555, { host: '127.0.0.1:5555', answer: a(401) })).toEqual({
      outcome: 'not-measured',
      message:
        "Host evil.example:5555 got 403, but initialize with its own Host (127.0.0.1:5555) got 401 too: the refusal is not the Host's, so this could not be judged",
      short: 'not measured',
      evidence: { status: 403, own: '401' },
    });
  });

  it('a version with anything before or after its date is no date: judged by 2025-11-25, no revision read', () => {
    for (const v of ['v2025-06-18', '2025-06-18T00'])
      expect(originRule(v)).toEqual({
        revision: '2025-11-25',
        strict: true,
        note: 'judged by MCP 2025-11-25: no negotiated revision was read',
      });
  });
});
