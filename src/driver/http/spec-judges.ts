// The pure judges of the http phase's transport checks (spec-checks.ts sends the requests): Origin, Host,
// MCP-Protocol-Version, the session lifecycle and the token's place, each a function of what came back, so that
// each rule can be read and tested apart from the sequence that gathers its answers.

import { type CheckFinding } from '../../contract/checks.js';
import { errorText } from '../context.js';
import { negotiatedVersion, NoAnswer, type RawAnswer, type Sent } from './raw-http.js';

export const ok2xx = (a: RawAnswer): boolean => a.status >= 200 && a.status < 300;
export const seen = (a: Sent): string => (a instanceof NoAnswer ? `no answer (${errorText(a)})` : String(a.status));
export const served = (a: Sent): boolean => !(a instanceof NoAnswer) && ok2xx(a);

/**
 * The connection closed or reset by a server still running, without an HTTP answer: a refusal (a DNS-rebound page
 * reads nothing), though not a status. A refused connection (nobody listening) or a timeout is not one.
 */
export function dropped(a: Sent): a is NoAnswer {
  return a instanceof NoAnswer && (a.code === 'ECONNRESET' || a.code === 'EPIPE');
}

export const FOREIGN_ORIGIN = 'http://evil.example';
export const FOREIGN_HOST = 'evil.example';

/** The revision whose Security Warning first names the status for an invalid Origin: 403 Forbidden. */
export const ORIGIN_403_FROM = '2025-11-25';

/**
 * The rule the origin check applies, from the revision the server negotiated when offered ORIGIN_403_FROM (the
 * loopback Origin's initialize): from MCP 2025-11-25 on, an invalid Origin MUST get 403; every earlier revision
 * (2024-11-05, 2025-03-26, 2025-06-18) says only that servers MUST validate it, so any refusal is one. No
 * revision read (an answer that is no InitializeResult, or a version that is no date): the catalogue's, 2025-11-25.
 */
export function originRule(negotiated: string | undefined): { revision: string; strict: boolean; note: string } {
  const dated = negotiated !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(negotiated) ? negotiated : undefined;
  if (dated !== undefined && dated < ORIGIN_403_FROM)
    return { revision: dated, strict: false, note: `judged by MCP ${dated}, the revision it negotiated, which names no status` };
  const note =
    dated === ORIGIN_403_FROM
      ? `judged by MCP ${ORIGIN_403_FROM}, the revision it negotiated`
      : dated !== undefined
        ? `judged by MCP ${ORIGIN_403_FROM}; it negotiated ${dated}`
        : `judged by MCP ${ORIGIN_403_FROM}: no negotiated revision was read`;
  return { revision: ORIGIN_403_FROM, strict: true, note };
}

/**
 * Origin: a foreign one is refused; a loopback one is served. Which refusal depends on the revision the server
 * negotiated (read from the loopback answer, originRule): 403 from MCP 2025-11-25 on; before it, any 4xx or the
 * connection closed (nothing reaches a DNS-rebound page). Never a 2xx, a 5xx, a timeout or nobody listening.
 */
