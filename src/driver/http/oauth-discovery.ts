// OAuth discovery for the http phase's resource-server checks: the challenge's parameters, Protected Resource
// Metadata (RFC 9728) fetched with redirects kept within the origin, and the test tokens from the harness's
// local authorization server. What it finds is judged in oauth.ts.

import type { TestTokens } from '../../contract/protocol.js';
import { StepTimeout } from '../context.js';
import { verdictTimer } from '../timer-verdict.js';

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
  const timer = verdictTimer(() => controller.abort(new StepTimeout(timeoutMs, `an answer from ${url}`)), timeoutMs);
  try {
    return await fetch(url, { ...init, signal: controller.signal, redirect: 'manual' });
  } finally {
    timer.clear();
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
