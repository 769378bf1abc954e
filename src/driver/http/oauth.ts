// The OAuth resource-server sub-checks of the http phase (`http.auth: 'oauth'`), from the 2025-11-25
// revision of the MCP spec (basic/authorization), RFC 9728 (Protected Resource Metadata) and RFC 8707
// (resource indicators: the audience). The tokens come from the harness's local authorization server
// (src/cells/authorization-server.ts), asked over loopback: the driver has no JWT library of its own.
// Everything here judges what the server answered; a token endpoint that cannot be reached is the
// harness's problem, returned as such, never a finding.

import { checkDefinition } from '../../contract/checks.js';
import { StepTimeout } from '../context.js';

/**
 * What each OAuth sub-check requires, in a few words, with the RFC it rests on; its level (MUST) and where
 * the MCP spec writes it come from the one catalogue of sub-checks (checks.ts, by `CATALOGUE_IDS`).
 */
export const OAUTH_REQUIREMENTS = {
  discovery:
    'a server MUST name its Protected Resource Metadata: `resource_metadata` in the 401 `WWW-Authenticate: Bearer` challenge, or the document at the well-known URI (RFC 9728 §3, §5.1)',
  // RFC 9728 §3.3 asks for a `resource` identical to the resource the client asked about; the check accepts what the
  // SDK clients accept (checkResourceAllowed), and says so. `authorization_servers` is optional in RFC 9728, MCP's MUST.
  metadata:
    "the Protected Resource Metadata MUST have `resource` naming this server (RFC 9728 §3.3: a client MUST NOT use metadata whose `resource` is not identical to the resource it asked about; judged as the SDK clients judge it: the same origin as the endpoint, whose path is `resource`'s path or under it, trailing slashes aside) and `authorization_servers` naming its authorization server (MUST in MCP; optional in RFC 9728 §2)",
  audience: 'a server MUST validate that an access token was issued for it as the intended audience (RFC 8707 §2)',
  expired: 'an expired token MUST receive HTTP 401',
  otherKey: 'an invalid token (signature not by the authorization server) MUST receive HTTP 401 (OAuth 2.1 §5.2)',
  algNone: 'an invalid token (unsigned, `alg: none`) MUST receive HTTP 401 (OAuth 2.1 §5.2)',
  roundTrip: 'a valid token for this server, sent in the Authorization header, MUST be accepted',
} as const;

export type OAuthCheckId = keyof typeof OAUTH_REQUIREMENTS;

import type { TestTokens } from '../../contract/protocol.js';

export type { TestTokens };

/** The list's items, split at commas outside quoted strings. */
function listItems(header: string): string[] {
  const items: string[] = [];
  let item = '';
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i]!;
    if (quoted && ch === '\\') item += ch + (header[++i] ?? '');
    else if (ch === ',' && !quoted) {
      items.push(item.trim());
      item = '';
    } else {
      if (ch === '"') quoted = !quoted;
      item += ch;
    }
  }
  return [...items, item.trim()].filter(Boolean);
}

/**
 * The auth-params of the `Bearer` challenge, wherever it stands: a 401 may carry several challenges, in several
 * `WWW-Authenticate` lines (which fetch joins with `, `) or one list (RFC 7235 §4.1), e.g. `Basic realm="x",
 * Bearer resource_metadata="…"`. An item that starts a challenge is a scheme token not followed by `=`; the
 * others are parameters of the challenge before them. Undefined: no Bearer challenge.
 */
export function bearerParams(header: string | null): string[] | undefined {
  let params: string[] | undefined;
  let inBearer = false;
  for (const item of listItems(header ?? '')) {
    const scheme = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s+(.*))?$/s.exec(item);
    if (scheme && !/^[^\s=]+\s*=/.test(item)) {
      if (params) return params; // the Bearer challenge ended where the next one begins
      inBearer = scheme[1]!.toLowerCase() === 'bearer';
      if (inBearer) params = scheme[2] ? [scheme[2]] : [];
    } else if (inBearer) params!.push(item);
  }
  return params;
}

