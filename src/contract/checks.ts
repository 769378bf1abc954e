// The sub-checks a phase reports, in one list: each check's id, its phase, the requirement it tests
// (MUST or SHOULD, the document and section it comes from) and its default level; and the one rule
// that folds a phase's sub-checks into its verdict. Pure data and pure functions, importing types only: the
// driver records checks with it inside a cell, and the harness reads the same list through
// src/contract/checks.ts (the config's names and defaults, the verdict rules, the reports).

import type { CheckLevel, SubCheckResult, Verdict } from '../results/types.js';

/** `require` fails the phase; `warn` is shown and never fails; `off` is not run (recorded as skipped). */
export const CHECK_LEVELS: readonly CheckLevel[] = ['require', 'warn', 'off'];

/** The phases whose results record sub-checks. */
export type CheckPhase = 'stdio' | 'http';

export interface CheckDefinition {
  id: string;
  /** The phase whose config (`<phase>.checks`) sets its level and whose result records it. */
  phase: CheckPhase;
  /** What it proves, one line (docs/config.md, the reports' check table). */
  title: string;
  /** The requirement's strength; absent: the harness's own expectation (e.g. the configured steps). */
  requirement?: 'MUST' | 'SHOULD';
  /** Where the requirement is written: `MCP 2025-11-25` · `basic/transports#security-warning`, `RFC 6750` · `3`. */
  spec?: { revision: string; section: string };
  /**
   * The default level: one level, or one for an endpoint a token guards (`guarded`: any `auth` but
   * `none`) and one for an open endpoint. A MUST defaults to `require`, a SHOULD to `warn`.
   */
  defaultLevel: CheckLevel | { guarded: CheckLevel; open: CheckLevel };
}

const MCP = '2025-11-25';
const transports = (anchor: string) => ({ revision: `MCP ${MCP}`, section: `basic/transports#${anchor}` });
const authorization = (anchor: string) => ({ revision: `MCP ${MCP}`, section: `basic/authorization#${anchor}` });

/**
 * The lifecycle edges (src/driver/lifecycle/checks.ts), the same five in the stdio and the http phase:
 * one definition per phase, identical but for `phase`, so a lookup by id alone reads the same entry.
 */
function lifecycle(phase: CheckPhase): CheckDefinition[] {
  return [
    {
      id: 'unknown-method',
      phase,
      title: 'a request for a method the server does not have gets the JSON-RPC error -32601 (Method not found)',
      requirement: 'MUST',
      spec: { revision: 'JSON-RPC 2.0', section: '5.1' },
      defaultLevel: 'require',
    },
    {
      id: 'unknown-tool',
      phase,
      title: 'a `tools/call` for a tool the server does not list gets an error or an `isError` result (which is recorded)',
      spec: { revision: `MCP ${MCP}`, section: 'server/tools#error-handling' },
      defaultLevel: 'require',
    },
    {
      id: 'invalid-arguments',
      phase,
      title:
        'a configured tool called with arguments its `inputSchema` refuses gets an error or an `isError` result (which is recorded), never a success',
      requirement: 'MUST',
      spec: { revision: `MCP ${MCP}`, section: 'server/tools#security-considerations' },
      defaultLevel: 'require',
    },
    {
      id: 'repeated-initialize',
      phase,
      title:
        'a second `initialize` on the live session while the step marked `slow` is in flight: what the server does is recorded (accepts, errors, closes); the call in flight is answered and the session still answers',
      spec: { revision: `MCP ${MCP}`, section: 'basic/lifecycle#initialization' },
      defaultLevel: 'require',
    },
    {
      id: 'cancellation',
      phase,
      title:
        '`notifications/cancelled` for the step marked `slow` while it runs: the next request is answered and the session closes cleanly; whether the cancelled call was answered or dropped is recorded',
      spec: { revision: `MCP ${MCP}`, section: 'basic/utilities/cancellation' },
      defaultLevel: 'require',
    },
  ];
}

