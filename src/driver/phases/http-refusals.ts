// The http phase's refusal checks (a request with no token, and one with a wrong token, must get 401 with a
// Bearer challenge) and how every sub-check of the phase is reported and read out in its message. http.ts
// starts the server and runs them; the judgements here are pure functions of what came back.

import type { HttpSpec } from '../../contract/protocol.js';
import type { HttpProbe, HttpTableCheck, SubCheckResult } from '../../results/types.js';
import { checkDefinition, checkLine, checkResult, levelOf, notableChecks } from '../../contract/checks.js';
import { errorText, StepTimeout } from '../context.js';
import { CATALOGUE_IDS, oauthLabel, type OAuthCheck } from '../http/oauth.js';
import { bearerParams } from '../http/oauth-discovery.js';
import { NoAnswer } from '../http/raw-http.js';
import { verdictTimer } from '../timer-verdict.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'mcp-matrix-driver', version: '0.1.0' } },
};

/** One sub-check: `text` goes into the message, `short` into the table cell. */
export type SubCheck = HttpTableCheck;

export interface HttpChecks {
  noToken: SubCheck;
  wwwAuthenticate: SubCheck;
  wrongToken: SubCheck;
  roundTrip: SubCheck;
  /** `auth: 'oauth'`: the resource-server sub-checks, in the order the message reads. */
  oauth?: OAuthCheck[];
  /** The transport's own requirements (src/driver/http/spec-checks.ts), already reported. */
  spec?: SubCheckResult[];
}

export async function postInitialize(url: string, authorization: string | undefined, timeoutMs: number): Promise<HttpProbe> {
  const controller = new AbortController();
  const timer = verdictTimer(() => controller.abort(new StepTimeout(timeoutMs, 'an HTTP response')), timeoutMs);
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (authorization) headers.authorization = authorization;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE), signal: controller.signal });
    // Drain the body so the connection does not linger in the driver.
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate') };
  } finally {
    timer.clear();
  }
}

export const okCheck = (text: string, short = 'ok'): SubCheck => ({ outcome: 'ok', text, short });

export const failed = (text: string, short: string, step: string): SubCheck => ({ outcome: 'failed', text, short, step });

export const NO_AUTH: SubCheck = { outcome: 'no auth', text: 'no auth (not checked)', short: 'no auth' };

export const NOT_JUDGED: SubCheck = { outcome: 'n/a', text: '', short: 'n/a' };

/** The status sub-checks: exactly 401, never "any 4xx" (403 means authenticated but forbidden). */
export function statusCheck(probe: HttpProbe | NoAnswer, who: 'no token' | 'wrong token'): SubCheck {
  const step = who === 'no token' ? 'request without a token' : 'request with a wrong token';
  if (probe instanceof NoAnswer) return failed(`no answer (${errorText(probe)})`, 'no answer', step);
  if (probe.status === 401) return okCheck('401', '401');
  const short = `${probe.status} (want 401)`;
  if (probe.status >= 200 && probe.status < 300) {
    const why = who === 'no token' ? 'the endpoint does not require the bearer token' : 'a wrong token is accepted';
    return failed(`${probe.status} (want 401: ${why})`, short, step);
  }
  return failed(short, short, step);
}

/** The challenge sub-check on the no-token refusal; not judged when there was no refusal at all. */
export function challengeCheck(probe: HttpProbe | NoAnswer): SubCheck | null {
  if (probe instanceof NoAnswer || probe.status < 400 || probe.status >= 500) return null;
  const header = probe.wwwAuthenticate;
  if (bearerParams(header)) return okCheck('with a Bearer challenge', 'Bearer challenge');
  const step = 'request without a token';
  if (header === null) return failed('without WWW-Authenticate', 'no challenge', step);
  return failed(`with WWW-Authenticate ${JSON.stringify(header)} (want Bearer)`, 'not a Bearer challenge', step);
}

/**
 * `no token → 401 without WWW-Authenticate; wrong token → 403 (want 401); round trip ok`, then with
 * `auth: 'oauth'` each resource-server sub-check: `; other audience → 200 (want 401: …) (MUST, …)`.
 */
export function checksMessage(c: HttpChecks): string {
  const challenge = c.wwwAuthenticate.outcome === 'not run' ? '' : c.wwwAuthenticate.text;
  const noToken = c.noToken.outcome === 'no auth' ? c.noToken.text : `${c.noToken.text} ${challenge}`.trim();
  const base = `no token → ${noToken}; wrong token → ${c.wrongToken.text}; round trip ${c.roundTrip.text}`;
  // Those not run (the server had exited) are in the checks; the message names the exit once.
  const oauth = (c.oauth ?? [])
    .filter((o) => o.id !== 'roundTrip' && o.outcome !== 'not run')
    .map((o) => `; ${oauthLabel(o.id)} → ${o.text}`);
  return base + oauth.join('');
}

type RefusalCheckId = 'no-token-401' | 'www-authenticate' | 'wrong-token-401' | (typeof CATALOGUE_IDS)[keyof typeof CATALOGUE_IDS];

