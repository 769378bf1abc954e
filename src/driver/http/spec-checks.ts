// The http phase's checks of the transport's own requirements (MCP 2025-11-25, basic/transports, and the token's
// place from basic/authorization), sent raw (raw-http.ts) with exactly the headers each needs and judged by
// spec-judges.ts. A server that exits while they run ends them: the check under way names the exit.

import type { CheckLevels } from '../../contract/protocol.js';
import type { SubCheckResult } from '../../results/types.js';
import { checkResult, levelOf, type CheckFinding } from '../../contract/checks.js';
import { JSON_HEADERS, negotiatedVersion, NoAnswer, rawSender, SPEC_INITIALIZE, type RawAnswer, type Send, type Sent } from './raw-http.js';
import {
  ok2xx,
  seen,
  served,
  dropped,
  FOREIGN_ORIGIN,
  FOREIGN_HOST,
  judgeOrigin,
  judgeHost,
  judgeProtocolVersion,
  UNSUPPORTED_VERSION,
  LATEST_OFFER,
  judgeSessions,
  judgeQueryToken,
} from './spec-judges.js';

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
] as const;

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
  /** Every spec check's level, as the spec gave it (none defaulted here). */
  levels: CheckLevels;
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
    if (a instanceof NoAnswer && input.exited) {
      const how = await input.exited();
      if (how) throw new ServerExited(how, a.code === 'ECONNREFUSED');
    }
    return a;
  };
  const offer = input.offer ?? LATEST_OFFER;
  let negotiated: string | undefined;
  const init = async (extra: Record<string, string> = {}, path?: string, headers = base): Promise<Sent> => {
    const a = await send({
      method: 'POST',
      headers: { ...headers, ...extra },
      body: SPEC_INITIALIZE(1, offer),
      ...(path ? { path } : {}),
    });
    if (!(a instanceof NoAnswer) && a.sessionId) opened.push(a.sessionId);
    const named = served(a) ? negotiatedVersion(a as RawAnswer) : undefined;
    if (named !== undefined && negotiated === undefined) input.onNegotiated?.((negotiated = named));
    return a;
  };
  const findings: Record<string, CheckFinding> = {};
  const NOT_RUN: CheckFinding = { outcome: 'skipped', message: 'off in the config (not run)' };
  let foreignHost: Sent | undefined;
  /** initialize with the right credentials and the server's own Host: the control of the Host check. */
  let control: Sent | undefined;
  let exited: ServerExited | undefined;
  const refusedHost = (a: Sent): boolean => dropped(a) || (!(a instanceof NoAnswer) && a.status >= 400 && a.status < 500);
  try {
    if (on('origin')) {
      const localhost = `http://localhost:${input.port}`;
      // Offered the client's revision: the server answers with the one the cell negotiates (the rule to judge by).
      const origin = (o: string): Promise<Sent> => init({ origin: o });
      at('origin', 'request with a foreign Origin');
      const foreign = await origin(FOREIGN_ORIGIN);
      at('origin', 'request with a loopback Origin');
      let loopback = await origin(localhost);
      let loopbackOrigin = localhost;
      // A server may serve only the Origin of the address it was reached at (http://127.0.0.1:PORT): that one
      // served is a loopback page served, not "every Origin refused".
      const own = new URL(input.url).origin;
      if ((loopback instanceof NoAnswer || !ok2xx(loopback)) && own !== localhost) {
        const second = await origin(own);
        [loopback, loopbackOrigin] = !(second instanceof NoAnswer) && ok2xx(second) ? [second, own] : [loopback, `${localhost} or ${own}`];
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
      if (first instanceof NoAnswer || !ok2xx(first)) {
        const why = `initialize with the right credentials got ${seen(first)}, so this could not be judged (the round trip says why)`;
        for (const id of ['protocol-version', ...sessionIds])
          findings[id] = { outcome: 'not-measured', message: why, short: 'not measured' };
      } else {
        const version = negotiatedVersion(first) ?? offer;
        const sid = first.sessionId;
        const session: Record<string, string> = sid ? { 'mcp-session-id': sid } : {};
        const ping = (headers: Record<string, string>): Promise<Sent> =>
          send({ method: 'POST', headers: { ...base, ...headers }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
        at(owner, 'notifications/initialized');
        await send({
          method: 'POST',
          headers: { ...base, ...session, 'mcp-protocol-version': version },
          body: { jsonrpc: '2.0', method: 'notifications/initialized' },
        });
        /** The request with the session and the negotiated version: protocol-version's control, and session-required's. */
        let withId: Sent | undefined;
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
          const deleted: Sent = sid
            ? await send({ method: 'DELETE', headers: { ...auth, ...session, 'mcp-protocol-version': version } })
            : new NoAnswer('no session');
          if (sid && !(deleted instanceof NoAnswer) && ok2xx(deleted)) opened.splice(opened.indexOf(sid), 1);
          at('session-ended-404', 'request after session DELETE');
          const afterDelete = sid ? await ping({ ...session, 'mcp-protocol-version': version }) : new NoAnswer('no session');
          Object.assign(
            findings,
            judgeSessions({
              ...(sid ? { first: sid } : {}),
              ...(second && served(second) && (second as RawAnswer).sessionId ? { second: (second as RawAnswer).sessionId! } : {}),
              ...(second && (second instanceof NoAnswer || !ok2xx(second)) ? { secondRefused: seen(second) } : {}),
              withId: withId ?? new NoAnswer('no session'),
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
      if (refused && control && (control instanceof NoAnswer || !ok2xx(control)) && ownHost !== `localhost:${input.port}`) {
        const named = await init({ host: `localhost:${input.port}` });
        if (!(named instanceof NoAnswer) && ok2xx(named)) [control, ownHost] = [named, `localhost:${input.port}`];
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
  return SPEC_CHECK_IDS.map((id) => checkResult(id, levelOf(id, levels), findings[id] ?? NOT_RUN));
}