/** Every known sub-check, in the order they are reported. Other phases' checks join this list. */
export const CHECKS: readonly CheckDefinition[] = [
  {
    id: 'session',
    phase: 'stdio',
    title: 'initialize, every list and `expect`, every step, ping, and nothing but JSON-RPC on stdout',
    defaultLevel: 'require',
  },
  ...lifecycle('stdio'),
  {
    id: 'no-token-401',
    phase: 'http',
    title: 'a request without a token gets 401',
    requirement: 'MUST',
    spec: authorization('error-handling'),
    defaultLevel: 'require',
  },
  {
    id: 'www-authenticate',
    phase: 'http',
    title: 'that 401 carries `WWW-Authenticate: Bearer`',
    requirement: 'MUST',
    spec: { revision: 'RFC 6750', section: '3' },
    defaultLevel: 'require',
  },
  {
    id: 'wrong-token-401',
    phase: 'http',
    title: 'a request with a wrong token gets 401',
    requirement: 'MUST',
    spec: authorization('token-handling'),
    defaultLevel: 'require',
  },
  {
    id: 'token-in-header',
    phase: 'http',
    title: 'the right token in the query string (`?access_token=`) without `Authorization` gets 401',
    requirement: 'MUST',
    spec: authorization('token-requirements'),
    defaultLevel: 'require',
  },
  {
    id: 'origin',
    phase: 'http',
    title:
      'a foreign `Origin` is refused: with 403 when the server negotiates MCP 2025-11-25 or later, with any 4xx or a closed connection under an earlier revision (the check records the revision it judged by); no `Origin` and a loopback `Origin` are served',
    requirement: 'MUST',
    spec: transports('security-warning'),
    defaultLevel: { guarded: 'warn', open: 'require' },
  },
  {
    id: 'host',
    phase: 'http',
    title: 'a foreign `Host` (DNS rebinding) is refused with a 4xx',
    requirement: 'MUST',
    spec: transports('security-warning'),
    defaultLevel: { guarded: 'warn', open: 'require' },
  },
  {
    id: 'protocol-version',
    phase: 'http',
    title: 'an unsupported `MCP-Protocol-Version` gets 400; the negotiated one is served',
    requirement: 'MUST',
    spec: transports('protocol-version-header'),
    defaultLevel: 'require',
  },
  {
    id: 'session-id-visible-ascii',
    phase: 'http',
    title: 'an issued `Mcp-Session-Id` holds visible ASCII only (0x21 to 0x7E)',
    requirement: 'MUST',
    spec: transports('session-management'),
    defaultLevel: 'require',
  },
  {
    id: 'session-id-distinct',
    phase: 'http',
    title: 'two sessions get different `Mcp-Session-Id`s',
    requirement: 'SHOULD',
    spec: transports('session-management'),
    defaultLevel: 'warn',
  },
  {
    id: 'session-required',
    phase: 'http',
    title: 'a request other than initialize without `Mcp-Session-Id` gets 400',
    requirement: 'SHOULD',
    spec: transports('session-management'),
    defaultLevel: 'warn',
  },
  {
    id: 'session-ended-404',
    phase: 'http',
    title: 'after DELETE ends the session, its `Mcp-Session-Id` gets 404',
    requirement: 'MUST',
    spec: transports('session-management'),
    defaultLevel: 'require',
  },
  // `auth: 'oauth'` only (src/driver/http/oauth.ts): recorded for a resource server, absent otherwise.
  {
    id: 'oauth-discovery',
    phase: 'http',
    title: 'the 401 challenge names `resource_metadata`, or the well-known URI serves the Protected Resource Metadata',
    requirement: 'MUST',
    spec: authorization('authorization-server-location'),
    defaultLevel: 'require',
  },
  {
    id: 'oauth-metadata',
    phase: 'http',
    title: 'the Protected Resource Metadata (RFC 9728) has `resource` naming this server and `authorization_servers` naming the issuer',
    requirement: 'MUST',
    spec: authorization('authorization-server-location'),
    defaultLevel: 'require',
  },
  {
    id: 'oauth-audience',
    phase: 'http',
    title: 'a token for another audience gets 401 (RFC 8707)',
    requirement: 'MUST',
    spec: authorization('token-audience-binding-and-validation'),
    defaultLevel: 'require',
  },
  {
    id: 'oauth-expired',
    phase: 'http',
    title: 'an expired token gets 401',
    requirement: 'MUST',
    spec: authorization('error-handling'),
    defaultLevel: 'require',
  },
  {
    id: 'oauth-other-key',
    phase: 'http',
    title: 'a token signed by another key gets 401',
    requirement: 'MUST',
    spec: authorization('token-handling'),
    defaultLevel: 'require',
  },
  {
    id: 'oauth-alg-none',
    phase: 'http',
    title: 'an unsigned token (`alg: none`) gets 401',
    requirement: 'MUST',
    spec: authorization('token-handling'),
    defaultLevel: 'require',
  },
  {
    id: 'round-trip',
    phase: 'http',
    title: 'initialize, tools/list, the first tool step, ping and DELETE with the right token',
    defaultLevel: 'require',
  },
  ...lifecycle('http'),
];

