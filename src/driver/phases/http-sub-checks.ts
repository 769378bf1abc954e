// The http phase's sub-checks on a listening server: the refusals without or with a wrong token, the
// spec's transport requirements, the OAuth ones and the round trip, each run whatever the others found.
// http.ts starts the server and reports what these return.

import { randomBytes } from 'node:crypto';
import { levelOf } from '../../contract/checks.js';
import { NoAnswer, rawSender, SPEC_INITIALIZE } from '../http/raw-http.js';
import { SPEC_CHECK_IDS, specChecks } from '../http/spec-checks.js';
import { type SdkAdapter } from '../client/adapter.js';
import { RequestWindow } from '../context.js';
import { roundTripCheck, type RoundTripServer } from './http-round-trip.js';
import { defined } from '../../contract/fields.js';
import type { HttpDetails, HttpProbe } from '../../results/types.js';
import {
  challengeCheck,
  failed,
  NO_AUTH,
  NOT_JUDGED,
  postInitialize,
  statusCheck,
  type HttpChecks,
  type SubCheck,
} from './http-refusals.js';
import {
  exitOf,
  exitText,
  notRunChecks,
  notRunOAuth,
  notRunText,
  oauthAfterExit,
  refusedConnection,
  type ServerExit,
} from './http-exit.js';
import { discoveryCheck, metadataCheck, refusalCheck, roundTripOAuthCheck, type OAuthCheck, type OAuthCheckId } from '../http/oauth.js';
import { discover } from '../http/oauth-discovery.js';
import type { CheckLevels, TestTokens } from '../../contract/protocol.js';
import type { HttpSpec } from '../../contract/protocol.js';
import type { ServerProcess } from '../server/process.js';

/**
 * The three refusal checks and the round trip, each run whatever the others found; their evidence goes to
 * `details`, and the revision the spec checks' initialize negotiated comes back beside the checks.
 */
