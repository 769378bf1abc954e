// http phase: a free loopback port and a token (or the run's authorization server), then independent
// sub-checks, every one run and reported so one finding never hides another: refusals (http-refusals.ts), spec
// and OAuth checks, the round trip (http-round-trip.ts); why a server does not answer is http-listen.ts's.

import { randomBytes } from 'node:crypto';
import type { HttpDetails, PhaseResultOf } from '../../results/types.js';
import { byRevision, decidePhase } from '../../contract/checks.js';
import { endpointUrl } from '../http/endpoint.js';
import { type SdkAdapter } from '../client/adapter.js';
import { clientLoadFailure, commandFor, substitute, result, type DriverContext, type PhaseFields } from '../context.js';
import { httpLifecycle } from './http-lifecycle.js';
import { asJudged, phaseMessage, reportedChecks, servedAnyway } from './http-refusals.js';
import { lifecycleNotRunCause } from './http-exit.js';
import { LISTENS_TWICE, listenUndated, neverListened, ownDescendant, portRace, type PortRace } from './http-listen.js';
import { fetchTokens } from '../http/oauth-discovery.js';
import type { TestTokens } from '../../contract/protocol.js';
import { freePort, ownListenOn, takeTestPort, waitUntilListening } from '../http/listen-watch.js';
import type { HttpSpec } from '../../contract/protocol.js';
import { portInUse } from '../server/start-failure.js';
import { subChecks } from './http-sub-checks.js';
import { onlyUnexpectedIsError } from '../../contract/compared.js';
import { defined } from '../../contract/fields.js';

export { TEST_PORTS_ENV, takeTestPort } from '../http/listen-watch.js';
export { portRace } from './http-listen.js';

type Attempt = { kind: 'result'; result: PhaseResultOf<'http'> } | { kind: 'port-race'; race: PortRace };

function pickPort(host: string): Promise<number> {
  const forced = takeTestPort();
  return forced === undefined ? freePort(host) : Promise.resolve(forced);
}

export async function httpPhase(ctx: DriverContext, spec: HttpSpec): Promise<PhaseResultOf<'http'>> {
  const startedAt = Date.now();
  const adapter = await ctx.adapter().catch((e: unknown) => e as Error);
  if (adapter instanceof Error) {
    return result('http', startedAt, clientLoadFailure(ctx, adapter));
  }
  // Not judged: a client without the transport cannot measure the server over HTTP (never passed).
  if (adapter.noHttp) return result('http', startedAt, { verdict: 'skipped', message: adapter.noHttp });
  // A client that should have the transport but whose install lacks it: a load failure like the client's own.
  if (adapter.httpLoadError) return result('http', startedAt, clientLoadFailure(ctx, adapter.httpLoadError));
  if (spec.auth === 'oauth' && (!spec.oauth || 'unavailable' in spec.oauth)) {
    // No authorization server, nothing to validate tokens against: the harness's problem, not the server's.
    const why = spec.oauth && 'unavailable' in spec.oauth ? spec.oauth.unavailable : 'the spec names no authorization server';
    return result('http', startedAt, { verdict: 'not-measured', step: 'authorization server', message: why });
  }
  if (spec.oauth && !('unavailable' in spec.oauth)) ctx.redactor.add(spec.oauth.tokensKey);
  const token = randomBytes(24).toString('hex');
  ctx.redactor.add(token);
  const first = await attempt(ctx, spec, adapter, token, startedAt);
  if (first.kind === 'result') return first.result;
  const second = await attempt(ctx, spec, adapter, token, startedAt, first.race);
  if (second.kind === 'result') return second.result;
  return result('http', startedAt, {
    verdict: 'not-measured',
    step: 'port identity',
    message: `the port was held by another process twice, so the server could not be measured: ${first.race.cause}; retried on a new port: ${second.race.cause}`,
    details: { portRaces: [first.race, second.race] },
  });
}

