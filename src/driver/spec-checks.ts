// The http phase's checks of the transport's own requirements (MCP 2025-11-25, basic/transports, and
// the token's place from basic/authorization): Origin, Host, the MCP-Protocol-Version header, the
// session lifecycle, and the token only in the Authorization header. Each request is sent raw
// (raw-http.ts) over node:http with exactly the headers the check needs (a Host override needs node:http: fetch forbids
// it), with the phase's credentials wherever the endpoint has them, so a refusal can only be the
// thing under test. Every judgement is a pure function of what came back.

import type { CheckLevel, SubCheckResult } from '../results/types.js';
import { checkResult, type CheckFinding } from './checks.js';
import { errorText } from './context.js';
import { JSON_HEADERS, negotiatedVersion, rawSender, SPEC_INITIALIZE, type RawAnswer, type Send } from './raw-http.js';

const ok2xx = (a: RawAnswer): boolean => a.status >= 200 && a.status < 300;
const seen = (a: RawAnswer | Error): string => (a instanceof Error ? `no answer (${errorText(a)})` : String(a.status));

export const FOREIGN_ORIGIN = 'http://evil.example';
export const FOREIGN_HOST = 'evil.example';

/** Origin: a foreign one gets 403; a loopback one is served. */
export function judgeOrigin(foreign: RawAnswer | Error, loopback: RawAnswer | Error, loopbackOrigin: string): CheckFinding {
  const step = 'request with a foreign Origin';
  const evidence = { foreign: seen(foreign), loopback: seen(loopback), loopbackOrigin };
  if (foreign instanceof Error)
    return {
      outcome: 'failed',
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got ${seen(foreign)} (want 403)`,
      short: 'no answer',
      step,
      evidence,
    };
  if (foreign.status !== 403) {
    const why = ok2xx(foreign) ? ': the server does not validate Origin (DNS rebinding)' : '';
    return {
      outcome: 'failed',
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got ${foreign.status} (want 403${why})`,
      short: `${foreign.status} (want 403)`,
      step,
      evidence,
    };
  }
  if (loopback instanceof Error || !ok2xx(loopback))
    return {
      outcome: 'failed',
      message: `a foreign Origin got 403, but a loopback Origin (${loopbackOrigin}) got ${seen(loopback)} too (want 2xx: it refuses every Origin)`,
      short: `loopback Origin ${seen(loopback)}`,
      step: 'request with a loopback Origin',
      evidence,
    };
  return { outcome: 'passed', message: `a foreign Origin got 403; a loopback Origin got ${loopback.status}`, short: '403', evidence };
}

/**
 * Host: a foreign Host (what a DNS-rebound page sends) is refused; the status is named. `own`: the same
 * initialize with the server's own Host, the control: when it is refused too, the foreign Host's refusal
 * is not the Host's doing, and proves nothing.
 */
export function judgeHost(foreign: RawAnswer | Error, port: number, own?: { host: string; answer: RawAnswer | Error }): CheckFinding {
  const host = `${FOREIGN_HOST}:${port}`;
  const step = 'request with a foreign Host';
  if (foreign instanceof Error)
    return { outcome: 'failed', message: `Host ${host} got ${seen(foreign)} (want a 4xx refusal)`, short: 'no answer', step };
  if (foreign.status >= 400 && foreign.status < 500 && own && (own.answer instanceof Error || !ok2xx(own.answer)))
    return {
      outcome: 'not-measured',
      message: `Host ${host} got ${foreign.status}, but initialize with its own Host (${own.host}) got ${seen(own.answer)} too: the refusal is not the Host's, so this could not be judged`,
      short: 'not measured',
      evidence: { status: foreign.status, own: seen(own.answer) },
    };
  if (foreign.status >= 400 && foreign.status < 500)
    return {
      outcome: 'passed',
      message: `Host ${host} refused with ${foreign.status}`,
      short: String(foreign.status),
      evidence: { status: foreign.status },
    };
  return {
    outcome: 'failed',
    message: `Host ${host} got ${foreign.status} (want a 4xx refusal: the server does not validate Host, so a DNS-rebound page reaches it)`,
    short: `${foreign.status} (want 4xx)`,
    step,
    evidence: { status: foreign.status },
  };
}

