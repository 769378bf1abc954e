// MCP servers published on npm, at pinned versions, through the real CLI with the configs under examples/.
// Each expectation below is the ground truth established WITHOUT mcp-matrix (examples/<name>/GROUND-TRUTH.md:
// the plain SDK client in examples/_truth/probe.mjs, curl, ss, stdin EOF and SIGTERM by hand). Messages are
// matched on the facts they must state; a wrong verdict is never asserted.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findPhase,
  type CellResult,
  type CellSummary,
  type PhaseName,
  type PhaseResultOf,
  type RunResult,
  type Verdict,
} from '../../src/results/types.js';
import { cli, readResults, type CliOutcome } from './helpers/cli.js';
import { processesMentioning } from './helpers/procs.js';
import { publishedTarball } from './helpers/published.js';

interface PhaseTruth {
  verdict: Verdict;
  /** Matched against the phase's message; phrased on the facts, not on today's exact wording. */
  message?: RegExp;
  step?: string;
}

interface Published {
  /** Folder under examples/. */
  example: string;
  spec: string;
  /** dist.integrity from the registry: the bytes under test are the published ones. */
  integrity: string;
  kind: string;
  exit: number;
  /** Extra environment for the CLI run (`MCP_MATRIX_CONFORMANCE: 'on'` where the suite is the subject). */
  env?: Record<string, string>;
  cells: Record<string, { phases: Record<PhaseName, PhaseTruth>; summary: Partial<CellSummary> }>;
  extra?(r: RunResult): void;
}

const SKIPPED: PhaseTruth = { verdict: 'skipped' };
const PASSED: PhaseTruth = { verdict: 'passed' };

/**
 * Truth (examples/_truth/spec.sh, curl): with no token, a foreign Origin and a foreign Host are both served (200). Only
 * Origin is a spec MUST; the Host check (the SDK's default, not the spec's) warns, so it is not in the message.
 */
const ORIGIN_HOST_SERVED =
  'origin: a foreign Origin \\(http:\\/\\/evil\\.example\\) got 200 \\(want 403: the server does not validate Origin \\(DNS rebinding\\); judged by MCP 2025-11-25, the revision it negotiated\\) \\[MUST, MCP 2025-11-25 basic\\/transports#security-warning, level require\\]';
/** Truth (spec.sh, curl): after DELETE (200), a request with the deleted session's ID gets 400, not 404. */
const SESSION_400_AFTER_DELETE =
  "session-ended-404: after DELETE \\(200\\) a request with the ended session's ID got 400 \\(want 404\\) \\[MUST, MCP 2025-11-25 basic\\/transports#session-management, level require\\]";

const MEMORY_SUMMARY = {
  serverName: 'memory-server',
  serverVersion: '0.6.3',
  protocolVersion: '2025-11-25',
  tools: 9,
  resources: 1,
  resourceTemplates: 0,
  prompts: 0,
  leakedHandles: [],
};

/**
 * Truth (GROUND-TRUTH.md, "Undeclared import"): dist/index.js:5 imports zod, which the manifest does not declare; npm's
 * tree has it through the SDK, a pnpm hoist=false install cannot start the bin (ERR_MODULE_NOT_FOUND). The static check.
 */