export function checkDefinition(id: string): CheckDefinition | undefined {
  return CHECKS.find((c) => c.id === id);
}

/** The ids of one phase's checks, in report order. */
export function checkIds(phase: CheckDefinition['phase']): string[] {
  return CHECKS.filter((c) => c.phase === phase).map((c) => c.id);
}

/** A check's level when the config does not set it; `auth` is the phase's `http.auth`. */
export function defaultLevel(def: CheckDefinition, auth: string): CheckLevel {
  const d = def.defaultLevel;
  return typeof d === 'string' ? d : auth === 'none' ? d.open : d.guarded;
}

/**
 * The verdict a phase's sub-checks fold to (the rule verdict.ts audits stored files with): `failed`
 * when a `require` check failed; `not-measured` when a `require` check could not be measured; else
 * `passed` when any check ran, `skipped` when none did. A `warn` check never changes the verdict.
 */
export function decidePhase(checks: readonly Pick<SubCheckResult, 'level' | 'outcome'>[]): Verdict {
  const required = checks.filter((c) => c.level === 'require');
  if (required.some((c) => c.outcome === 'failed')) return 'failed';
  if (required.some((c) => c.outcome === 'not-measured')) return 'not-measured';
  return checks.some((c) => c.outcome !== 'skipped') ? 'passed' : 'skipped';
}

/** The requirement a check comes from, for messages: `MUST, MCP 2025-11-25 basic/transports#…, level require`. */
export function checkSource(c: Pick<SubCheckResult, 'requirement' | 'spec' | 'level'>): string {
  const what = c.requirement ? `${c.requirement}${c.spec ? `, ${c.spec.revision} ${c.spec.section}` : ''}` : 'harness';
  return `${what}, level ${c.level}`;
}

/** One check as a line: `origin: a foreign Origin got 200 (want 403) [MUST, MCP 2025-11-25 …, level require]`. */
export function checkLine(c: SubCheckResult): string {
  return `${c.id}: ${c.message} [${checkSource(c)}]`;
}

/** The checks a reader must see: those that failed or were not measured, at level require or warn. */
export function notableChecks(checks: readonly SubCheckResult[]): SubCheckResult[] {
  return checks.filter((c) => c.level !== 'off' && (c.outcome === 'failed' || c.outcome === 'not-measured'));
}

/**
 * What a check saw, before its catalogue entry and level are attached. `spec`: the revision it was judged by, when
 * the server's own negotiated revision decides it (origin), instead of the catalogue's.
 */
export type CheckFinding = Pick<SubCheckResult, 'outcome' | 'message'> &
  Partial<Pick<SubCheckResult, 'short' | 'step' | 'evidence' | 'spec'>>;

/** The level a phase runs a check at: the configured one, else the catalogue default for this `auth`. */
export function levelOf(id: string, levels: Readonly<Record<string, CheckLevel>> | undefined, auth: string): CheckLevel {
  const def = checkDefinition(id);
  if (!def) throw new Error(`unknown sub-check "${id}" (not in src/contract/checks.ts)`);
  return levels?.[id] ?? defaultLevel(def, auth);
}

/** A check's reported result: the finding with its level, requirement and spec; an `off` check is recorded as skipped. */
export function checkResult(id: string, level: CheckLevel, finding: CheckFinding): SubCheckResult {
  const def = checkDefinition(id);
  if (!def) throw new Error(`unknown sub-check "${id}" (not in src/contract/checks.ts)`);
  const seen: CheckFinding = level === 'off' ? { outcome: 'skipped', message: 'off in the config (not run)', short: 'off' } : finding;
  const spec = seen.spec ?? def.spec;
  return {
    id,
    outcome: seen.outcome,
    level,
    ...(def.requirement ? { requirement: def.requirement } : {}),
    ...(spec ? { spec } : {}),
    message: seen.message,
    ...(seen.short !== undefined ? { short: seen.short } : {}),
    ...(seen.step !== undefined ? { step: seen.step } : {}),
    ...(seen.evidence !== undefined ? { evidence: seen.evidence } : {}),
  };
}