/** MCP-Protocol-Version: an unsupported one gets 400; the negotiated one is served. */
export function judgeProtocolVersion(bogus: RawAnswer | Error, negotiated: RawAnswer | Error, version: string): CheckFinding {
  const evidence = { unsupported: seen(bogus), negotiated: seen(negotiated), version };
  if (bogus instanceof Error || bogus.status !== 400)
    return {
      outcome: 'failed',
      message: `a request with MCP-Protocol-Version ${UNSUPPORTED_VERSION} got ${seen(bogus)} (want 400${!(bogus instanceof Error) && ok2xx(bogus) ? ': the header is ignored' : ''})`,
      short: `${seen(bogus)} (want 400)`,
      step: 'request with an unsupported protocol version',
      evidence,
    };
  if (negotiated instanceof Error || !ok2xx(negotiated))
    return {
      outcome: 'failed',
      message: `MCP-Protocol-Version ${UNSUPPORTED_VERSION} got 400, but the negotiated ${version} got ${seen(negotiated)} too (want 2xx)`,
      short: `negotiated ${seen(negotiated)}`,
      step: 'request with the negotiated protocol version',
      evidence,
    };
  return {
    outcome: 'passed',
    message: `${UNSUPPORTED_VERSION} got 400; the negotiated ${version} got ${negotiated.status}`,
    short: '400',
    evidence,
  };
}

export const UNSUPPORTED_VERSION = '1999-01-01';

const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** The session checks, when the server issued an ID; each is skipped, saying why, when it did not. */
export function judgeSessions(s: {
  first?: string;
  second?: string;
  /** What the second initialize got, when it was not served (a refusal, no answer): named instead of a missing ID. */
  secondRefused?: string;
  /** The control of `withoutId`: the same request with the session's ID (a refusal of both is not the missing ID's). */
  withId: RawAnswer | Error;
  withoutId: RawAnswer | Error;
  deleted: RawAnswer | Error;
  afterDelete: RawAnswer | Error;
}): Record<'session-id-visible-ascii' | 'session-id-distinct' | 'session-required' | 'session-ended-404', CheckFinding> {
  if (s.first === undefined) {
    const none: CheckFinding = { outcome: 'skipped', message: 'the server issued no Mcp-Session-Id (no sessions)', short: 'no sessions' };
    return { 'session-id-visible-ascii': none, 'session-id-distinct': none, 'session-required': none, 'session-ended-404': none };
  }
  const ascii: CheckFinding = VISIBLE_ASCII.test(s.first)
    ? { outcome: 'passed', message: `${s.first.length} visible ASCII characters`, short: 'ok' }
    : {
        outcome: 'failed',
        message: `the session ID ${JSON.stringify(s.first)} has characters outside visible ASCII (0x21 to 0x7E)`,
        short: 'not visible ASCII',
        step: 'initialize',
      };
  const distinct: CheckFinding =
    s.second === undefined && s.secondRefused !== undefined
      ? {
          outcome: 'failed',
          message: `a second initialize (while the first session was open) got ${s.secondRefused} (want 2xx with a new Mcp-Session-Id)`,
          short: s.secondRefused,
          step: 'second initialize',
        }
      : s.second === undefined
        ? { outcome: 'failed', message: 'a second initialize got no Mcp-Session-Id', short: 'no second ID', step: 'second initialize' }
        : s.second === s.first
          ? { outcome: 'failed', message: 'two sessions got the same Mcp-Session-Id', short: 'same ID', step: 'second initialize' }
          : { outcome: 'passed', message: 'two sessions got different IDs', short: 'ok' };
  const w = s.withoutId;
  const served = (x: RawAnswer | Error): boolean => !(x instanceof Error) && ok2xx(x);
  const required: CheckFinding =
    !served(w) && !served(s.withId)
      ? {
          outcome: 'not-measured',
          message: `a request (ping) without Mcp-Session-Id got ${seen(w)}, but the same request with its session got ${seen(s.withId)} too: the refusal is not the missing ID's, so this could not be judged`,
          short: 'not measured',
          evidence: { withoutId: seen(w), withId: seen(s.withId) },
        }
      : !(w instanceof Error) && w.status === 400
        ? { outcome: 'passed', message: 'a request without Mcp-Session-Id got 400', short: '400' }
        : {
            outcome: 'failed',
            message: `a request (ping) without Mcp-Session-Id got ${seen(w)} (want 400)`,
            short: `${seen(w)} (want 400)`,
            step: 'request without a session ID',
          };
  const d = s.deleted;
  let ended: CheckFinding;
  if (!(d instanceof Error) && d.status === 405)
    ended = { outcome: 'skipped', message: 'the server does not let a client end its session (DELETE got 405)', short: 'DELETE 405' };
  else if (d instanceof Error || !ok2xx(d))
    ended = {
      outcome: 'failed',
      message: `DELETE of the session got ${seen(d)} (want 2xx, or 405 when clients may not end sessions)`,
      short: `DELETE ${seen(d)}`,
      step: 'session DELETE',
    };
  else {
    const a = s.afterDelete;
    ended =
      !(a instanceof Error) && a.status === 404
        ? { outcome: 'passed', message: `after DELETE (${d.status}) the ID got 404`, short: '404' }
        : {
            outcome: 'failed',
            message: `after DELETE (${d.status}) a request with the ended session's ID got ${seen(a)} (want 404${!(a instanceof Error) && ok2xx(a) ? ': the session is still valid' : ''})`,
            short: `${seen(a)} (want 404)`,
            step: 'request after session DELETE',
          };
  }
  return { 'session-id-visible-ascii': ascii, 'session-id-distinct': distinct, 'session-required': required, 'session-ended-404': ended };
}

