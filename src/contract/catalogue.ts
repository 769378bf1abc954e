// Every known sub-check, in report order, with the spec text that makes it a MUST or SHOULD and its history
// across MCP revisions. Pure data: the driver ships it into each cell, the harness reads the same list.

import type { CheckDefinition, CheckPhase } from './check-definition.js';

/** The MCP revisions, oldest first (their dated names sort in time order). */
export const MCP_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

const MCP = '2025-11-25';
/** Requirements of the Streamable HTTP session (2025-03-26 to 2025-11-25; 2026-07-28 removed protocol-level sessions). */
const SESSIONS = { since: '2025-03-26', until: '2026-07-28', what: 'Streamable HTTP sessions (Mcp-Session-Id)' };
/** basic/authorization arrived in 2025-03-26: 2024-11-05 has no authorization section. */
const AUTHORIZATION = { since: '2025-03-26', what: 'authorization section (basic/authorization)' };
/** RFC 9728 Protected Resource Metadata and audience binding arrived in 2025-06-18 (2025-03-26 used RFC 8414 at the server). */
const RESOURCE_SERVER = { since: '2025-06-18', what: 'OAuth resource-server rules (RFC 9728 metadata, audience binding)' };
/** A section the lifecycle edges cite: in every revision since the first. */
const EVERY = { since: '2024-11-05', what: 'this section' };
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
      revisions: EVERY,
      defaultLevel: 'require',
      policy:
        'the section names the two ways to report an error, without a keyword: a success for a tool that does not exist is a false answer',
    },
    {
      id: 'invalid-arguments',
      phase,
      title:
        'a configured tool called with arguments its `inputSchema` refuses gets an error or an `isError` result (which is recorded), never a success',
      requirement: 'MUST',
      spec: { revision: `MCP ${MCP}`, section: 'server/tools#security-considerations' },
      revisions: EVERY,
      defaultLevel: 'require',
    },
    {
      id: 'repeated-initialize',
      phase,
      title:
        'a second `initialize` on the live session while the step marked `slow` is in flight: what the server does is recorded (accepts, errors, closes); the call in flight is answered and the session still answers',
      spec: { revision: `MCP ${MCP}`, section: 'basic/lifecycle#initialization' },
      revisions: EVERY,
      defaultLevel: 'require',
      policy: 'the spec says nothing of a second initialize; the harness requires only that the session survives it',
    },
    {
      id: 'cancellation',
      phase,
      title:
        '`notifications/cancelled` for the step marked `slow` while it runs: the next request is answered and the session closes cleanly; whether the cancelled call was answered or dropped is recorded',
      spec: { revision: `MCP ${MCP}`, section: 'basic/utilities/cancellation' },
      revisions: EVERY,
      defaultLevel: 'require',
      policy:
        'receivers MAY ignore a cancellation and MUST handle its races gracefully; the harness requires that the session survives it and records what the server did',
    },
  ];
}

