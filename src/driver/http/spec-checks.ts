// The http phase's checks of the transport's own requirements (MCP 2025-11-25, basic/transports, and
// the token's place from basic/authorization): Origin, Host, the MCP-Protocol-Version header, the
// session lifecycle, and the token only in the Authorization header. Each request is sent raw
// (raw-http.ts) over node:http with exactly the headers the check needs (a Host override needs node:http: fetch forbids
// it), with the phase's credentials wherever the endpoint has them, so a refusal can only be the
// thing under test. Origin is judged by the revision the server negotiates (403 from 2025-11-25 on, any refusal
// before it), and says which. Every judgement is a pure function of what came back. A server that exits while they run
// ends them: the check under way names the exit, the later ones are not run (no ECONNREFUSED in each).

import type { CheckLevel, SubCheckResult } from '../../results/types.js';
import { checkResult, type CheckFinding } from '../../contract/checks.js';
import { errorText } from '../context.js';
import { JSON_HEADERS, negotiatedVersion, rawSender, SPEC_INITIALIZE, type RawAnswer, type Send } from './raw-http.js';

const ok2xx = (a: RawAnswer): boolean => a.status >= 200 && a.status < 300;
const seen = (a: RawAnswer | Error): string => (a instanceof Error ? `no answer (${errorText(a)})` : String(a.status));
const served = (a: RawAnswer | Error): boolean => !(a instanceof Error) && ok2xx(a);

/**
 * The connection closed or reset by a server still running, without an HTTP answer: a refusal (a DNS-rebound page
 * reads nothing), though not a status. A refused connection (nobody listening) or a timeout is not one.
 */