/** `resource_metadata="…"` from a `WWW-Authenticate: Bearer` challenge, if any. */
export function resourceMetadataParam(header: string | null): string | undefined {
  // Each name=value in turn (a quoted value is consumed whole, so a name inside one is not a parameter);
  // space-separated ones are read too, as lenient clients do.
  for (const param of bearerParams(header) ?? []) {
    for (const m of param.matchAll(/([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s"]+))/g)) {
      if (m[1]!.toLowerCase() === 'resource_metadata') return m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
    }
  }
  return undefined;
}

/**
 * RFC 9728 §3.1: the well-known URI with the resource's path inserted after
 * `/.well-known/oauth-protected-resource` (`/mcp` → `/.well-known/oauth-protected-resource/mcp`),
 * then the root form that many servers serve.
 */
export function wellKnownUrls(resource: string): string[] {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const base = `${url.origin}/.well-known/oauth-protected-resource`;
  return path ? [`${base}${path}`, base] : [base];
}

async function timedFetch(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new StepTimeout(timeoutMs, `an answer from ${url}`)), timeoutMs);
  try {
    return await fetch(url, { ...init, signal: controller.signal, redirect: 'manual' });
  } finally {
    clearTimeout(timer);
  }
}

/** The harness's tokens for `audience`; an Error is the harness's (not-measured), never the server's. */
export async function fetchTokens(tokensUrl: string, key: string, audience: string, timeoutMs: number): Promise<TestTokens | Error> {
  try {
    const res = await timedFetch(
      tokensUrl,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ audience, key }) },
      timeoutMs,
    );
    if (!res.ok) return new Error(`the local authorization server answered ${res.status} to the driver's token request`);
    return (await res.json()) as TestTokens;
  } catch (error) {
    return new Error(
      `the local authorization server did not answer the driver's token request: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** What the discovery step found: the metadata document (parsed) and where. */
export interface Discovery {
  /** From the challenge's `resource_metadata`, or the well-known URI that answered. */
  via: 'challenge' | 'well-known' | 'none';
  url?: string;
  /** The parsed document, or why it could not be read. */
  document?: Record<string, unknown>;
  problem?: string;
  /** Each URL tried, with what it answered. */
  tried: { url: string; status: number | string }[];
}

/** How many redirects within the origin a metadata request follows: the SDK client's own bound (fetchWithinOrigin). */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Where a redirect answer points when it stays within `from`'s origin (scheme, host, port); else undefined. */
function redirectWithinOrigin(res: Response, from: string): string | undefined {
  const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
  if (!location) return undefined;
  try {
    const to = new URL(location, from);
    return to.origin === new URL(from).origin && !to.username && !to.password ? to.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * GET `url`, following redirects within its origin as the SDK's client does (a trailing-slash rule is one), each hop
 * recorded in `tried`; a redirect to another origin is its own answer. The final URL and what it answered, or null
 * when a hop got no answer (recorded with its error).
 */
async function getFollowing(
  url: string,
  timeoutMs: number,
  tried: Discovery['tried'],
): Promise<{ url: string; res: Response; body: string } | null> {
  for (let hop = 0; ; hop++) {
    try {
      const res = await timedFetch(url, { headers: { accept: 'application/json' } }, timeoutMs);
      const body = await res.text();
      tried.push({ url, status: res.status });
      const next = hop < MAX_REDIRECTS ? redirectWithinOrigin(res, url) : undefined;
      if (!next) return { url, res, body };
      url = next;
    } catch (error) {
      tried.push({ url, status: error instanceof Error ? error.message : String(error) });
      return null;
    }
  }
}

/** Reads the Protected Resource Metadata: first where the challenge points, else at the well-known URIs. */
export async function discover(resource: string, challenge: string | null, timeoutMs: number): Promise<Discovery> {
  const tried: Discovery['tried'] = [];
  const named = resourceMetadataParam(challenge);
  const candidates: { url: string; via: 'challenge' | 'well-known' }[] = [
    ...(named ? [{ url: named, via: 'challenge' as const }] : []),
    ...wellKnownUrls(resource).map((url) => ({ url, via: 'well-known' as const })),
  ];
  let firstProblem: { url: string; via: 'challenge' | 'well-known'; problem: string } | undefined;
  for (const { url: candidate, via } of candidates) {
    const got = await getFollowing(candidate, timeoutMs, tried);
    if (!got || got.res.status !== 200) continue;
    const { url, body } = got;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      firstProblem ??= { url, via, problem: `${url} answered 200 but not JSON` };
      continue;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      firstProblem ??= { url, via, problem: `${url} answered 200 but not a JSON object` };
      continue;
    }
    return { via, url, document: parsed as Record<string, unknown>, tried };
  }
  if (firstProblem) return { via: firstProblem.via, url: firstProblem.url, problem: firstProblem.problem, tried };
  return { via: 'none', tried };
}

/** One judged OAuth sub-check. */
export interface OAuthCheck {
  id: OAuthCheckId;
  /** `not run`: the server had exited before its request was answered (`text` says so, http-exit.ts). */
  outcome: 'ok' | 'failed' | 'n/a' | 'not run';
  /** What was seen, for the message. */
  text: string;
  /** For the table cell. */
  short: string;
  /** The step to name when it is the first that failed. */
  step: string;
  /** `{ exited: 'code 7' }` on the check that met the server's exit. */
  evidence?: Record<string, unknown>;
}

const STEPS: Record<OAuthCheckId, string> = {
  discovery: 'protected resource metadata discovery',
  metadata: 'protected resource metadata',
  audience: 'token for another audience',
  expired: 'expired token',
  otherKey: 'token signed by another key',
  algNone: 'unsigned token (alg none)',
  roundTrip: 'round trip',
};

const LABELS: Record<OAuthCheckId, string> = {
  discovery: 'metadata discovery',
  metadata: 'metadata',
  audience: 'other audience',
  expired: 'expired token',
  otherKey: 'other key',
  algNone: 'alg none',
  roundTrip: 'round trip',
};

export const oauthStep = (id: OAuthCheckId): string => STEPS[id];
export const oauthLabel = (id: OAuthCheckId): string => LABELS[id];

/** The catalogue's id of each OAuth sub-check (checks.ts): its level, revision and section live there. */
export const CATALOGUE_IDS: Record<OAuthCheckId, string> = {
  discovery: 'oauth-discovery',
  metadata: 'oauth-metadata',
  audience: 'oauth-audience',
  expired: 'oauth-expired',
  otherKey: 'oauth-other-key',
  algNone: 'oauth-alg-none',
  roundTrip: 'round-trip',
};

/** `MUST, MCP 2025-11-25 basic/authorization#token-audience-binding-and-validation: a server MUST … (RFC 8707 §2)`: what a failure cites. */
export function citation(id: OAuthCheckId): string {
  const def = checkDefinition(CATALOGUE_IDS[id]);
  // The round trip is the harness's own check (no requirement in the catalogue): its words only.
  if (!def?.requirement || !def.spec) return OAUTH_REQUIREMENTS[id];
  return `${def.requirement}, ${def.spec.revision} ${def.spec.section}: ${OAUTH_REQUIREMENTS[id]}`;
}

const check = (id: OAuthCheckId, outcome: OAuthCheck['outcome'], text: string, short: string): OAuthCheck => ({
  id,
  outcome,
  text: outcome === 'failed' ? `${text} (${citation(id)})` : text,
  short,
  step: STEPS[id],
});

/** The discovery sub-check: the challenge names the metadata, or the well-known URI serves it. */
export function discoveryCheck(d: Discovery): OAuthCheck {
  if (d.document) {
    return check(
      'discovery',
      'ok',
      d.via === 'challenge' ? 'named by resource_metadata' : `served at ${d.url}`,
      d.via === 'challenge' ? 'resource_metadata' : 'well-known',
    );
  }
  const tried = d.tried.map((t) => `${t.url} → ${t.status}`).join(', ');
  const why = d.problem ?? `no resource_metadata in the 401 challenge, and no metadata at ${tried || 'the well-known URI'}`;
  return check('discovery', 'failed', why, 'no metadata');
}

const normalize = (u: string): string => u.replace(/\/+$/, '');

/**
 * Whether `resource` identifies the server reached at `url`: the same origin, and the URL's path is the
 * resource's or under it, trailing slashes aside (what the SDK's client accepts, checkResourceAllowed).
 */
export function resourceNames(resource: string, url: string): boolean {
  try {
    const r = new URL(resource);
    const u = new URL(url);
    const rp = normalize(r.pathname);
    const up = normalize(u.pathname);
    return r.origin === u.origin && (up === rp || up.startsWith(`${rp}/`));
  } catch {
    return false;
  }
}

/**
 * The document's `resource` (naming this server: one of `identities`, its URL and its configured audience, when
 * given) and `authorization_servers` (naming the harness's issuer); not judged without one. A client refuses
 * metadata whose `resource` is another server's (RFC 9728 §3.3).
 */
export function metadataCheck(d: Discovery, issuer: string, identities: readonly string[] = []): OAuthCheck {
  const doc = d.document;
  if (!doc) return check('metadata', 'n/a', 'not judged (no metadata document)', 'n/a');
  const problems: string[] = [];
  if (typeof doc.resource !== 'string' || doc.resource === '') problems.push('no `resource`');
  else if (identities.length && !identities.some((url) => resourceNames(doc.resource as string, url)))
    problems.push(`\`resource\` ${JSON.stringify(doc.resource)} that does not name this server (${[...new Set(identities)].join(' or ')})`);
  const servers = doc.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0) problems.push('no `authorization_servers`');
  else if (!servers.some((s) => typeof s === 'string' && normalize(s) === normalize(issuer))) {
    problems.push(`\`authorization_servers\` ${JSON.stringify(servers)} does not name the issuer ${issuer}`);
  }
  if (problems.length) return check('metadata', 'failed', `the metadata has ${problems.join(', ')}`, problems.join(', '));
  return check('metadata', 'ok', `resource ${JSON.stringify(doc.resource)}, authorization_servers names the issuer`, 'ok');
}

/** A token that must be refused: exactly 401. */
export function refusalCheck(id: 'audience' | 'expired' | 'otherKey' | 'algNone', status: number | Error): OAuthCheck {
  if (status instanceof Error) return check(id, 'failed', `no answer (${status.message})`, 'no answer');
  if (status === 401) return check(id, 'ok', '401', '401');
  const accepted = status >= 200 && status < 300;
  const what: Record<typeof id, string> = {
    audience: 'a token for another audience is accepted',
    expired: 'an expired token is accepted',
    otherKey: 'a token signed by another key is accepted',
    algNone: 'an unsigned (alg none) token is accepted',
  };
  return check(id, 'failed', accepted ? `${status} (want 401: ${what[id]})` : `${status} (want 401)`, `${status} (want 401)`);
}

/** The round trip with the valid token, as the bearer round trip reports it. */
export function roundTripOAuthCheck(outcome: 'ok' | 'failed', text: string, short: string): OAuthCheck {
  return check('roundTrip', outcome, text, short);
}