/** Every known sub-check, in the order they are reported. Other phases' checks join this list. */
export const CHECKS: readonly CheckDefinition[] = [
  // The harness's own (src/judge/environment/undeclared-imports.ts), after npm's docs on what each field is for
  // (docs.npmjs.com/specifying-dependencies-and-devdependencies-in-a-package-json-file): devDependencies are not for users.
  {
    id: 'undeclared-imports',
    phase: 'environment',
    title:
      "every package that the package's own files import on the start path (static `import`, `export … from` and `require()` in the files `bin`, `main` and `exports` reach through static imports) is declared in `dependencies`, `peerDependencies` or `optionalDependencies` (Node builtins and self-references aside): npm's flat `node_modules` hides an undeclared one that a dependency brought along, a strict install (pnpm without hoisting, Yarn PnP) cannot resolve it",
    defaultLevel: 'require',
    policy:
      'npm\'s docs call "dependencies" "Packages required by your application in production" and "devDependencies" "Packages that are only needed for local development and testing"; under a strict install the server cannot start without an import on its start path',
  },
  {
    id: 'undeclared-dynamic-imports',
    phase: 'environment',
    title:
      'every package loaded by `import()`, by a `require()` inside `try`, by `require.resolve()`, or in a file only `import()` reaches, is declared likewise',
    defaultLevel: 'warn',
    policy: 'warn: such a load may be optional or on a path the server never takes; a missing one fails only when that path runs',
  },
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
    revisions: AUTHORIZATION,
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
    revisions: AUTHORIZATION,
    defaultLevel: 'require',
  },
  {
    id: 'token-in-header',
    phase: 'http',
    title: 'the right token in the query string (`?access_token=`) without `Authorization` gets 401',
    requirement: 'MUST',
    spec: authorization('token-requirements'),
    revisions: AUTHORIZATION,
    defaultLevel: 'require',
    policy:
      'the MUST NOT binds the request (a token must not travel in the query string); the harness requires the server to refuse one, so a client that breaks it is not served',
  },
  {
    id: 'origin',
    phase: 'http',
    title:
      'a foreign `Origin` is refused: with 403 when the server negotiates MCP 2025-11-25 or later, with any 4xx or a closed connection under an earlier revision (the check records the revision it judged by); no `Origin` and a loopback `Origin` are served',
    requirement: 'MUST',
    spec: transports('security-warning'),
    revisions: {
      since: '2024-11-05',
      what: 'Origin validation',
      changes: [{ revision: '2025-11-25', text: 'an invalid Origin MUST get 403 Forbidden (before: any refusal)' }],
    },
    defaultLevel: { guarded: 'warn', open: 'require' },
    policy: 'behind a token, warn: a cross-origin page cannot attach the Authorization header, so a rebound page gets the 401 anyway',
  },
  {
    id: 'host',
    phase: 'http',
    title: 'a foreign `Host` (DNS rebinding) is refused with a 4xx',
    // No MCP revision requires it: the SDK's own DNS-rebinding defence, on by default since 1.24.0.
    requirement: 'SDK default',
    spec: { revision: 'TypeScript SDK 1.24.0', section: 'GHSA-w48q-cv73-mx4w' },
    defaultLevel: 'warn',
    policy: "not a spec requirement, so a warning by default; `http.checks: { host: 'require' }` makes it fail the phase",
  },
  {
    id: 'protocol-version',
    phase: 'http',
    title: 'an unsupported `MCP-Protocol-Version` gets 400; the negotiated one is served',
    requirement: 'MUST',
    spec: transports('protocol-version-header'),
    revisions: { since: '2025-06-18', what: 'MCP-Protocol-Version header' },
    defaultLevel: 'require',
  },
  {
    id: 'session-id-visible-ascii',
    phase: 'http',
    title: 'an issued `Mcp-Session-Id` holds visible ASCII only (0x21 to 0x7E)',
    requirement: 'MUST',
    spec: transports('session-management'),
    revisions: SESSIONS,
    defaultLevel: 'require',
  },
  {
    id: 'session-id-distinct',
    phase: 'http',
    title: 'two sessions get different `Mcp-Session-Id`s',
    requirement: 'SHOULD',
    spec: transports('session-management'),
    revisions: SESSIONS,
    defaultLevel: 'warn',
  },
  {
    id: 'session-required',
    phase: 'http',
    title: 'a request other than initialize without `Mcp-Session-Id` gets 400',
    requirement: 'SHOULD',
    spec: transports('session-management'),
    revisions: SESSIONS,
    defaultLevel: 'warn',
  },
  {
    id: 'session-ended-404',
    phase: 'http',
    title: 'after DELETE ends the session, its `Mcp-Session-Id` gets 404',
    requirement: 'MUST',
    spec: transports('session-management'),
    revisions: SESSIONS,
    defaultLevel: 'require',
  },
  // `auth: 'oauth'` only (src/driver/http/oauth.ts): recorded for a resource server, absent otherwise.
  {
    id: 'oauth-discovery',
    phase: 'http',
    title: 'the 401 challenge names `resource_metadata`, or the well-known URI serves the Protected Resource Metadata',
    requirement: 'MUST',
    spec: authorization('authorization-server-location'),
    revisions: RESOURCE_SERVER,
    defaultLevel: 'require',
  },
  {
    id: 'oauth-metadata',
    phase: 'http',
    title: 'the Protected Resource Metadata (RFC 9728) has `resource` naming this server and `authorization_servers` naming the issuer',
    requirement: 'MUST',
    spec: authorization('authorization-server-location'),
    revisions: RESOURCE_SERVER,
    defaultLevel: 'require',
  },
  {
    id: 'oauth-audience',
    phase: 'http',
    title: 'a token for another audience gets 401 (RFC 8707)',
    requirement: 'MUST',
    spec: authorization('token-audience-binding-and-validation'),
    revisions: RESOURCE_SERVER,
    defaultLevel: 'require',
  },
  {
    id: 'oauth-expired',
    phase: 'http',
    title: 'an expired token gets 401',
    requirement: 'MUST',
    spec: authorization('error-handling'),
    revisions: AUTHORIZATION,
    defaultLevel: 'require',
  },
  {
    id: 'oauth-other-key',
    phase: 'http',
    title: 'a token signed by another key gets 401',
    requirement: 'MUST',
    spec: authorization('token-handling'),
    revisions: AUTHORIZATION,
    defaultLevel: 'require',
  },
  {
    id: 'oauth-alg-none',
    phase: 'http',
    title: 'an unsigned token (`alg: none`) gets 401',
    requirement: 'MUST',
    spec: authorization('token-handling'),
    revisions: AUTHORIZATION,
    defaultLevel: 'require',
  },
  {
    id: 'round-trip',
    phase: 'http',
    title: 'initialize, tools/list, the first tool step, ping and DELETE with the right token',
    defaultLevel: 'require',
  },
  ...lifecycle('http'),
  {
    id: 'shutdown',
    phase: 'leaks',
    title:
      "every server exits by itself within `leaks.graceMs` (stdio: after stdin EOF; http: after SIGTERM), leaves no process behind, and the driver's own client leaves no handle",
    defaultLevel: 'require',
  },
  {
    id: 'temp-files',
    phase: 'leaks',
    title:
      'a server leaves nothing in its own temporary directory (TMPDIR, TMP, TEMP and the XDG base directories point inside the cell for every start; what is left is listed, then removed with the cell)',
    policy: 'warn: what a server leaves in its own temporary directory is listed, and the cell removes it (issue 32)',
    defaultLevel: 'warn',
  },
];