export async function subChecks(
  spec: HttpSpec,
  adapter: SdkAdapter,
  url: string,
  credentials: { bearer: string; oauth?: TestTokens; issuer?: string },
  details: HttpDetails,
  server: RoundTripServer,
): Promise<{ checks: HttpChecks; specRevision?: string }> {
  const token = credentials.bearer;
  // Copies: the redactor reads a shared object as a cycle.
  let noToken = { ...NO_AUTH };
  let wwwAuthenticate = { ...NO_AUTH };
  let wrongToken = { ...NO_AUTH };
  let oauth: OAuthCheck[] | undefined;
  /** The server's exit, once a check met it: every later check is not run, naming it (http-exit.ts). */
  let died: ServerExit | undefined;
  // Where the probes' requests began: what the driver still holds from them after the server died under one is
  // not the driver's leak (recorded where leaks reads it, as the round trip's and stdio's requests are).
  const probes = new RequestWindow('no-token-401');
  const diedUnder = (exit: ServerExit): void => {
    probes.step = exit.during;
    server.diedUnder(probes);
  };
  if (spec.auth !== 'none') {
    // Independent requests: send them together.
    const settle = (p: Promise<HttpProbe>): Promise<HttpProbe | NoAnswer> => p.catch((e: unknown) => NoAnswer.of(e));
    const [anonymous, wrong] = await Promise.all([
      settle(postInitialize(url, undefined, spec.timeoutMs)),
      settle(postInitialize(url, `Bearer ${randomBytes(24).toString('hex')}`, spec.timeoutMs)),
    ]);
    if (!(anonymous instanceof NoAnswer)) details.unauthenticated = anonymous;
    if (!(wrong instanceof NoAnswer)) details.wrongToken = wrong;
    noToken = statusCheck(anonymous, 'no token');
    wwwAuthenticate = challengeCheck(anonymous) ?? { ...NOT_JUDGED };
    wrongToken = statusCheck(wrong, 'wrong token');
    // No answer from a server that exited: the first of the two in report order that met it names the exit.
    const exit = anonymous instanceof NoAnswer || wrong instanceof NoAnswer ? await exitOf(server.proc) : null;
    if (exit) {
      const [during, step, error] =
        anonymous instanceof NoAnswer
          ? ['no-token-401', 'request without a token', anonymous]
          : ['wrong-token-401', 'request with a wrong token', wrong as NoAnswer];
      died = { how: exit.how, during };
      const exitCheck: SubCheck = {
        ...failed(exitText(exit.how, refusedConnection(error), step), 'server exited', step),
        evidence: { exited: exit.how },
      };
      const notRun: SubCheck = { outcome: 'not run', text: notRunText(died), short: 'not run' };
      if (anonymous instanceof NoAnswer) [noToken, wwwAuthenticate] = [exitCheck, notRun];
      if (wrong instanceof NoAnswer) wrongToken = during === 'wrong-token-401' ? exitCheck : notRun;
      diedUnder(died);
    }
    if (credentials.oauth && died) oauth = notRunOAuth(died);
    else if (credentials.oauth) {
      const challenge = anonymous instanceof NoAnswer ? null : anonymous.wwwAuthenticate;
      probes.begin('oauth-discovery');
      const checked = await oauthChecks(url, challenge, credentials.oauth, credentials.issuer!, spec.timeoutMs, details, server.proc);
      [oauth, died] = [checked.checks, checked.died];
      if (died) diedUnder(died);
    }
  }
  const guarded = spec.auth !== 'none';
  const levels: CheckLevels = Object.fromEntries(SPEC_CHECK_IDS.map((id) => [id, levelOf(id, spec.checks)]));
  let specRevision: string | undefined;
  const specStarted = Date.now();
  if (!died) probes.begin('token-in-header');
  // A server that exited under the probes above is not asked again: the spec checks are not run, naming why.
  const transport = died
    ? notRunChecks(SPEC_CHECK_IDS, levels, died)
    : await specChecks({
        url,
        port: Number(new URL(url).port),
        ...(guarded ? { authorization: `Bearer ${token}`, token } : {}),
        ...defined({ anonymousStatus: details.unauthenticated?.status }),
        timeoutMs: spec.timeoutMs,
        levels,
        ...(adapter.protocolOffer ? { offer: adapter.protocolOffer } : {}),
        onNegotiated: (revision) => void (specRevision = revision),
        exited: async () => (await exitOf(server.proc))?.how ?? null,
      });
  // Their own wall time: requests the minimal client does not make, which the bench shows apart (bench/sections/cells.ts).
  details.specChecksMs = Date.now() - specStarted;
  // A server that exited under a spec check (which names the exit) cannot be driven: the round trip says so, once.
  const diedIn = transport.find((c) => c.evidence?.exited !== undefined);
  if (diedIn && !died) {
    died = { how: String(diedIn.evidence!.exited), during: diedIn.id };
    diedUnder(died);
  }
  const roundTrip = died
    ? {
        outcome: 'failed' as const,
        check: failed(`failed: not run: the server exited during ${died.during}`, 'not run', 'round trip'),
        evidence: {},
      }
    : await roundTripCheck(spec, adapter, url, guarded ? { Authorization: `Bearer ${token}` } : {}, server);
  if (roundTrip.outcome === 'failed' && !died) {
    // Refused with 403 even with the right credentials: a Host allowlist is told apart from a token of its own.
    const allowlist = await hostAllowlist(url, guarded ? `Bearer ${token}` : undefined, spec.timeoutMs);
    if (allowlist) {
      roundTrip.check = { ...roundTrip.check, text: `${roundTrip.check.text} (${allowlist})` };
      details.hostAllowlist = allowlist;
    }
  }
  details.roundTrip = roundTrip.outcome === 'ok';
  const { compared, failedSteps } = roundTrip.evidence;
  Object.assign(details, roundTrip.outcome === 'ok' ? roundTrip.evidence : defined({ compared, failedSteps }));
  const checks: HttpChecks = { noToken, wwwAuthenticate, wrongToken, roundTrip: roundTrip.check, spec: transport };
  if (oauth) {
    // The valid token's round trip is the bearer one; a failure there also cites the requirement.
    const own = roundTripOAuthCheck(roundTrip.outcome, roundTrip.check.text, roundTrip.check.short);
    // Not run after an exit: nothing was refused, so no requirement is cited.
    if (own.outcome === 'failed' && !died) checks.roundTrip = { ...roundTrip.check, text: own.text };
    checks.oauth = [...oauth, own];
  }
  return { checks, ...defined({ specRevision }) };
}