export function judgeOrigin(foreign: Sent, loopback: Sent, loopbackOrigin: string): CheckFinding {
  const step = 'request with a foreign Origin';
  const rule = originRule(served(loopback) ? negotiatedVersion(loopback as RawAnswer) : undefined);
  const spec = { revision: `MCP ${rule.revision}`, section: 'basic/transports#security-warning' };
  const evidence = {
    foreign: dropped(foreign) ? `closed (${errorText(foreign)})` : seen(foreign),
    loopback: seen(loopback),
    loopbackOrigin,
    revision: rule.revision,
  };
  const want = rule.strict ? '403' : 'a refusal, a 4xx or a closed connection';
  const refused = rule.strict
    ? !(foreign instanceof NoAnswer) && foreign.status === 403
    : dropped(foreign) || (!(foreign instanceof NoAnswer) && foreign.status >= 400 && foreign.status < 500);
  const closedStrict = rule.strict && dropped(foreign);
  if (foreign instanceof NoAnswer && !dropped(foreign))
    return {
      outcome: 'failed',
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got ${seen(foreign)} (want ${want}; ${rule.note})`,
      short: 'no answer',
      step,
      evidence,
      spec,
    };
  if (!(foreign instanceof NoAnswer) && !refused) {
    const why = ok2xx(foreign) ? ': the server does not validate Origin (DNS rebinding)' : '';
    return {
      outcome: 'failed',
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got ${foreign.status} (want ${want}${why}; ${rule.note})`,
      short: `${foreign.status} (want ${rule.strict ? '403' : 'a refusal'})`,
      step,
      evidence,
      spec,
    };
  }
  const refusal = foreign instanceof NoAnswer ? `the connection closed (${errorText(foreign)})` : String(foreign.status);
  if (!served(loopback))
    return {
      outcome: 'failed',
      message: `a foreign Origin got ${refusal}, but a loopback Origin (${loopbackOrigin}) got ${seen(loopback)} too (want 2xx: it refuses every Origin; ${rule.note})`,
      short: `loopback Origin ${seen(loopback)}`,
      step: 'request with a loopback Origin',
      evidence,
      spec,
    };
  if (closedStrict)
    return {
      outcome: 'failed',
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got no HTTP answer: the connection was closed (${errorText(foreign as NoAnswer)}), which refuses it (a DNS-rebound page reads nothing), but an invalid Origin MUST get 403 Forbidden (${rule.note}; earlier revisions named no status)`,
      short: 'closed (want 403)',
      step,
      evidence,
      spec,
    };
  return {
    outcome: 'passed',
    message: `a foreign Origin got ${refusal}${rule.strict ? '' : ', a refusal'}; a loopback Origin got ${(loopback as RawAnswer).status} (${rule.note})`,
    short: rule.strict ? '403' : foreign instanceof NoAnswer ? 'closed' : String(foreign.status),
    evidence,
    spec,
  };
}

/**
 * Host: a foreign Host (what a DNS-rebound page sends) is refused; the status is named. `own`: the same
 * initialize with the server's own Host, the control: when it is refused too, the foreign Host's refusal
 * is not the Host's doing, and proves nothing.
 */
export function judgeHost(foreign: Sent, port: number, own?: { host: string; answer: Sent }): CheckFinding {
  const host = `${FOREIGN_HOST}:${port}`;
  const step = 'request with a foreign Host';
  // The spec names no status for a foreign Host: a connection closed on it is a refusal, when its own Host is served.
  if (dropped(foreign) && own) {
    const closed = `the connection was closed without an HTTP answer (${errorText(foreign)})`;
    return served(own.answer)
      ? {
          outcome: 'passed',
          message: `Host ${host}: ${closed}, a refusal (a DNS-rebound page reads nothing), while its own Host (${own.host}) is served`,
          short: 'closed',
          evidence: { status: 'closed', own: seen(own.answer) },
        }
      : {
          outcome: 'not-measured',
          message: `Host ${host}: ${closed}, but initialize with its own Host (${own.host}) got ${seen(own.answer)} too: the refusal is not the Host's, so this could not be judged`,
          short: 'not measured',
          evidence: { status: 'closed', own: seen(own.answer) },
        };
  }
  if (foreign instanceof NoAnswer)
    return { outcome: 'failed', message: `Host ${host} got ${seen(foreign)} (want a 4xx refusal)`, short: 'no answer', step };
  if (foreign.status >= 400 && foreign.status < 500 && own && (own.answer instanceof NoAnswer || !ok2xx(own.answer)))
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
export function judgeProtocolVersion(bogus: Sent, negotiated: Sent, version: string): CheckFinding {
  const evidence = { unsupported: seen(bogus), negotiated: seen(negotiated), version };
  if (bogus instanceof NoAnswer || bogus.status !== 400)
    return {
      outcome: 'failed',
      message: `a request with MCP-Protocol-Version ${UNSUPPORTED_VERSION} got ${seen(bogus)} (want 400${!(bogus instanceof NoAnswer) && ok2xx(bogus) ? ': the header is ignored' : ''})`,
      short: `${seen(bogus)} (want 400)`,
      step: 'request with an unsupported protocol version',
      evidence,
    };
  if (negotiated instanceof NoAnswer || !ok2xx(negotiated))
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

/** What the checks offer when the client's own offer is unknown: the newest revision the catalogue cites. */
export const LATEST_OFFER = '2025-11-25';

const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** The session checks, when the server issued an ID; each is skipped, saying why, when it did not. */
export function judgeSessions(s: {
  first?: string;
  second?: string;
  /** What the second initialize got, when it was not served (a refusal, no answer): the finding, whatever ID it carried. */
  secondRefused?: string;
  /** The control of `withoutId`: the same request with the session's ID (a refusal of both is not the missing ID's). */
  withId: Sent;
  withoutId: Sent;
  deleted: Sent;
  afterDelete: Sent;
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
  // A refused second initialize opened no session, whatever Mcp-Session-Id it carries: the refusal is the finding.
  const distinct: CheckFinding =
    s.secondRefused !== undefined
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
  const required: CheckFinding =
    !served(w) && !served(s.withId)
      ? {
          outcome: 'not-measured',
          message: `a request (ping) without Mcp-Session-Id got ${seen(w)}, but the same request with its session got ${seen(s.withId)} too: the refusal is not the missing ID's, so this could not be judged`,
          short: 'not measured',
          evidence: { withoutId: seen(w), withId: seen(s.withId) },
        }
      : !(w instanceof NoAnswer) && w.status === 400
        ? { outcome: 'passed', message: 'a request without Mcp-Session-Id got 400', short: '400' }
        : {
            outcome: 'failed',
            message: `a request (ping) without Mcp-Session-Id got ${seen(w)} (want 400)`,
            short: `${seen(w)} (want 400)`,
            step: 'request without a session ID',
          };
  const d = s.deleted;
  let ended: CheckFinding;
  if (!(d instanceof NoAnswer) && d.status === 405)
    ended = { outcome: 'skipped', message: 'the server does not let a client end its session (DELETE got 405)', short: 'DELETE 405' };
  else if (d instanceof NoAnswer || !ok2xx(d))
    ended = {
      outcome: 'failed',
      message: `DELETE of the session got ${seen(d)} (want 2xx, or 405 when clients may not end sessions)`,
      short: `DELETE ${seen(d)}`,
      step: 'session DELETE',
    };
  else {
    const a = s.afterDelete;
    ended =
      !(a instanceof NoAnswer) && a.status === 404
        ? { outcome: 'passed', message: `after DELETE (${d.status}) the ID got 404`, short: '404' }
        : {
            outcome: 'failed',
            message: `after DELETE (${d.status}) a request with the ended session's ID got ${seen(a)} (want 404${!(a instanceof NoAnswer) && ok2xx(a) ? ': the session is still valid' : ''})`,
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
export function judgeQueryToken(a: Sent, anonymous?: number): CheckFinding {
  if (anonymous === undefined || anonymous < 400 || anonymous >= 500)
    return { outcome: 'skipped', message: 'not judged: a request without any token was not refused (see no-token-401)', short: 'n/a' };
  if (!(a instanceof NoAnswer) && (a.status === 401 || a.status === anonymous))
    return {
      outcome: 'passed',
      message: `the token in the query string got ${a.status}, as a request without a token does`,
      short: String(a.status),
    };
  const accepted = !(a instanceof NoAnswer) && ok2xx(a);
  return {
    outcome: 'failed',
    message: `the right token in the query string (?access_token=…) without an Authorization header got ${seen(a)} (want 401${accepted ? ': a token in the URI is accepted' : ''})`,
    short: `${seen(a)} (want 401)`,
    step: 'request with the token in the query string',
  };
}