async function attempt(
  ctx: DriverContext,
  spec: HttpSpec,
  adapter: SdkAdapter,
  token: string,
  startedAt: number,
  retriedAfter?: PortRace,
): Promise<Attempt> {
  const port = await pickPort(spec.host);
  const url = endpointUrl(spec.host, port, spec.path);
  const details: HttpDetails = { port, url, auth: spec.auth ?? 'bearer', ...defined({ retriedAfter }) };
  const values: Record<string, string> = { host: spec.host, port: String(port), token };
  let tokens: TestTokens | undefined;
  const as = spec.auth === 'oauth' && spec.oauth && !('unavailable' in spec.oauth) ? spec.oauth : undefined;
  if (as) {
    const audience = as.audience ? substitute({ host: spec.host, port: String(port) }, as.audience) : url;
    Object.assign(values, { issuer: as.issuer, jwksUri: as.jwksUri, audience });
    Object.assign(
      details,
      { issuer: as.issuer, jwksUri: as.jwksUri, audience },
      defined({ authorizationServerRetriedAfter: as.retriedAfter }),
    );
    const minted = await fetchTokens(as.tokensUrl, as.tokensKey, audience, spec.timeoutMs);
    if (minted instanceof Error) {
      return {
        kind: 'result',
        result: result('http', startedAt, { verdict: 'not-measured', step: 'authorization server', message: minted.message, details }),
      };
    }
    for (const t of Object.values(minted)) ctx.redactor.add(t);
    tokens = minted;
  }
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, values);

  const proc = ctx.startServer('http', command, env);
  details.pid = proc.pid;
  const done = (fields: Omit<PhaseFields<'http'>, 'details'>): Attempt => ({
    kind: 'result',
    result: result('http', startedAt, { ...fields, details }, proc),
  });
  try {
    const ready = await waitUntilListening(proc, spec.host, port, spec.readyTimeoutMs);
    // A listener outside the server's group may still be its own: a descendant that left the group.
    const descendant = !ready.ok && ready.step === 'port identity' ? ownDescendant(ctx, proc, port) : null;
    if (descendant) Object.assign(details, { identity: 'descendant', listener: descendant, readyMs: Date.now() - proc.startedAt });
    else if (!ready.ok) {
      // Its own earlier listen on the port (it listens twice there) is not another process's doing.
      const own = ownListenOn(proc, port);
      const race = own ? null : portRace(proc.stderr.tail(), port, ready);
      if (race) return { kind: 'port-race', race };
      const undated = ready.step === 'wait for listen' ? listenUndated(proc, spec, port, ready.stalledMs) : null;
      if (undated) return done({ verdict: 'not-measured', step: ready.step, message: undated });
      const reason =
        own && portInUse(proc.probeRecords(), proc.stderr.tail(), port) ? `${ready.reason}; ${LISTENS_TWICE(port)}` : ready.reason;
      return done({ verdict: 'failed', step: ready.step, message: await neverListened(proc, spec, port, reason) });
    } else Object.assign(details, { identity: ready.identity, readyMs: ready.ms });

    const { checks, specRevision } = await subChecks(
      spec,
      adapter,
      url,
      tokens ? { bearer: tokens.valid, oauth: tokens, issuer: as!.issuer } : { bearer: token },
      details,
      {
        answered: () => ctx.answered.add(proc),
        diedUnder: (inFlight) => inFlight.diedUnder(ctx, 'http', proc),
        proc,
      },
    );
    // The variant's negotiated protocol, when stdio did not record it (stdio off, or it failed before initialize).
    if (details.protocolVersion !== undefined) ctx.summary.protocolVersion ??= details.protocolVersion;
    const bearer = tokens ? tokens.valid : token;
    const probes = reportedChecks(checks, spec);
    const lifecycle = await httpLifecycle(
      spec,
      url,
      spec.auth !== 'none' ? `Bearer ${bearer}` : undefined,
      proc,
      // A round trip failed by `isError` alone was answered: the edges run (the row may be contested across cells).
      checks.roundTrip.outcome === 'ok' || onlyUnexpectedIsError(details.failedSteps),
      details,
      lifecycleNotRunCause(probes, proc),
    );
    // Every check judged by the revision the cell's client negotiates: the spec checks' initialize offered what the
    // client offers; without one served, the round trip's (the client's own) negotiated version.
    const revision = specRevision ?? details.protocolVersion;
    if (revision !== undefined) details.judgedBy = revision;
    const served = (id: string): number | undefined =>
      (id === 'no-token-401' ? details.unauthenticated : id === 'wrong-token-401' ? details.wrongToken : undefined)?.status;
    const reported = [...probes, ...lifecycle].map((c) => servedAnyway(byRevision(c, revision), served(c.id), spec.auth ?? 'bearer'));
    const shown = asJudged(checks, reported);
    // The four checks' table texts (the HTTP column reads them); every check's result is in `checks`.
    const { spec: _reported, ...tableTexts } = shown;
    details.checks = tableTexts;
    const verdict = decidePhase(reported);
    const message = phaseMessage(shown, reported);
    const failure = reported.find((c) => c.level === 'require' && c.outcome === 'failed');
    return done({ verdict, message, checks: reported, ...(failure ? { step: failure.step ?? 'round trip' } : {}) });
  } finally {
    proc.terminate();
  }
}
