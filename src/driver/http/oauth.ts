// The judges of the http phase's OAuth resource-server sub-checks (`http.auth: 'oauth'`): MCP 2025-11-25
// basic/authorization, RFC 9728 and RFC 8707. They judge what oauth-discovery.ts found and what the server
// answered; a token endpoint that cannot be reached is the harness's problem, never a finding.

import { checkDefinition } from '../../contract/checks.js';
import type { Discovery } from './oauth-discovery.js';
import { NoAnswer } from './raw-http.js';

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
export const CATALOGUE_IDS = {
  discovery: 'oauth-discovery',
  metadata: 'oauth-metadata',
  audience: 'oauth-audience',
  expired: 'oauth-expired',
  otherKey: 'oauth-other-key',
  algNone: 'oauth-alg-none',
  roundTrip: 'round-trip',
} as const satisfies Record<OAuthCheckId, string>;

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
export function refusalCheck(id: 'audience' | 'expired' | 'otherKey' | 'algNone', status: number | NoAnswer): OAuthCheck {
  if (status instanceof NoAnswer) return check(id, 'failed', `no answer (${status.message})`, 'no answer');
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