/**
 * The right token in the query string, no Authorization header: 401, or the same refusal a request with
 * no token at all gets (`anonymous`: then that status is the no-token check's finding, not this one's).
 * Judged only when a request without a token is refused: a server that serves everyone accepts any URI.
 */
export function judgeQueryToken(a: RawAnswer | Error, anonymous?: number): CheckFinding {
  if (anonymous === undefined || anonymous < 400 || anonymous >= 500)
    return { outcome: 'skipped', message: 'not judged: a request without any token was not refused (see no-token-401)', short: 'n/a' };
  if (!(a instanceof Error) && (a.status === 401 || a.status === anonymous))
    return {
      outcome: 'passed',
      message: `the token in the query string got ${a.status}, as a request without a token does`,
      short: String(a.status),
    };
  const accepted = !(a instanceof Error) && ok2xx(a);
  return {
    outcome: 'failed',
    message: `the right token in the query string (?access_token=…) without an Authorization header got ${seen(a)} (want 401${accepted ? ': a token in the URI is accepted' : ''})`,
    short: `${seen(a)} (want 401)`,
    step: 'request with the token in the query string',
  };
}

/** The checks this module runs, in report order. */
export const SPEC_CHECK_IDS = [
  'token-in-header',
  'origin',
  'host',
  'protocol-version',
  'session-id-visible-ascii',
  'session-id-distinct',
  'session-required',
  'session-ended-404',
];

export interface SpecCheckInput {
  url: string;
  port: number;
  /** `Bearer …` for the endpoint, absent with `auth: 'none'`. */
  authorization?: string;
  /** The bare token for the query-string check (absent: not applicable). */
  token?: string;
  /** The status a request without any token got (the no-token probe), when it answered. */
  anonymousStatus?: number;
  timeoutMs: number;
  levels: Record<string, CheckLevel>;
}