/** The 401 checks and the round trip as reported sub-checks, at their configured levels. */
export function reportedChecks(c: HttpChecks, spec: Pick<HttpSpec, 'checks'>): SubCheckResult[] {
  const at = (id: RefusalCheckId, check: SubCheck | OAuthCheck): SubCheckResult =>
    checkResult(id, levelOf(id, spec.checks), {
      outcome: check.outcome === 'ok' ? 'passed' : check.outcome === 'failed' ? 'failed' : 'skipped',
      // Not judged: the check's own reason (the metadata: no document), else the challenge's (no refusal to judge).
      message: check.outcome === 'n/a' ? check.text || 'not judged: there was no refusal' : check.text,
      short: check.short,
      ...(check.step ? { step: check.step } : {}),
      ...(check.evidence ? { evidence: check.evidence } : {}),
    });
  // The OAuth checks (`auth: 'oauth'` only); their round trip is the one above.
  const oauth = (c.oauth ?? []).filter((o) => o.id !== 'roundTrip').map((o) => at(CATALOGUE_IDS[o.id], o));
  return [
    at('no-token-401', c.noToken),
    at('www-authenticate', c.wwwAuthenticate),
    at('wrong-token-401', c.wrongToken),
    ...oauth,
    ...(c.spec ?? []),
    at('round-trip', c.roundTrip),
  ];
}

/** The 401 checks' requests, for a refusal the negotiated revision names no status for. */
const REFUSED: Record<string, string> = { 'no-token-401': 'a request without a token', 'wrong-token-401': 'a request with a wrong token' };

/**
 * A 401 check the negotiated revision does not have (no authorization section before 2025-03-26), where the server
 * served the request (`status` 2xx): still failed. The config says the endpoint requires a bearer token (`http.auth`);
 * only the 401 status is the later revision's. Cited as the config's rule, not the spec's. Anything else unchanged.
 */
export function servedAnyway(c: SubCheckResult, status: number | undefined, auth: string): SubCheckResult {
  const who = REFUSED[c.id];
  if (c.outcome !== 'not-applicable' || !who || status === undefined || status < 200 || status > 299) return c;
  const step = c.id === 'no-token-401' ? 'request without a token' : 'request with a wrong token';
  return {
    id: c.id,
    outcome: 'failed',
    level: c.level,
    revision: c.revision!,
    message: `${status}: the endpoint served ${who}, but the config says it requires a bearer token (http.auth '${auth}'); MCP ${c.revision} has no authorization section, so no status is required of the refusal`,
    short: `${status} (want a refusal)`,
    step,
    evidence: { ...c.evidence, status, rule: 'http.auth' },
  };
}

/**
 * The 401 checks and the OAuth checks as the message and the HTTP column read them, once judged by the negotiated
 * revision (`reported`): one that revision does not have reads `not applicable (revision X)`, never its finding.
 */
export function asJudged(c: HttpChecks, reported: readonly SubCheckResult[]): HttpChecks {
  const inapplicable = (id: string): SubCheck | undefined => {
    const r = reported.find((x) => x.id === id && (x.outcome === 'not-applicable' || x.evidence?.rule === 'http.auth'));
    if (r?.outcome === 'failed') return { outcome: 'failed', text: r.message, short: r.short!, step: r.step! };
    return r && { outcome: 'n/a', text: `not applicable (revision ${r.revision})`, short: `n/a (${r.revision})` };
  };
  const oauth = c.oauth?.map((o) => {
    const na = o.id === 'roundTrip' ? undefined : inapplicable(CATALOGUE_IDS[o.id]);
    if (na) return { ...o, outcome: 'n/a' as const, text: na.text, short: na.short };
    // A failure's citation (oauth.ts `citation`) names the catalogue's revision: it names the one judged by.
    const def = checkDefinition(CATALOGUE_IDS[o.id]);
    const judged = reported.find((x) => x.id === CATALOGUE_IDS[o.id])?.spec;
    if (!def?.spec || !judged || judged.section !== def.spec.section) return o;
    return { ...o, text: o.text.replace(`${def.spec.revision} ${def.spec.section}`, `${judged.revision} ${judged.section}`) };
  });
  return {
    ...c,
    noToken: inapplicable('no-token-401') ?? c.noToken,
    wwwAuthenticate: inapplicable('www-authenticate') ?? c.wwwAuthenticate,
    wrongToken: inapplicable('wrong-token-401') ?? c.wrongToken,
    ...(oauth ? { oauth } : {}),
  };
}

/**
 * The phase's message: the 401 checks (and OAuth checks) and the round trip as they always read, then
 * every other required check that failed or was not measured. Warnings are not in it: each is shown
 * from `checks` (the table, `## Sub-checks`, JUnit, the terminal), so the message names only what decides.
 */
export function phaseMessage(c: HttpChecks, reported: readonly SubCheckResult[]): string {
  // Those checksMessage already reads out (the 401 checks, the OAuth checks, the round trip).
  const legacy = new Set(['no-token-401', 'www-authenticate', 'wrong-token-401', 'round-trip', ...Object.values(CATALOGUE_IDS)]);
  const decisive = notableChecks(reported.filter((r) => !legacy.has(r.id))).filter((r) => r.level === 'require');
  return [checksMessage(c), ...decisive.map(checkLine)].join('; ');
}