/** Discovery, the metadata document, and the four tokens that must each get 401 (sent together). */
async function oauthChecks(
  url: string,
  challenge: string | null,
  tokens: TestTokens,
  issuer: string,
  timeoutMs: number,
  details: HttpDetails,
  proc: ServerProcess,
): Promise<{ checks: OAuthCheck[]; died?: ServerExit }> {
  const settle = (p: Promise<HttpProbe>): Promise<number | NoAnswer> =>
    p.then(
      (r) => r.status,
      (e: unknown) => NoAnswer.of(e),
    );
  const startedAt = Date.now();
  const [discovery, audience, expired, otherKey, algNone] = await Promise.all([
    discover(url, challenge, timeoutMs),
    settle(postInitialize(url, `Bearer ${tokens.otherAudience}`, timeoutMs)),
    settle(postInitialize(url, `Bearer ${tokens.expired}`, timeoutMs)),
    settle(postInitialize(url, `Bearer ${tokens.otherKey}`, timeoutMs)),
    settle(postInitialize(url, `Bearer ${tokens.algNone}`, timeoutMs)),
  ]);
  details.oauth = {
    discovery: {
      via: discovery.via,
      url: discovery.url,
      tried: discovery.tried,
      ...defined({ document: discovery.document }),
    },
    statuses: Object.fromEntries(
      Object.entries({ otherAudience: audience, expired, otherKey, algNone }).map(([k, v]) => [k, v instanceof NoAnswer ? v.message : v]),
    ),
  };
  const checks = [
    discoveryCheck(discovery),
    // This server is its URL, or the audience the config names it by.
    metadataCheck(discovery, issuer, [url, ...(typeof details.audience === 'string' ? [details.audience] : [])]),
    refusalCheck('audience', audience),
    refusalCheck('expired', expired),
    refusalCheck('otherKey', otherKey),
    refusalCheck('algNone', algNone),
  ];
  // Requests without an answer, from a server that may have exited under them (http-exit.ts names it once).
  const noAnswer: Partial<Record<OAuthCheckId, NoAnswer | true>> = {
    ...(!discovery.document && discovery.tried.some((t) => typeof t.status === 'string') ? { discovery: true as const } : {}),
    ...Object.fromEntries(
      Object.entries({ audience, expired, otherKey, algNone }).filter((e): e is [string, NoAnswer] => e[1] instanceof NoAnswer),
    ),
  };
  const exit = Object.keys(noAnswer).length ? await exitOf(proc) : null;
  return exit ? oauthAfterExit(checks, noAnswer, exit, startedAt) : { checks };
}

/**
 * When initialize with the right credentials gets 403 at the URL's own Host but is served with
 * `Host: localhost:PORT`, the refusal is a Host allowlist (not a token): says so, with the fix.
 */
export async function hostAllowlist(url: string, authorization: string | undefined, timeoutMs: number): Promise<string | null> {
  const send = rawSender(url, timeoutMs);
  const port = new URL(url).port;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(authorization ? { authorization } : {}),
  };
  const own = await send({ method: 'POST', headers, body: SPEC_INITIALIZE(1, '2025-03-26') });
  if (own instanceof NoAnswer || own.status !== 403) return null;
  const named = await send({ method: 'POST', headers: { ...headers, host: `localhost:${port}` }, body: SPEC_INITIALIZE(1, '2025-03-26') });
  for (const a of [own, named])
    if (!(a instanceof NoAnswer) && a.sessionId) await send({ method: 'DELETE', headers: { ...headers, 'mcp-session-id': a.sessionId } });
  if (named instanceof NoAnswer || named.status < 200 || named.status >= 300) return null;
  return `every request to Host ${new URL(url).host} got 403, but Host localhost:${port} is served: a Host allowlist, not a token; run it with http.host: 'localhost'`;
}