export function dropped(a: RawAnswer | Error): a is Error {
  const code = (a as NodeJS.ErrnoException).code;
  return a instanceof Error && (code === 'ECONNRESET' || code === 'EPIPE');
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
export function judgeOrigin(foreign: RawAnswer | Error, loopback: RawAnswer | Error, loopbackOrigin: string): CheckFinding {
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
    ? !(foreign instanceof Error) && foreign.status === 403
    : dropped(foreign) || (!(foreign instanceof Error) && foreign.status >= 400 && foreign.status < 500);
  const closedStrict = rule.strict && dropped(foreign);
  if (foreign instanceof Error && !dropped(foreign))
    return {
      outcome: 'failed',
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got ${seen(foreign)} (want ${want}; ${rule.note})`,
      short: 'no answer',
      step,
      evidence,
      spec,
    };
  if (!(foreign instanceof Error) && !refused) {
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
  const refusal = foreign instanceof Error ? `the connection closed (${errorText(foreign)})` : String(foreign.status);
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
      message: `a foreign Origin (${FOREIGN_ORIGIN}) got no HTTP answer: the connection was closed (${errorText(foreign as Error)}), which refuses it (a DNS-rebound page reads nothing), but an invalid Origin MUST get 403 Forbidden (${rule.note}; earlier revisions named no status)`,
      short: 'closed (want 403)',
      step,
      evidence,
      spec,
    };
  return {
    outcome: 'passed',
    message: `a foreign Origin got ${refusal}${rule.strict ? '' : ', a refusal'}; a loopback Origin got ${(loopback as RawAnswer).status} (${rule.note})`,
    short: rule.strict ? '403' : foreign instanceof Error ? 'closed' : String(foreign.status),
    evidence,
    spec,
  };
}

/**
 * Host: a foreign Host (what a DNS-rebound page sends) is refused; the status is named. `own`: the same
 * initialize with the server's own Host, the control: when it is refused too, the foreign Host's refusal
 * is not the Host's doing, and proves nothing.
 */
export function judgeHost(foreign: RawAnswer | Error, port: number, own?: { host: string; answer: RawAnswer | Error }): CheckFinding {
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
  /**
   * The revision the cell's client offers in `initialize` (adapter.ts `protocolOffer`): every initialize of the checks
   * offers it, so the server answers with the revision the cell negotiates. Absent: LATEST_OFFER.
   */
  offer?: string;
  /** Called once with the first revision a served initialize named (`protocolVersion`): the one the checks ran under. */
  onNegotiated?: (revision: string) => void;
  /**
   * After a request got no answer: how the server ended (`code 9`, `signal SIGKILL`) when it has exited, else null.
   * An exit ends the checks: the check under way names it, the later ones are not run.
   */
  exited?: () => Promise<string | null>;
}

/** The server exited while the checks ran: thrown by the sender, caught once in specChecks. */
class ServerExited extends Error {
  /** `code 9`, `signal SIGKILL`. */
  readonly how: string;
  /** Nobody listened when the request went out: it had exited before it, not under it. */
  readonly before: boolean;
  constructor(how: string, before: boolean) {
    super(`the server exited (${how})`);
    this.how = how;
    this.before = before;
  }
}

/** Runs every check whose level is not `off`, and records every check (off ones as skipped). */
export async function specChecks(input: SpecCheckInput, raw: Send = rawSender(input.url, input.timeoutMs)): Promise<SubCheckResult[]> {
  const { levels } = input;
  const on = (id: string): boolean => levels[id] !== 'off';
  const auth: Record<string, string> = input.authorization ? { authorization: input.authorization } : {};
  const base = { ...JSON_HEADERS, ...auth };
  const opened: string[] = [];
  /** The check whose request is on its way, and that request: the one an exit is named under. */
  let current = { check: '', step: '' };
  const at = (check: string, step: string): void => void (current = { check, step });
  // A request that got no answer from a server that has exited ends the checks (ServerExited).
  const send: Send = async (req) => {
    const a = await raw(req);
    if (a instanceof Error && input.exited) {
      const how = await input.exited();
      if (how) throw new ServerExited(how, (a as NodeJS.ErrnoException).code === 'ECONNREFUSED');
    }
    return a;
  };
  const offer = input.offer ?? LATEST_OFFER;
  let negotiated: string | undefined;
  const init = async (extra: Record<string, string> = {}, path?: string, headers = base): Promise<RawAnswer | Error> => {
    const a = await send({
      method: 'POST',
      headers: { ...headers, ...extra },
      body: SPEC_INITIALIZE(1, offer),
      ...(path ? { path } : {}),
    });
    if (!(a instanceof Error) && a.sessionId) opened.push(a.sessionId);
    const named = served(a) ? negotiatedVersion(a as RawAnswer) : undefined;
    if (named !== undefined && negotiated === undefined) input.onNegotiated?.((negotiated = named));
    return a;
  };
  const findings: Record<string, CheckFinding> = {};
  const NOT_RUN: CheckFinding = { outcome: 'skipped', message: 'off in the config (not run)' };
  let foreignHost: RawAnswer | Error | undefined;
  /** initialize with the right credentials and the server's own Host: the control of the Host check. */
  let control: RawAnswer | Error | undefined;
  let exited: ServerExited | undefined;
  const refusedHost = (a: RawAnswer | Error): boolean => dropped(a) || (!(a instanceof Error) && a.status >= 400 && a.status < 500);
  try {
    if (on('origin')) {
      const localhost = `http://localhost:${input.port}`;
      // Offered the client's revision: the server answers with the one the cell negotiates (the rule to judge by).
      const origin = (o: string): Promise<RawAnswer | Error> => init({ origin: o });
      at('origin', 'request with a foreign Origin');
      const foreign = await origin(FOREIGN_ORIGIN);
      at('origin', 'request with a loopback Origin');
      let loopback = await origin(localhost);
      let loopbackOrigin = localhost;
      // A server may serve only the Origin of the address it was reached at (http://127.0.0.1:PORT): that one
      // served is a loopback page served, not "every Origin refused".
      const own = new URL(input.url).origin;
      if ((loopback instanceof Error || !ok2xx(loopback)) && own !== localhost) {
        const second = await origin(own);
        [loopback, loopbackOrigin] = !(second instanceof Error) && ok2xx(second) ? [second, own] : [loopback, `${localhost} or ${own}`];
      }
      findings.origin = judgeOrigin(foreign, loopback, loopbackOrigin);
    }
    at('host', 'request with a foreign Host');
    foreignHost = on('host') ? await init({ host: `${FOREIGN_HOST}:${input.port}` }) : undefined;
    if (on('token-in-header')) {
      if (!input.token) findings['token-in-header'] = { outcome: 'skipped', message: 'no token (auth none)', short: 'no auth' };
      else {
        const target = new URL(input.url);
        target.searchParams.set('access_token', input.token);
        at('token-in-header', 'request with the token in the query string');
        findings['token-in-header'] = judgeQueryToken(
          await init({}, `${target.pathname}${target.search}`, { ...JSON_HEADERS }),
          input.anonymousStatus,
        );
      }
    }
    const sessionIds = ['session-id-visible-ascii', 'session-id-distinct', 'session-required', 'session-ended-404'];
    if (on('protocol-version') || sessionIds.some(on)) {
      // The initialize these checks share is the first of them that is on.
      const owner = on('protocol-version') ? 'protocol-version' : sessionIds.find(on)!;
      at(owner, 'initialize');
      const first = await init();
      control = first;
      if (first instanceof Error || !ok2xx(first)) {
        const why = `initialize with the right credentials got ${seen(first)}, so this could not be judged (the round trip says why)`;
        for (const id of ['protocol-version', ...sessionIds])
          findings[id] = { outcome: 'not-measured', message: why, short: 'not measured' };
      } else {
        const version = negotiatedVersion(first) ?? offer;
        const sid = first.sessionId;
        const session: Record<string, string> = sid ? { 'mcp-session-id': sid } : {};
        const ping = (headers: Record<string, string>): Promise<RawAnswer | Error> =>
          send({ method: 'POST', headers: { ...base, ...headers }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
        at(owner, 'notifications/initialized');
        await send({
          method: 'POST',
          headers: { ...base, ...session, 'mcp-protocol-version': version },
          body: { jsonrpc: '2.0', method: 'notifications/initialized' },
        });
        /** The request with the session and the negotiated version: protocol-version's control, and session-required's. */
        let withId: RawAnswer | Error | undefined;
        if (on('protocol-version')) {
          at('protocol-version', 'request with an unsupported protocol version');
          const bogus = await ping({ ...session, 'mcp-protocol-version': UNSUPPORTED_VERSION });
          at('protocol-version', 'request with the negotiated protocol version');
          withId = await ping({ ...session, 'mcp-protocol-version': version });
          findings['protocol-version'] = judgeProtocolVersion(bogus, withId, version);
        }
        if (sessionIds.some(on)) {
          at('session-id-distinct', 'second initialize');
          const second = sid ? await init() : undefined;
          // The same ping with the session, sent when protocol-version (off) did not: the refusal below is judged against it.
          at('session-required', 'request with a session ID');
          if (sid && withId === undefined) withId = await ping({ ...session, 'mcp-protocol-version': version });
          at('session-required', 'request without a session ID');
          const withoutId = await ping({ 'mcp-protocol-version': version });
          at('session-ended-404', 'session DELETE');
          const deleted: RawAnswer | Error = sid
            ? await send({ method: 'DELETE', headers: { ...auth, ...session, 'mcp-protocol-version': version } })
            : new Error('no session');
          if (sid && !(deleted instanceof Error) && ok2xx(deleted)) opened.splice(opened.indexOf(sid), 1);
          at('session-ended-404', 'request after session DELETE');
          const afterDelete = sid ? await ping({ ...session, 'mcp-protocol-version': version }) : new Error('no session');
          Object.assign(
            findings,
            judgeSessions({
              ...(sid ? { first: sid } : {}),
              ...(second && served(second) && (second as RawAnswer).sessionId ? { second: (second as RawAnswer).sessionId! } : {}),
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
      const refused = refusedHost(foreignHost);
      // A refusal is judged against the control (the session checks' initialize when they ran; else one of its own).
      at('host', 'initialize with its own Host');
      if (refused) control ??= await init();
      let ownHost = new URL(input.url).host;
      // Refused at its URL's own Host too: a Host allowlist naming localhost:PORT validates Host all the same.
      if (refused && control && (control instanceof Error || !ok2xx(control)) && ownHost !== `localhost:${input.port}`) {
        const named = await init({ host: `localhost:${input.port}` });
        if (!(named instanceof Error) && ok2xx(named)) [control, ownHost] = [named, `localhost:${input.port}`];
      }
      findings.host = judgeHost(foreignHost, input.port, refused && control ? { host: ownHost, answer: control } : undefined);
    }
  } catch (error) {
    if (!(error instanceof ServerExited)) throw error;
    exited = error;
    // The check under way failed by the server's exit; the foreign Host's answer is still judged when it needs no control.
    findings[current.check] = {
      outcome: 'failed',
      message: `the server exited (${error.how}) ${error.before ? 'before' : 'under'} the ${current.step} (see its stderr)`,
      short: 'server exited',
      step: current.step,
      evidence: { exited: error.how },
    };
    if (foreignHost && current.check !== 'host' && !findings.host) {
      if (!refusedHost(foreignHost)) findings.host = judgeHost(foreignHost, input.port);
      else if (control && served(control))
        findings.host = judgeHost(foreignHost, input.port, { host: new URL(input.url).host, answer: control });
    }
    const notRun: CheckFinding = {
      outcome: 'skipped',
      message: `not run: the server exited (${error.how}) during ${current.check}`,
      short: 'not run',
    };
    for (const id of SPEC_CHECK_IDS) if (on(id) && !findings[id]) findings[id] = notRun;
  } finally {
    // Leave no session of the checks open on the server (its leaks are the leaks phase's to judge); a server that
    // exited holds none.
    if (!exited) await Promise.all(opened.map((id) => raw({ method: 'DELETE', headers: { ...auth, 'mcp-session-id': id } })));
  }
  return SPEC_CHECK_IDS.map((id) => checkResult(id, levels[id] ?? 'require', findings[id] ?? NOT_RUN));
}