/** Runs every check whose level is not `off`, and records every check (off ones as skipped). */
export async function specChecks(input: SpecCheckInput, send: Send = rawSender(input.url, input.timeoutMs)): Promise<SubCheckResult[]> {
  const { levels } = input;
  const on = (id: string): boolean => levels[id] !== 'off';
  const auth: Record<string, string> = input.authorization ? { authorization: input.authorization } : {};
  const base = { ...JSON_HEADERS, ...auth };
  const opened: string[] = [];
  const init = async (extra: Record<string, string> = {}, path?: string, headers = base): Promise<RawAnswer | Error> => {
    const a = await send({
      method: 'POST',
      headers: { ...headers, ...extra },
      body: SPEC_INITIALIZE(1, '2025-03-26'),
      ...(path ? { path } : {}),
    });
    if (!(a instanceof Error) && a.sessionId) opened.push(a.sessionId);
    return a;
  };
  const findings: Record<string, CheckFinding> = {};
  const NOT_RUN: CheckFinding = { outcome: 'skipped', message: 'off in the config (not run)' };
  try {
    if (on('origin')) {
      const localhost = `http://localhost:${input.port}`;
      const foreign = await init({ origin: FOREIGN_ORIGIN });
      let loopback = await init({ origin: localhost });
      let loopbackOrigin = localhost;
      // A server may serve only the Origin of the address it was reached at (http://127.0.0.1:PORT): that one
      // served is a loopback page served, not "every Origin refused".
      const own = new URL(input.url).origin;
      if ((loopback instanceof Error || !ok2xx(loopback)) && own !== localhost) {
        const second = await init({ origin: own });
        [loopback, loopbackOrigin] = !(second instanceof Error) && ok2xx(second) ? [second, own] : [loopback, `${localhost} or ${own}`];
      }
      findings.origin = judgeOrigin(foreign, loopback, loopbackOrigin);
    }
    const foreignHost = on('host') ? await init({ host: `${FOREIGN_HOST}:${input.port}` }) : undefined;
    /** initialize with the right credentials and the server's own Host: the control of the Host check. */
    let control: RawAnswer | Error | undefined;
    if (on('token-in-header')) {
      if (!input.token) findings['token-in-header'] = { outcome: 'skipped', message: 'no token (auth none)', short: 'no auth' };
      else {
        const target = new URL(input.url);
        target.searchParams.set('access_token', input.token);
        findings['token-in-header'] = judgeQueryToken(
          await init({}, `${target.pathname}${target.search}`, { ...JSON_HEADERS }),
          input.anonymousStatus,
        );
      }
    }
    const sessionIds = ['session-id-visible-ascii', 'session-id-distinct', 'session-required', 'session-ended-404'];
    if (on('protocol-version') || sessionIds.some(on)) {
      const first = await init();
      control = first;
      if (first instanceof Error || !ok2xx(first)) {
        const why = `initialize with the right credentials got ${seen(first)}, so this could not be judged (the round trip says why)`;
        for (const id of ['protocol-version', ...sessionIds])
          findings[id] = { outcome: 'not-measured', message: why, short: 'not measured' };
      } else {
        const version = negotiatedVersion(first) ?? '2025-03-26';
        const sid = first.sessionId;
        const session: Record<string, string> = sid ? { 'mcp-session-id': sid } : {};
        const ping = (headers: Record<string, string>): Promise<RawAnswer | Error> =>
          send({ method: 'POST', headers: { ...base, ...headers }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
        await send({
          method: 'POST',
          headers: { ...base, ...session, 'mcp-protocol-version': version },
          body: { jsonrpc: '2.0', method: 'notifications/initialized' },
        });
        /** The request with the session and the negotiated version: protocol-version's control, and session-required's. */
        let withId: RawAnswer | Error | undefined;
        if (on('protocol-version')) {
          const bogus = await ping({ ...session, 'mcp-protocol-version': UNSUPPORTED_VERSION });
          withId = await ping({ ...session, 'mcp-protocol-version': version });
          findings['protocol-version'] = judgeProtocolVersion(bogus, withId, version);
        }
        if (sessionIds.some(on)) {
          const second = sid ? await init() : undefined;
          // The same ping with the session, sent when protocol-version (off) did not: the refusal below is judged against it.
          if (sid && withId === undefined) withId = await ping({ ...session, 'mcp-protocol-version': version });
          const withoutId = await ping({ 'mcp-protocol-version': version });
          const deleted: RawAnswer | Error = sid
            ? await send({ method: 'DELETE', headers: { ...auth, ...session, 'mcp-protocol-version': version } })
            : new Error('no session');
          if (sid && !(deleted instanceof Error) && ok2xx(deleted)) opened.splice(opened.indexOf(sid), 1);
          const afterDelete = sid ? await ping({ ...session, 'mcp-protocol-version': version }) : new Error('no session');
          Object.assign(
            findings,
            judgeSessions({
              ...(sid ? { first: sid } : {}),
              ...(second && !(second instanceof Error) && second.sessionId ? { second: second.sessionId } : {}),
              ...(second && (second instanceof Error || !ok2xx(second)) ? { secondRefused: seen(second) } : {}),
              withId: withId ?? new Error('no session'),
              withoutId,
              deleted,
              afterDelete,
            }),
          );
        }
      }
    }
    if (foreignHost) {
      const refused = !(foreignHost instanceof Error) && foreignHost.status >= 400 && foreignHost.status < 500;
      // A refusal is judged against the control (the session checks' initialize when they ran; else one of its own).
      if (refused) control ??= await init();
      let ownHost = new URL(input.url).host;
      // Refused at its URL's own Host too: a Host allowlist naming localhost:PORT validates Host all the same.
      if (refused && control && (control instanceof Error || !ok2xx(control)) && ownHost !== `localhost:${input.port}`) {
        const named = await init({ host: `localhost:${input.port}` });
        if (!(named instanceof Error) && ok2xx(named)) [control, ownHost] = [named, `localhost:${input.port}`];
      }
      findings.host = judgeHost(foreignHost, input.port, refused && control ? { host: ownHost, answer: control } : undefined);
    }
  } finally {
    // Leave no session of the checks open on the server (its leaks are the leaks phase's to judge).
    await Promise.all(opened.map((id) => send({ method: 'DELETE', headers: { ...auth, 'mcp-session-id': id } })));
  }
  return SPEC_CHECK_IDS.map((id) => checkResult(id, levels[id] ?? 'require', findings[id] ?? NOT_RUN));
}