const MEMORY_UNDECLARED_ZOD: PhaseTruth = {
  verdict: 'failed',
  step: 'undeclared imports',
  message:
    /^undeclared-imports: imports 1 package\(s\) on its start path that it does not declare in dependencies, peerDependencies or optionalDependencies: zod \(import "zod" in dist\/index\.js:5; npm's flat tree has it only through @modelcontextprotocol\/sdk@1\.\d+\.\d+/,
};

/** The same under the strict leg, whose tree has no npm lockfile to say who brought zod in. */
const MEMORY_UNDECLARED_ZOD_STRICT: PhaseTruth = {
  ...MEMORY_UNDECLARED_ZOD,
  message:
    /^undeclared-imports: imports 1 package\(s\) on its start path that it does not declare in dependencies, peerDependencies or optionalDependencies: zod \(import "zod" in dist\/index\.js:5\): a strict install/,
};

/** A strict cell of server-memory (pnpm hoist=false, Yarn PnP): the bin cannot start; the package's own import is named. */
const MEMORY_STRICT_CELL: Published['cells'][string] = {
  phases: {
    environment: MEMORY_UNDECLARED_ZOD_STRICT,
    stdio: {
      verdict: 'failed',
      step: 'initialize',
      message:
        /^initialize: the server exited with code 1 \(see its stderr\).*: cannot find zod, imported by (dist\/index\.js of )?@modelcontextprotocol\/server-memory@2026\.8\.31 \(the undeclared-imports check: dist\/index\.js:5\), which does not declare it .*: the package's own undeclared import/,
    },
    http: SKIPPED,
    bind: SKIPPED,
    conformance: SKIPPED,
    leaks: PASSED,
  },
  summary: { leakedHandles: [] },
};

const CASES: Published[] = [
  {
    example: 'server-memory',
    spec: '@modelcontextprotocol/server-memory@2026.8.31',
    integrity: 'sha512-ljj/3S4aGjxdNSQWw6gucKKGnTLdBPWxzapyY/MT2tOVyZwvxChvevXSLPwx59nKJAlVpUVW+cOlnVRXRwiqMQ==',
    kind: 'stdio-only',
    exit: 1,
    cells: {
      // SDK 1.30.0 rejects a tools/call without `arguments` (the spec allows omitting it); 1.32 accepts it.
      // The config omits them on purpose (client.noArguments: 'omit'); the message must say so.
      'floor-1': {
        phases: {
          environment: MEMORY_UNDECLARED_ZOD,
          stdio: {
            verdict: 'failed',
            step: 'tools/call read_graph',
            message:
              /^tools\/call read_graph: .*MCP error -32602: Input validation error: Invalid arguments for tool read_graph: Invalid input: expected object, received undefined.* · sent tools\/call \{"name":"read_graph"\} \(arguments omitted\)/,
          },
          http: SKIPPED,
          bind: SKIPPED,
          // The e2e runs turn the conformance suite off (MCP_MATRIX_CONFORMANCE=off, test/e2e/helpers/cli.ts).
          conformance: SKIPPED,
          leaks: PASSED,
        },
        summary: MEMORY_SUMMARY,
      },
      'latest-1': {
        phases: { environment: MEMORY_UNDECLARED_ZOD, stdio: PASSED, http: SKIPPED, bind: SKIPPED, conformance: SKIPPED, leaks: PASSED },
        summary: MEMORY_SUMMARY,
      },
      // Truth (GROUND-TRUTH.md): installed by pnpm with hoist=false, the bin dies on ERR_MODULE_NOT_FOUND for zod.
      'latest-1-pnpm-strict': MEMORY_STRICT_CELL,
      // Truth (GROUND-TRUTH.md, "Under Yarn PnP"): started as `yarn run` starts it, PnP refuses zod to the package.
      'latest-1-yarn-pnp': MEMORY_STRICT_CELL,
    },
    extra: (r) => {
      const latest = r.cells[1]!.version;
      expect(r.cells.map((c) => c.version)).toEqual(['1.30.0', expect.stringMatching(/^1\.\d+\.\d+$/), latest, latest]);
      expect(r.cells[2]!.environment!.installSource).toMatchObject({ source: 'pnpm-strict', pnpm: '10.34.9' });
      expect(r.cells[3]!.environment!.installSource).toMatchObject({ source: 'yarn-pnp', yarn: '4.18.1' });
      for (const strict of r.cells.slice(2))
        expect(phaseOf(strict, 'stdio').details!.missingImport, strict.id).toEqual({
          package: 'zod',
          // The file may be cut from a long stderr line (the message's regex allows it too).
          importer: expect.objectContaining({ name: '@modelcontextprotocol/server-memory', version: '2026.8.31' }),
          case: 'own-undeclared',
        });
      // Which way each tool step sent its arguments is recorded: the same request on both npm cells.
      for (const cell of r.cells.slice(0, 2)) {
        const steps = cell.phases.find((p) => p.phase === 'stdio')!.details!.steps as { step: string; arguments?: string }[];
        expect(steps.find((s) => s.step === 'tools/call read_graph')).toMatchObject({ arguments: 'omitted' });
        expect(steps.find((s) => s.step === 'tools/call create_entities')).toMatchObject({ arguments: 'configured' });
        // Not bundled: the running server loaded the cell's own SDK copy, at the pinned version.
        expectLoaded(cell, [{ name: '@modelcontextprotocol/sdk', path: 'node_modules/@modelcontextprotocol/sdk', version: cell.version }]);
      }
    },
  },
  {
    example: 'server-everything',
    spec: '@modelcontextprotocol/server-everything@2026.8.31',
    integrity: 'sha512-5U3OZh8Xq0Li4nA26l6uNvV9/1suMDuWSn+NjLZIhzinhMY6N3A4DCrxVecBGPf2PsNFKTEv5krxGPRwzxc7jQ==',
    kind: 'HTTP without auth',
    exit: 1,
    extra: (r) => {
      const cell = r.cells[0]!;
      expectLoaded(cell, [{ name: '@modelcontextprotocol/sdk', path: 'node_modules/@modelcontextprotocol/sdk', version: cell.version }]);
      // Truth: to a client with `roots` it sends roots/list, from the get-roots-list step and from a timer
      // 350 ms after initialization (either may come first, so one or two requests), and the driver answers.
      const requests = cell.phases.find((p) => p.phase === 'stdio')!.details!.serverRequests as unknown[];
      expect(requests.length).toBeGreaterThanOrEqual(1);
      expect(requests.length).toBeLessThanOrEqual(2);
      for (const request of requests) expect(request).toEqual({ method: 'roots/list', answer: 'result' });
      expect(phaseOf(cell, 'http').details).toMatchObject({ auth: 'none', roundTrip: true, call: { step: 'tools/call echo' } });
    },
    cells: {
      'latest-1': {
        phases: {
          environment: PASSED,
          stdio: PASSED,
          // Truth: 200 without a token and with a wrong one (curl): no auth, so the round trip works; spec.sh: a
          // foreign Origin and Host are served (required with no token), and a deleted session's ID gets 400.
          http: {
            verdict: 'failed',
            step: 'request with a foreign Origin',
            message: new RegExp(
              `^no token → no auth \\(not checked\\); wrong token → no auth \\(not checked\\); round trip ok; ${ORIGIN_HOST_SERVED}; ${SESSION_400_AFTER_DELETE}$`,
            ),
          },
          // Truth (ss): it listens on *:PORT, every interface, whatever it is told; curl: 200 without a token.
          bind: {
            verdict: 'failed',
            message: /^is listening on \[::\]:\d+ \(IPv6 wildcard: every interface\):.*without a token got HTTP 200/,
          },
          // The e2e runs turn the conformance suite off (MCP_MATRIX_CONFORMANCE=off, test/e2e/helpers/cli.ts).
          conformance: SKIPPED,
          leaks: PASSED,
        },
        summary: {
          serverName: 'mcp-servers/everything',
          serverVersion: '2.0.0',
          protocolVersion: '2025-11-25',
          tools: 14,
          prompts: 4,
          resources: 7,
          resourceTemplates: 2,
          leakedHandles: [],
        },
      },
    },
  },
  {
    // An older release on the floor of its range (SDK 1.12.0): client and server negotiate MCP 2025-03-26, which has
    // no MCP-Protocol-Version header. Truth (GROUND-TRUTH.md, curl): 1999-01-01 is served (200) and the server
    // answers 2025-03-26 to any offer; the header check is not applicable, never failed (issue 32).
    example: 'server-everything-2025.7.1',
    spec: '@modelcontextprotocol/server-everything@2025.7.1',
    integrity: 'sha512-7mUqPO7mwJLhhv8KVMKVrCA/RZNXH14dCVHpfuESRlP+3QWWxjZo2IljdSiWJoBJcjqsjRnDS5rVWpOv74WvJg==',
    kind: 'HTTP without auth, on an SDK pin that negotiates 2025-03-26',
    exit: 1,
    extra: (r) => {
      const http = phaseOf(r.cells[0]!, 'http');
      expect(http.details!.judgedBy).toBe('2025-03-26');
      expect(http.checks!.find((c) => c.id === 'protocol-version')).toMatchObject({
        outcome: 'not-applicable',
        revision: '2025-03-26',
        message: 'not applicable (revision 2025-03-26): MCP 2025-03-26 has no MCP-Protocol-Version header; it arrived in 2025-06-18',
        spec: { revision: 'MCP 2025-06-18', section: 'basic/transports#protocol-version-header' },
      });
    },
    cells: {
      'floor-1': {
        phases: {
          environment: PASSED,
          stdio: PASSED,
          // Truth (spec.sh): a foreign Origin is served (a refusal would do under 2025-03-26); after DELETE the old ID gets 400.
          http: {
            verdict: 'failed',
            step: 'request with a foreign Origin',
            message: new RegExp(
              "^no token → no auth \\(not checked\\); wrong token → no auth \\(not checked\\); round trip ok; origin: a foreign Origin \\(http:\\/\\/evil\\.example\\) got 200 \\(want a refusal, a 4xx or a closed connection: the server does not validate Origin \\(DNS rebinding\\); judged by MCP 2025-03-26, the revision it negotiated, which names no status\\) \\[MUST, MCP 2025-03-26 basic\\/transports#security-warning, level require\\]; session-ended-404: after DELETE \\(200\\) a request with the ended session's ID got 400 \\(want 404\\) \\[MUST, MCP 2025-03-26 basic\\/transports#session-management, level require\\]$",
            ),
          },
          bind: SKIPPED,
          conformance: SKIPPED,
          // Truth (eof.sh): still running 15 s after stdin EOF (its intervals).
          leaks: {
            verdict: 'failed',
            step: 'stdio shutdown',
            message: /^stdio server still running 10000 ms after stdin EOF: Timeout \(setInterval\)/,
          },
        },
        summary: { serverName: 'example-servers/everything', protocolVersion: '2025-03-26' },
      },
    },
  },
  {
    example: 'notion-mcp-server',
    spec: '@notionhq/notion-mcp-server@2.5.2',
    integrity: 'sha512-5nPSwHMnugSGAhSJS5vVIlMao+iTJO9HoWGpCnT8lJNrPy3rZMqs1V/CPiN4MuxF+5EBgRE/f/Tirl6Wfi75Mg==',
    kind: 'HTTP with a bearer token (and a bundled bin)',
    exit: 1,
    extra: (r) => {
      expectLoaded(r.cells[0]!, []);
      // The statuses curl saw, recorded as evidence.
      expect(phaseOf(r.cells[0]!, 'http').details).toMatchObject({
        auth: 'bearer',
        unauthenticated: { status: 401, wwwAuthenticate: null },
        wrongToken: { status: 403 },
        roundTrip: true,
        tools: 24,
      });
      // Behind its token a served foreign Origin and Host only warn (spec.sh: 200 both); the query-string token is refused.
      const checks = Object.fromEntries(phaseOf(r.cells[0]!, 'http').checks!.map((c) => [c.id, `${c.outcome}/${c.level}`]));
      expect(checks).toMatchObject({
        origin: 'failed/warn',
        host: 'failed/warn',
        'token-in-header': 'passed/require',
        'protocol-version': 'passed/require',
        'session-required': 'passed/warn',
        'session-ended-404': 'failed/require',
      });
    },
    cells: {
      'latest-1': {
        phases: {
          // Truth: bin/cli.mjs carries its own SDK (it answers with node_modules/@modelcontextprotocol/sdk
          // deleted), and package.json's "main": "index.js" is not in the tarball (import fails).
          environment: {
            verdict: 'failed',
            message:
              /main index\.js is missing from the tarball.*the stdio and http servers answered without loading node_modules\/@modelcontextprotocol\/sdk \(1\.\d+\.\d+\): its bin carries its own copy of the SDK/,
          },
          stdio: PASSED,
          // Truth (curl, SDK client): no token → 401 with no WWW-Authenticate header, wrong token → 403, the
          // right token → a working session. Every sub-check is reported, whatever the others found. spec.sh:
          // the token in the query string gets 401; a deleted session's ID gets 400 (want 404); a foreign
          // Origin and Host are served, which behind its token only warns.
          http: {
            verdict: 'failed',
            message: new RegExp(
              `^no token → 401 without WWW-Authenticate; wrong token → 403 \\(want 401\\); round trip ok; ${SESSION_400_AFTER_DELETE}$`,
            ),
          },
          // Truth (ss): with --host 0.0.0.0 and no AUTH_TOKEN it listens on 0.0.0.0 (with a token it generated).
          // The message says what was observed (issue 9 item 2), never "without a token".
          bind: {
            verdict: 'failed',
            message:
              /^is listening on 0\.0\.0\.0:\d+ \(IPv4 wildcard: every interface\): asked to bind 0\.0\.0\.0 with no token; a request without a token got HTTP 401, so it guards the socket with a token of its own; a non-loopback bind must be refused \(killed it\)$/,
          },
          // The e2e runs turn the conformance suite off (MCP_MATRIX_CONFORMANCE=off, test/e2e/helpers/cli.ts).
          conformance: SKIPPED,
          leaks: PASSED,
        },
        summary: {
          serverName: 'Notion API',
          serverVersion: '1.0.0',
          protocolVersion: '2025-11-25',
          tools: 24,
          prompts: 0,
          resources: 0,
          resourceTemplates: 0,
          leakedHandles: [],
        },
      },
    },
  },
  {
    example: 'server-basic-vanillajs',
    spec: '@modelcontextprotocol/server-basic-vanillajs@2.0.3',
    integrity: 'sha512-SGqoYRPkZ83b9VTJGdGzDHqL7+OCzTcEunkA2h7lJr5xpWxqMO43OIBkYFgYLfptxLMbB6K6cVX7dISFXv5xDA==',
    kind: '2.x-only (and a bundled bin)',
    exit: 1,
    cells: {
      '2.0.0': {
        phases: {
          // Truth: dist/index.js and dist/server.js carry their own SDK (they answer with the 2.x packages deleted).
          environment: {
            verdict: 'failed',
            message:
              /^the stdio and http servers answered without loading node_modules\/@modelcontextprotocol\/server \(2\.0\.0\): its bin carries its own copy of the SDK/,
          },
          stdio: PASSED,
          // Truth (spec.sh): stateless (no session ID); a foreign Origin and Host are served, with no token.
          http: {
            verdict: 'failed',
            step: 'request with a foreign Origin',
            message: new RegExp(
              `^no token → no auth \\(not checked\\); wrong token → no auth \\(not checked\\); round trip ok; ${ORIGIN_HOST_SERVED}$`,
            ),
          },
          // Truth (ss, curl): *:PORT, and 200 without a token.
          bind: {
            verdict: 'failed',
            message: /^is listening on \[::\]:\d+ \(IPv6 wildcard: every interface\):.*without a token got HTTP 200/,
          },
          // The e2e runs turn the conformance suite off (MCP_MATRIX_CONFORMANCE=off, test/e2e/helpers/cli.ts).
          conformance: SKIPPED,
          leaks: PASSED,
        },
        summary: {
          serverName: 'Basic MCP App Server (Vanilla JS)',
          serverVersion: '1.0.0',
          protocolVersion: '2025-11-25',
          tools: 1,
          prompts: 0,
          resources: 1,
          resourceTemplates: 0,
          leakedHandles: [],
        },
      },
    },
    extra: (r) => {
      // The cell holds the 2.x packages it pins, each once, at 2.0.0; the SDK list names SDK packages only
      // (not the server package itself, nor @modelcontextprotocol/ext-apps, which share the scope).
      expect(r.cells[0]!.environment!.sdkPackages.map((p) => `${p.path}@${p.version}`).sort()).toEqual(
        ['client', 'node', 'server'].map((n) => `node_modules/@modelcontextprotocol/${n}@2.0.0`),
      );
      expectLoaded(r.cells[0]!, []);
      expect(phaseOf(r.cells[0]!, 'http').details).toMatchObject({ auth: 'none', roundTrip: true, call: { step: 'tools/call get-time' } });
    },
  },
  {
    example: 'chrome-devtools-mcp',
    spec: 'chrome-devtools-mcp@1.11.0',
    integrity: 'sha512-CytJ/5tnzrS+J/74be2P5aCOsS/mmGRHys/Si+IYC4ucrbnWAmES/dYdxGJjeUCECRcoFUilZAysdjlwqUjXIA==',
    kind: 'bundled build (declares no SDK)',
    exit: 1,
    cells: {
      '2.3.1': {
        phases: {
          // Truth: it declares no SDK dependency, and its build carries @modelcontextprotocol/server 2.3.1 itself.
          environment: {
            verdict: 'failed',
            message:
              /chrome-devtools-mcp declares no range on @modelcontextprotocol\/server: it does not claim this SDK major; the stdio server answered without loading node_modules\/@modelcontextprotocol\/server \(2\.3\.1\): its bin carries its own copy of the SDK/,
          },
          stdio: PASSED,
          http: SKIPPED,
          bind: SKIPPED,
          // The e2e runs turn the conformance suite off (MCP_MATRIX_CONFORMANCE=off, test/e2e/helpers/cli.ts).
          conformance: SKIPPED,
          leaks: PASSED,
        },
        summary: {
          serverName: 'chrome_devtools',
          serverVersion: '1.11.0',
          protocolVersion: '2025-11-25',
          tools: 32,
          prompts: 0,
          resources: 0,
          resourceTemplates: 0,
          leakedHandles: [],
        },
      },
    },
    extra: (r) => {
      expect(r.cells[0]!.environment!.declaredRanges).toEqual({});
      expectLoaded(r.cells[0]!, []);
    },
  },
  {
    example: 'firecrawl-mcp',
    spec: 'firecrawl-mcp@3.26.0',
    integrity: 'sha512-aJPkPDSeQAIvA1RthFsLStXf5GHWE6hZa8MC36fk3JXC9etj0kUwBF1CFl3th0DmaFTZ0gZ9+eSvauyEDdPDwA==',
    kind: 'built on a framework (fastmcp), no SDK range of its own',
    exit: 0,
    cells: {
      // Truth (npm ls, strace): fastmcp@4.3.2 declares ^1.24.3; the server loads the cell's 1.24.3.
      'floor-1': {
        phases: {
          environment: PASSED,
          stdio: PASSED,
          http: SKIPPED,
          bind: SKIPPED,
          conformance: SKIPPED,
          leaks: PASSED,
        },
        summary: {
          serverName: 'firecrawl-fastmcp',
          serverVersion: '3.26.0',
          protocolVersion: '2025-11-25',
          tools: 27,
          prompts: 0,
          resources: 0,
          resourceTemplates: 0,
          leakedHandles: [],
        },
      },
    },
    extra: (r) => {
      const cell = r.cells[0]!;
      expect(cell.version).toBe('1.24.3');
      expect(cell.environment!.declaredRanges).toEqual({});
      expect(cell.environment!.sdkClaim).toBe('through fastmcp@4.3.2: @modelcontextprotocol/sdk ^1.24.3');
      expectLoaded(cell, [
        { name: '@modelcontextprotocol/client', version: '2.4.0', path: 'node_modules/@modelcontextprotocol/client' },
        { name: '@modelcontextprotocol/sdk', version: '1.24.3', path: 'node_modules/@modelcontextprotocol/sdk' },
        { name: '@modelcontextprotocol/server', version: '2.4.0', path: 'node_modules/@modelcontextprotocol/server' },
      ]);
      expect(r.warnings).toEqual([
        'lockstep: @modelcontextprotocol/sdk@1.32.2 is inside the range "^1.24.3" claimed through fastmcp@4.3.2 but newer than any cell (newest cell: 1.24.3); add a latest@1 cell',
      ]);
    },
  },
  {
    example: 'context7-mcp',
    spec: '@upstash/context7-mcp@4.1.1',
    integrity: 'sha512-fUARTIZGVKzlzQKDhKUg4aIQ3yEU/12STdfxJDDnLMSN7yyHiPvNHI05iFwxkv3vC8G76Wp27MwK6Jucl/C5pA==',
    kind: 'OAuth resource server (JWT) on /mcp/oauth',
    exit: 1,
    // The one published OAuth server that runs the conformance suite here (issue 32 item 5).
    env: { MCP_MATRIX_CONFORMANCE: 'on' },
    cells: {
      '2.0.0': {
        phases: {
          environment: PASSED,
          stdio: PASSED,
          // Truth (curl against an authorization server of its own, JWTs signed by hand): no token → 401 with
          // resource_metadata; a non-JWT token → 200 (taken as an API key); a JWT for another audience → 200
          // (jwtVerify without audience); expired, foreign-key and alg-none JWTs → 401; the metadata names the
          // issuer; the valid JWT's round trip works. Both findings reported, the first one as the step.
          http: {
            verdict: 'failed',
            step: 'request with a wrong token',
            message:
              /^no token → 401 with a Bearer challenge; wrong token → 200 \(want 401: a wrong token is accepted\); round trip ok; metadata discovery → named by resource_metadata; metadata → resource "http:\/\/127\.0\.0\.1:\d+\/mcp\/oauth", authorization_servers names the issuer; other audience → 200 \(want 401: a token for another audience is accepted\) \(MUST, MCP 2025-11-25 basic\/authorization#token-audience-binding-and-validation: a server MUST validate that an access token was issued for it as the intended audience \(RFC 8707 §2\)\); expired token → 401; other key → 401; alg none → 401$/,
          },
          bind: SKIPPED,
          // Truth (examples/_truth/conformance.sh: the suite 0.1.16 through a proxy of its own with a valid JWT):
          // initialize, ping and the three lists pass, multiple-streams warns; the DNS-rebinding scenario fails, but it
          // is for servers without authentication, so it is shown and judges nothing.
          conformance: {
            verdict: 'passed',
            message:
              /^6\/7 scenarios passed: server-initialize, ping, tools-list, server-sse-multiple-streams, resources-list, prompts-list; warn: dns-rebinding-protection \(localhost-host-rebinding-rejected: Expected HTTP 4xx for invalid Host\/Origin headers, got 200 \(level warn: the scenario is for servers without authentication and this endpoint requires a bearer token\)\)$/,
          },
          leaks: PASSED,
        },
        summary: {
          serverName: 'Context7',
          serverVersion: '4.1.1',
          protocolVersion: '2025-11-25',
          tools: 2,
          prompts: 0,
          resources: 0,
          resourceTemplates: 0,
          leakedHandles: [],
        },
      },
    },
    extra: (r) => {
      const http = phaseOf(r.cells[0]!, 'http');
      expect(http.details).toMatchObject({
        auth: 'oauth',
        unauthenticated: {
          status: 401,
          wwwAuthenticate: expect.stringMatching(
            /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"$/,
          ),
        },
        wrongToken: { status: 200 },
        roundTrip: true,
        tools: 2,
        oauth: { discovery: { via: 'challenge' }, statuses: { otherAudience: 200, expired: 401, otherKey: 401, algNone: 401 } },
      });
      const conformance = phaseOf(r.cells[0]!, 'conformance');
      expect(conformance.details).toMatchObject({
        auth: 'oauth',
        proxy: { adds: "Authorization: Bearer <a valid JWT from the run's authorization server>" },
        notAdvertised: [{ name: 'logging-set-level', why: 'the server does not advertise logging' }],
      });
      // Scenario by scenario, as the suite judged them through the ground truth's own proxy.
      const scenarios = conformance.details!.scenarios as { name: string; verdict: string; level: string }[];
      expect(scenarios.map((s) => [s.name, s.verdict, s.level])).toEqual([
        ['server-initialize', 'passed', 'require'],
        ['ping', 'passed', 'require'],
        ['tools-list', 'passed', 'require'],
        ['server-sse-multiple-streams', 'passed', 'require'],
        ['resources-list', 'passed', 'require'],
        ['prompts-list', 'passed', 'require'],
        ['dns-rebinding-protection', 'failed', 'warn'],
      ]);
      expect((conformance.details!.proxy as { forwarded: number }).forwarded).toBeGreaterThan(0);
      // No token, nor a piece of one, in the results.
      expect(JSON.stringify(r)).not.toMatch(/eyJ[\w-]{8,}/);
    },
  },
];

interface Run {
  out: CliOutcome;
  results?: RunResult;
  ms: number;
  /** What the run left in its private TMPDIR (the harness's run dirs live there). */
  leftovers: string[];
  leftoverProcs: string[];
}

const ROOT = path.resolve(import.meta.dirname, '../..');
const runs = new Map<string, Run>();
const scratch: string[] = [];

async function runExample(c: Published): Promise<Run> {
  const tarball = await publishedTarball(c.spec, c.integrity);
  // A private TMPDIR per run: the harness's cells, and whatever a server writes to its temp dir, stay in it.
  const tmp = await mkdtemp(path.join(os.tmpdir(), `mm-published-${c.example}-`));
  scratch.push(tmp);
  const outDir = path.join(tmp, 'out');
  const config = path.join('examples', c.example, 'matrix.config.ts');
  const started = Date.now();
  const out = await cli(['run', '--config', config, '--tarball', tarball, '--out', outDir, '--progress', 'silent'], {
    cwd: ROOT,
    env: { TMPDIR: tmp, ...c.env },
    timeoutMs: 280_000,
  });
  const ms = Date.now() - started;
  const results = await readResults(outDir).catch(() => undefined);
  // Anything but the reports: the harness's run dirs, or a server's own files (notion's token file is
  // written to TMPDIR='{tmp}', which goes with its cell).
  const leftovers = (await readdir(tmp)).filter((n) => n !== 'out');
  const leftoverProcs = processesMentioning(tmp).map((p) => `${p.pid} ${p.cmdline}`);
  return { out, ...(results ? { results } : {}), ms, leftovers, leftoverProcs };
}

beforeAll(async () => {
  // Fetch every tarball first (one npm pack each, cached across runs), then two runs at a time.
  await Promise.all(CASES.map((c) => publishedTarball(c.spec, c.integrity)));
  const queue = [...CASES];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) runs.set(c.example, await runExample(c));
  };
  await Promise.all([worker(), worker()]);
}, 900_000);

afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

function table(r: RunResult): string {
  return r.cells
    .flatMap((c) =>
      c.phases.map((p) => `${c.id} ${p.phase}: ${p.verdict}${p.step ? ` [${p.step}]` : ''}${p.message ? ` ${p.message}` : ''}`),
    )
    .join('\n');
}

/** The SDK copies the stdio server actually loaded (recorded by the probe inside it). */
function expectLoaded(cell: CellResult, copies: { name: string; path: string; version: string }[]): void {
  expect(cell.environment!.loadedSdk?.find((l) => l.server === 'stdio')).toMatchObject({ answered: true, copies });
}

function phaseOf<P extends PhaseName>(cell: CellResult, phase: P): PhaseResultOf<P> {
  return findPhase(cell.phases, phase)!;
}

function cellOf(r: RunResult, id: string): CellResult {
  const cell = r.cells.find((c) => c.id === id);
  expect(cell, `cell ${id} in ${r.cells.map((c) => c.id).join(', ')}`).toBeDefined();
  return cell!;
}

describe.each(CASES.map((c) => [`${c.spec} (${c.kind})`, c] as const))('published: %s', (_label, c) => {
  it(`exits ${c.exit}, runs the published bytes, and leaves nothing behind`, () => {
    const run = runs.get(c.example)!;
    expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
    const r = run.results!;
    expect(run.out.code, table(r)).toBe(c.exit);
    expect(r.exitCode).toBe(c.exit);
    expect(r.interrupted).toBe(false);
    expect(r.plan.tarball.sha512).toBe(c.integrity);
    expect(r.cells.map((cell) => cell.id)).toEqual(Object.keys(c.cells));
    expect(run.leftovers).toEqual([]);
    expect(run.leftoverProcs).toEqual([]);
  });

  it.each(Object.entries(c.cells))('cell %s: every phase as the ground truth says', (id, truth) => {
    const r = runs.get(c.example)!.results!;
    const cell = cellOf(r, id);
    const t = table(r);
    expect(Object.fromEntries(cell.phases.map((p) => [p.phase, p.verdict])), t).toEqual(
      Object.fromEntries(Object.entries(truth.phases).map(([phase, p]) => [phase, p.verdict])),
    );
    for (const p of cell.phases) {
      const want = truth.phases[p.phase];
      if (want.message) expect(p.message, t).toMatch(want.message);
      if (want.step) expect(p.step, t).toBe(want.step);
      if (p.verdict === 'failed') expect(run(c).out.stdout + run(c).out.stderr).toContain(`${id} · ${p.phase}: FAIL`);
    }
    expect(cell.summary).toMatchObject(truth.summary);
    const failed = Object.values(truth.phases).some((p) => p.verdict === 'failed');
    expect(cell.verdict).toBe(failed ? 'failed' : 'passed');
  });

  if (c.extra) it('details match the ground truth', () => c.extra!(runs.get(c.example)!.results!));
});

function run(c: Published): Run {
  return runs.get(c.example)!;
}
