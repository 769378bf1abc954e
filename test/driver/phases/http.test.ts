// The http phase's judgements, one sub-check at a time: exactly 401 (never any 4xx), a Bearer
// challenge on the refusal, and one message that reports every sub-check.
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portRace, takeTestPort, TEST_PORTS_ENV } from '../../../src/driver/phases/http.js';
import { endpointUrl } from '../../../src/driver/http/endpoint.js';
import {
  challengeCheck,
  checksMessage,
  reportedChecks,
  statusCheck,
  type HttpChecks,
  type SubCheck,
} from '../../../src/driver/phases/http-refusals.js';
import { activeResources } from '../../../src/driver/probe/driver-handles.js';
import { listensOf } from '../../../src/driver/http/listen-watch.js';
import type { ServerProcess } from '../../../src/driver/server/process.js';
import { decidePhase } from '../../../src/contract/checks.js';
import { SPEC_CHECK_IDS } from '../../../src/driver/http/spec-checks.js';
import type { OAuthCheck } from '../../../src/driver/http/oauth.js';
import { httpPhase } from '../../../src/driver/phases/http.js';
import { leaksPhase } from '../../../src/driver/phases/leaks.js';
import { liveHandles, type ProbeHandle } from '../../../src/driver/probe/probe.js';
import type { DriverSpec, Step } from '../../../src/contract/protocol.js';
import { TEST_SERVER } from '../helpers/cell.js';
import { listenReadPastBound, pastBoundOnceSeen, phaseBench, stallPastBound, type PhaseBench } from '../helpers/phase-bench.js';
import { NoAnswer } from '../../../src/driver/http/raw-http.js';
import { levels, resolved } from '../helpers/levels.js';
import { expectNoRaceButForeign, raceAside } from '../../helpers/foreign-race.js';
import { quietPort } from '../../helpers/quiet-port.js';

const probe = (status: number, wwwAuthenticate: string | null = null) => ({ status, wwwAuthenticate });

describe('statusCheck', () => {
  it('passes exactly 401', () => {
    expect(statusCheck(probe(401), 'no token')).toEqual({ outcome: 'ok', text: '401', short: '401' });
  });

  it.each([403, 400, 404, 407, 429])('fails %i, even with a Bearer challenge: only 401 means "authenticate"', (status) => {
    for (const who of ['no token', 'wrong token'] as const) {
      const check = statusCheck(probe(status, 'Bearer realm="x"'), who);
      expect(check).toEqual({
        outcome: 'failed',
        text: `${status} (want 401)`,
        short: `${status} (want 401)`,
        step: who === 'no token' ? 'request without a token' : 'request with a wrong token',
      });
    }
  });

  it('names what a 2xx means for each request', () => {
    expect(statusCheck(probe(200), 'no token').text).toBe('200 (want 401: the endpoint does not require the bearer token)');
    expect(statusCheck(probe(202), 'wrong token').text).toBe('202 (want 401: a wrong token is accepted)');
  });

  it('fails a request that got no answer, saying why', () => {
    const check = statusCheck(new NoAnswer('timed out after 50 ms waiting for an HTTP response'), 'wrong token');
    expect(check).toMatchObject({ outcome: 'failed', text: 'no answer (timed out after 50 ms waiting for an HTTP response)' });
  });
});

describe('challengeCheck', () => {
  it('passes a Bearer challenge (any case, with parameters)', () => {
    expect(challengeCheck(probe(401, 'Bearer realm="mcp"'))?.outcome).toBe('ok');
    expect(challengeCheck(probe(401, 'bearer'))?.outcome).toBe('ok');
    expect(challengeCheck(probe(403, 'Bearer error="invalid_token"'))?.outcome).toBe('ok');
  });

  it('fails a refusal without a challenge, or with another scheme', () => {
    expect(challengeCheck(probe(401))).toMatchObject({ outcome: 'failed', text: 'without WWW-Authenticate', short: 'no challenge' });
    expect(challengeCheck(probe(401, 'Basic realm="x"'))).toMatchObject({
      outcome: 'failed',
      text: 'with WWW-Authenticate "Basic realm=\\"x\\"" (want Bearer)',
    });
  });

  it('does not judge the challenge when there was no refusal', () => {
    expect(challengeCheck(probe(200))).toBeNull();
    expect(challengeCheck(probe(500))).toBeNull();
    expect(challengeCheck(new NoAnswer('reset'))).toBeNull();
  });
});

describe('checksMessage', () => {
  const ok = (text: string): SubCheck => ({ outcome: 'ok', text, short: 'ok' });
  it('reports every sub-check, failures and passes alike', () => {
    const checks: HttpChecks = {
      noToken: statusCheck(probe(401), 'no token'),
      wwwAuthenticate: challengeCheck(probe(401))!,
      wrongToken: statusCheck(probe(403), 'wrong token'),
      roundTrip: ok('ok'),
    };
    expect(checksMessage(checks)).toBe('no token → 401 without WWW-Authenticate; wrong token → 403 (want 401); round trip ok');
  });

  it('shows skipped auth checks as "no auth", never as ok', () => {
    const noAuth: SubCheck = { outcome: 'no auth', text: 'no auth (not checked)', short: 'no auth' };
    const message = checksMessage({ noToken: noAuth, wwwAuthenticate: noAuth, wrongToken: noAuth, roundTrip: ok('ok') });
    expect(message).toBe('no token → no auth (not checked); wrong token → no auth (not checked); round trip ok');
  });
});

describe('sub-checks, exactly', () => {
  it('a 3xx is not a 2xx: no reason given; no answer names the step', () => {
    expect(statusCheck(probe(300), 'no token')).toEqual({
      outcome: 'failed',
      text: '300 (want 401)',
      short: '300 (want 401)',
      step: 'request without a token',
    });
    expect(statusCheck(probe(500), 'wrong token').text).toBe('500 (want 401)');
    expect(statusCheck(new NoAnswer('reset'), 'no token')).toEqual({
      outcome: 'failed',
      text: 'no answer (reset)',
      short: 'no answer',
      step: 'request without a token',
    });
  });

  it('the challenge: 400 is a refusal; a Bearer challenge among others counts (3259316), none is a failure; each result in full', () => {
    expect(challengeCheck(probe(400, 'Bearer'))).toEqual({ outcome: 'ok', text: 'with a Bearer challenge', short: 'Bearer challenge' });
    expect(challengeCheck(probe(399, 'Bearer'))).toBeNull();
    expect(challengeCheck(probe(401, 'Basic, Bearer'))).toEqual({
      outcome: 'ok',
      text: 'with a Bearer challenge',
      short: 'Bearer challenge',
    });
    expect(challengeCheck(probe(401, 'Basic realm="x"'))).toEqual({
      outcome: 'failed',
      text: 'with WWW-Authenticate "Basic realm=\\"x\\"" (want Bearer)',
      short: 'not a Bearer challenge',
      step: 'request without a token',
    });
    expect(challengeCheck(probe(401))).toEqual({
      outcome: 'failed',
      text: 'without WWW-Authenticate',
      short: 'no challenge',
      step: 'request without a token',
    });
  });

  it('the message has no stray space when the challenge was not judged', () => {
    const notJudged: SubCheck = { outcome: 'n/a', text: '', short: 'n/a' };
    const ok: SubCheck = { outcome: 'ok', text: 'ok', short: 'ok' };
    const message = checksMessage({
      noToken: statusCheck(probe(200), 'no token'),
      wwwAuthenticate: notJudged,
      wrongToken: ok,
      roundTrip: ok,
    });
    expect(message).toBe('no token → 200 (want 401: the endpoint does not require the bearer token); wrong token → ok; round trip ok');
  });
});

describe('reportedChecks: the 401 checks and the round trip as sub-checks', () => {
  const ok: SubCheck = { outcome: 'ok', text: 'ok', short: 'ok' };
  const fail = (step: string): SubCheck => ({ outcome: 'failed', text: step, short: step, step });
  const noAuth: SubCheck = { outcome: 'no auth', text: 'no auth (not checked)', short: 'no auth' };
  const firstStep = (checks: ReturnType<typeof reportedChecks>) =>
    checks.find((c) => c.level === 'require' && c.outcome === 'failed')?.step;
  it('the first failed required one names the step; none when nothing failed', () => {
    const spec = resolved('http', { auth: 'bearer' as const });
    expect(firstStep(reportedChecks({ noToken: ok, wwwAuthenticate: ok, wrongToken: ok, roundTrip: ok }, spec))).toBeUndefined();
    expect(firstStep(reportedChecks({ noToken: ok, wwwAuthenticate: fail('b'), wrongToken: fail('c'), roundTrip: fail('d') }, spec))).toBe(
      'b',
    );
    expect(firstStep(reportedChecks({ noToken: fail('a'), wwwAuthenticate: fail('b'), wrongToken: ok, roundTrip: ok }, spec))).toBe('a');
    expect(firstStep(reportedChecks({ noToken: ok, wwwAuthenticate: ok, wrongToken: fail('c'), roundTrip: fail('d') }, spec))).toBe('c');
    expect(firstStep(reportedChecks({ noToken: ok, wwwAuthenticate: ok, wrongToken: ok, roundTrip: fail('d') }, spec))).toBe('d');
  });
  it('records each with its id, requirement, spec revision and level; no auth is skipped, never passed', () => {
    const checks = reportedChecks(
      { noToken: noAuth, wwwAuthenticate: noAuth, wrongToken: noAuth, roundTrip: ok },
      resolved('http', { auth: 'none' }),
    );
    expect(checks.map((c) => [c.id, c.outcome, c.level])).toEqual([
      ['no-token-401', 'skipped', 'require'],
      ['www-authenticate', 'skipped', 'require'],
      ['wrong-token-401', 'skipped', 'require'],
      ['round-trip', 'passed', 'require'],
    ]);
    expect(checks[2]).toMatchObject({
      requirement: 'MUST',
      spec: { revision: 'MCP 2025-11-25', section: 'basic/authorization#token-handling' },
    });
    expect(checks[3]!.requirement).toBeUndefined();
  });
  it('a check not judged says its own reason: the challenge without a refusal, the metadata without a document', () => {
    const metadata: OAuthCheck = {
      id: 'metadata',
      outcome: 'n/a',
      text: 'not judged (no metadata document)',
      short: 'n/a',
      step: 'protected resource metadata',
    };
    const checks = reportedChecks(
      { noToken: fail('a'), wwwAuthenticate: { outcome: 'n/a', text: '', short: 'n/a' }, wrongToken: ok, roundTrip: ok, oauth: [metadata] },
      resolved('http', { auth: 'oauth' }),
    );
    expect(checks.find((c) => c.id === 'www-authenticate')).toMatchObject({
      outcome: 'skipped',
      message: 'not judged: there was no refusal',
    });
    // It used to say the challenge's reason, "there was no refusal", about a metadata document never found.
    expect(checks.find((c) => c.id === 'oauth-metadata')).toMatchObject({
      outcome: 'skipped',
      message: 'not judged (no metadata document)',
    });
  });
  it('a failure at level warn is shown and does not fail the phase; off is not judged', () => {
    const checks = reportedChecks(
      { noToken: ok, wwwAuthenticate: fail('b'), wrongToken: fail('c'), roundTrip: ok },
      resolved('http', { auth: 'bearer', checks: { 'www-authenticate': 'warn', 'wrong-token-401': 'off' } }),
    );
    expect(checks.map((c) => [c.id, c.outcome, c.level])).toEqual([
      ['no-token-401', 'passed', 'require'],
      ['www-authenticate', 'failed', 'warn'],
      ['wrong-token-401', 'skipped', 'off'],
      ['round-trip', 'passed', 'require'],
    ]);
    expect(decidePhase(checks)).toBe('passed');
  });
});

describe('endpointUrl', () => {
  it('brackets an IPv6 host and gives the path its leading slash', () => {
    expect(endpointUrl('127.0.0.1', 4000, '/mcp')).toBe('http://127.0.0.1:4000/mcp');
    expect(endpointUrl('127.0.0.1', 4000, 'mcp')).toBe('http://127.0.0.1:4000/mcp');
    expect(endpointUrl('::1', 4000, '/')).toBe('http://[::1]:4000/');
  });
});

describe('takeTestPort: the test hook is a queue in the environment', () => {
  it('keeps the rest of the queue as a list', () => {
    const env: NodeJS.ProcessEnv = { [TEST_PORTS_ENV]: '4100,4101,4102' };
    expect(takeTestPort(env)).toBe(4100);
    expect(env[TEST_PORTS_ENV]).toBe('4101,4102');
  });

  it('hands out the valid ports in order, then nothing, and removes the variable once empty', () => {
    const env: NodeJS.ProcessEnv = { [TEST_PORTS_ENV]: '4100, x,0,-3,1.5,4101' };
    expect(takeTestPort(env)).toBe(4100);
    expect(env[TEST_PORTS_ENV]).toBe('4101');
    expect(takeTestPort(env)).toBe(4101);
    expect(env).not.toHaveProperty(TEST_PORTS_ENV);
    expect(takeTestPort(env)).toBeUndefined();
    expect(takeTestPort({})).toBeUndefined();
    expect(takeTestPort({ [TEST_PORTS_ENV]: '' })).toBeUndefined();
  });
});

describe('portRace: another process holds the port', () => {
  const identity = { step: 'port identity', reason: "127.0.0.1:4123 answers, but no process of the started server's group holds it" };
  const exited = { step: 'wait for listen', reason: 'server exited (code 1) before listening on 127.0.0.1:4123' };
  const EADDRINUSE = 'Error: listen EADDRINUSE: address already in use 127.0.0.1:4123\n    at Server.setupListenHandle\n';
  it('a foreign listener is a race, named with its holder when /proc tells (its command line cut at 120)', () => {
    const cmdline = `python3 ${'x'.repeat(200)}`;
    expect(portRace('', 4123, identity, () => ({ pid: 77, cmdline }))).toEqual({
      port: 4123,
      cause: `${identity.reason} (held by pid 77: ${cmdline.slice(0, 120)})`,
    });
    expect(portRace('', 4123, identity, () => null)).toEqual({ port: 4123, cause: identity.reason });
  });

  it("EADDRINUSE on the harness's port in the server's stderr is a race; on another port, or none, it is not", () => {
    const holderOf = (): never => {
      throw new Error('only a foreign listener is looked up');
    };
    expect(portRace(EADDRINUSE, 4123, exited, holderOf)).toEqual({
      port: 4123,
      cause: "port 4123 is already in use (EADDRINUSE in the server's stderr)",
    });
    expect(portRace(EADDRINUSE.replace('4123', '9090'), 4123, exited, holderOf)).toBeNull();
    expect(portRace('refusing to start\n', 4123, exited, holderOf)).toBeNull();
  });
});

// httpPhase from src against real servers: the driver's test server (real SDK, from the repo's
// node_modules) and a few lines of node:http where a status code is the point.
type HttpSpec = Exclude<DriverSpec['phases']['http'], false>;

describe('httpPhase: sub-checks, retries and never-listened, from src', () => {
  let bench: PhaseBench;
  const extra: number[] = [];
  const holders: net.Server[] = [];
  beforeAll(async () => {
    bench = await phaseBench('mcp-matrix-http-phase-');
  });
  afterAll(async () => {
    for (const pid of extra) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await Promise.all(holders.map((h) => new Promise((r) => h.close(r))));
    await bench?.dispose();
  });

  const INITIALIZE_BODY = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'mcp-matrix-driver', version: '0.1.0' } },
  };
  const STEP: Step = { tool: 'echo', arguments: { text: 'hi' }, expect: { text: 'echo: hi' } };
  const ARGS =
    "const port = Number(process.argv[process.argv.indexOf('--port') + 1]);\nconst host = process.argv[process.argv.indexOf('--host') + 1];\n";

  // These servers prove the 401 checks, the retries and the round trip: the transport's spec checks are off
  // here (test/driver/phases/spec-checks.test.ts proves them), so a fixed-status server is judged on the point.
  const SPEC_OFF = Object.fromEntries(SPEC_CHECK_IDS.map((id) => [id, 'off' as const]));
  function spec(bin: string, over: Partial<HttpSpec> = {}, env: Record<string, string> = {}): HttpSpec {
    return resolved('http', {
      command: { bin, args: ['--transport', 'http', '--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}', ...env } },
      host: '127.0.0.1',
      path: '/mcp',
      steps: [STEP],
      readyTimeoutMs: 10_000,
      timeoutMs: 10_000,
      checks: SPEC_OFF,
      ...over,
    });
  }

  async function http(s: HttpSpec, ctx = bench.context()) {
    const r = await httpPhase(ctx, s);
    for (const server of ctx.servers) await server.proc.waitExit(5000);
    for (const server of ctx.servers) expect(server.proc.running).toBe(false);
    return { r, ctx };
  }

  /**
   * A server that never listens where it is told, judged by what it showed before the wait's bound: the bound is
   * READY_BOUND_MS on the phase's clock, reached once the phase has seen `shown` of its server (test/driver/helpers/
   * phase-bench.ts), so how long the server takes to start on a loaded machine changes nothing.
   */
  async function neverReady(bin: string, shown: (server: ServerProcess) => boolean) {
    const ctx = bench.context();
    const last = (): ServerProcess | undefined => ctx.servers.at(-1)?.proc;
    return pastBoundOnceSeen(
      () => http(spec(bin, { readyTimeoutMs: READY_BOUND_MS }), ctx),
      () => last() !== undefined && shown(last()!),
      READY_BOUND_MS,
    );
  }
  const READY_BOUND_MS = 60_000;
  /** Its stdout carried a line with `text`, as the phase read it. */
  const wrote = (text: string) => (server: ServerProcess) => server.noise.lines.some((l) => l.includes(text));

  /** Answers every request with `status` (and `header` as WWW-Authenticate), whatever the token. */
  const fixed = (name: string, status: number, header?: string): string =>
    bench.server(
      name,
      `import http from 'node:http';\n${ARGS}http.createServer((req, res) => { req.resume(); res.writeHead(${status}, ${JSON.stringify(header ? { 'www-authenticate': header } : {})}).end('refused ${status}'); }).listen(port, host);\nprocess.on('SIGTERM', () => process.exit(0));\n`,
    );

  it('a correct server passes every sub-check; the evidence is recorded', async () => {
    const { r, ctx } = await http(spec(TEST_SERVER));
    expect(r).toMatchObject({
      phase: 'http',
      verdict: 'passed',
      message: 'no token → 401 with a Bearer challenge; wrong token → 401; round trip ok',
    });
    expect(r).not.toHaveProperty('step');
    const port = r.details!.port as number;
    // Another test file's process may truly take the picked port first: the retry on a new port is measured.
    const measured = ctx.servers.at(-1)!.proc;
    expect(raceAside(r.details!, `held by pid ${ctx.servers[0]!.proc.pid}:`)).toEqual({
      port,
      url: `http://127.0.0.1:${port}/mcp`,
      auth: 'bearer',
      pid: measured.pid,
      identity: 'verified',
      readyMs: expect.any(Number),
      // The spec sub-checks' own wall time (the bench shows it apart: the minimal client makes none of them).
      specChecksMs: expect.any(Number),
      unauthenticated: { status: 401, wwwAuthenticate: 'Bearer realm="test"' },
      wrongToken: { status: 401, wwwAuthenticate: 'Bearer realm="test"' },
      roundTrip: true,
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      // The MCP revision every check was judged by: the one the cell's client negotiates.
      judgedBy: r.details!.protocolVersion,
      tools: 2,
      call: { step: 'tools/call echo', ms: expect.any(Number) },
      // The step's answer as answer parity compares it across cells.
      compared: {
        'tools/call echo': {
          isError: false,
          content: [{ type: 'text', text: expect.stringMatching(/^sha256:/) }],
          structuredContent: { echoed: 'hi', length: 2 },
        },
        // The lifecycle edges' values (the SDK's transport refuses a second initialize).
        'unknown-tool': { answer: 'isError' },
        'invalid-arguments': { answer: 'isError' },
        'repeated-initialize': { outcome: 'errors' },
      },
      // The lifecycle checks' own time (their session's opening included), each check run, and what each waited for.
      lifecycle: {
        durationMs: expect.any(Number),
        sessionMs: expect.any(Number),
        checks: [
          { id: 'unknown-method', durationMs: expect.any(Number) },
          { id: 'unknown-tool', durationMs: expect.any(Number) },
          { id: 'invalid-arguments', durationMs: expect.any(Number) },
          {
            id: 'repeated-initialize',
            durationMs: expect.any(Number),
            waits: [{ for: 'the call in flight, answered', ms: expect.any(Number) }],
          },
          { id: 'cancellation', durationMs: expect.any(Number) },
        ],
      },
      checks: {
        noToken: { outcome: 'ok', text: '401', short: '401' },
        wwwAuthenticate: { outcome: 'ok', text: 'with a Bearer challenge', short: 'Bearer challenge' },
        wrongToken: { outcome: 'ok', text: '401', short: '401' },
        roundTrip: { outcome: 'ok', text: 'ok', short: 'ok' },
      },
    });
    // The lifecycle edges ran on a session of their own, after the round trip (no slow step: nothing to cancel).
    const lifecycle = r.checks!.slice(-5).map((c) => [c.id, c.outcome, c.short]);
    expect(lifecycle).toEqual([
      ['unknown-method', 'passed', '-32601'],
      ['unknown-tool', 'passed', 'isError'],
      ['invalid-arguments', 'passed', 'isError'],
      ['repeated-initialize', 'passed', 'errors'],
      ['cancellation', 'skipped', 'n/a'],
    ]);
    expect(r.checks!.find((c) => c.id === 'invalid-arguments')!.message).toBe(
      '`tools/call echo` with {} (without the required `text`) got an isError result',
    );
    expect(ctx.answered.has(measured)).toBe(true);
    expect(bench.messages).toContainEqual({ type: 'spawned', pid: measured.pid, phase: 'http' });
    // No stdio ran: the variant's negotiated protocol comes from the round trip.
    expect(ctx.summary.protocolVersion).toBe(r.details!.protocolVersion);
    // The token is the driver's secret: registered with the redactor, so no output carries it.
    expect(JSON.stringify(r)).not.toMatch(/token=[0-9a-f]{8}/);
  });

  it('a round trip failed by isError alone (no expect) still runs the lifecycle edges, as a contested row needs', async () => {
    const { r } = await http(spec(TEST_SERVER, { steps: [{ tool: 'fail' }] }));
    expect(r).toMatchObject({ verdict: 'failed', step: 'tools/call fail' });
    expect(r.message).toMatch(/round trip failed: tools\/call fail: returned isError: "this tool always fails"/);
    expect(r.details!.failedSteps).toEqual([{ item: 'tools/call fail', step: 'tools/call fail', unexpectedIsError: true }]);
    // Measured on a session of their own, as after a passing round trip (before: all five "not run: the round trip failed").
    expect(r.checks!.slice(-5).map((c) => [c.id, c.outcome])).toEqual([
      ['unknown-method', 'passed'],
      ['unknown-tool', 'passed'],
      ['invalid-arguments', 'skipped'],
      ['repeated-initialize', 'passed'],
      ['cancellation', 'skipped'],
    ]);
    expect(r.checks!.find((c) => c.id === 'invalid-arguments')!.message).not.toMatch(/round trip failed/);
  });

  it('no auth at all: both status checks fail naming what a 2xx means; the challenge is not judged; step is the first failure', async () => {
    const { r } = await http(spec(TEST_SERVER, { steps: [] }, { TEST_MODE: 'no-auth' }));
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'request without a token',
      message:
        'no token → 200 (want 401: the endpoint does not require the bearer token); wrong token → 200 (want 401: a wrong token is accepted); round trip ok',
    });
    expect(r.details).toMatchObject({ checks: { wwwAuthenticate: { outcome: 'n/a', text: '', short: 'n/a' } }, roundTrip: true });
    expect(r.details).not.toHaveProperty('call');
    // The server logs its token: the stderr tail of the failure carries the line, never the token.
    expect(r.stderrTail).toContain('starting with token=');
    expect(r.stderrTail).not.toMatch(/token=[0-9a-f]{6}/);
  });

  it('a wrong token answered 403 (a token checked, but not with 401): the wrong-token check fails alone', async () => {
    // 401 without a header; 403 with any 48-hex bearer token (the right one too, so the round trip fails).
    const bin = bench.server(
      'wrong-403.mjs',
      // Only the initialize request the harness means to send (headers and body exactly) gets an auth answer; anything else is a 400.
      `import http from 'node:http';\n${ARGS}const want = ${JSON.stringify(JSON.stringify(INITIALIZE_BODY))};\nhttp.createServer((req, res) => { let body = ''; req.on('data', (d) => (body += d)); req.on('end', () => { const a = req.headers.authorization; const ok = body === want && req.method === 'POST' && req.url === '/mcp' && req.headers['content-type'] === 'application/json' && req.headers.accept === 'application/json, text/event-stream'; res.writeHead(!ok ? 400 : a === undefined ? 401 : /^Bearer [0-9a-f]{48}$/.test(a) ? 403 : 400, { 'www-authenticate': 'Bearer' }).end(); }); }).listen(port, host);\n`,
    );
    const { r } = await http(spec(bin));
    expect(r).toMatchObject({ verdict: 'failed', step: 'request with a wrong token' });
    expect(r.message).toMatch(/^no token → 401 with a Bearer challenge; wrong token → 403 \(want 401\); round trip failed: initialize: /);
  });

  it('no answer within the bound: each request says so, the round trip names the timeout without a step prefix', async () => {
    const bin = bench.server('silent.mjs', `import http from 'node:http';\n${ARGS}http.createServer(() => {}).listen(port, host);\n`);
    const { r } = await http(spec(bin, { timeoutMs: 700 }));
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'request without a token',
      message:
        'no token → no answer (timed out after 700 ms waiting for an HTTP response); wrong token → no answer (timed out after 700 ms waiting for an HTTP response); round trip failed: timed out after 700 ms waiting for initialize',
    });
    expect(r.details).not.toHaveProperty('unauthenticated');
    expect(r.details).not.toHaveProperty('wrongToken');
    expect(r.details).toMatchObject({ checks: { wwwAuthenticate: { outcome: 'n/a' } } });
  });

  it("`auth: 'none'`: the token checks are not run, shown as no auth; no token is sent", async () => {
    const { r } = await http(spec(TEST_SERVER, { auth: 'none' }, { TEST_MODE: 'no-auth,refuse-any-token' }));
    expect(r).toMatchObject({
      verdict: 'passed',
      message: 'no token → no auth (not checked); wrong token → no auth (not checked); round trip ok',
    });
    const noAuth = { outcome: 'no auth', text: 'no auth (not checked)', short: 'no auth' };
    expect(r.details).toMatchObject({ auth: 'none', checks: { noToken: noAuth, wwwAuthenticate: noAuth, wrongToken: noAuth } });
    expect(r.details).not.toHaveProperty('unauthenticated');
    expect(r.details).not.toHaveProperty('wrongToken');
  });

  it('403 with a Bearer challenge for every request: both status checks fail, the challenge passes, the right token is refused too', async () => {
    const { r } = await http(spec(fixed('forbidden.mjs', 403, 'Bearer error="insufficient_scope"')));
    expect(r).toMatchObject({ verdict: 'failed', step: 'request without a token' });
    expect(r.message).toMatch(
      /^no token → 403 \(want 401\) with a Bearer challenge; wrong token → 403 \(want 401\); round trip failed: initialize: .*refused 403$/,
    );
    expect(r.details).toMatchObject({
      unauthenticated: { status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope"' },
      wrongToken: { status: 403 },
      roundTrip: false,
      checks: { roundTrip: { outcome: 'failed', short: 'failed at initialize', step: 'initialize' } },
    });
    expect(r.details).not.toHaveProperty('protocolVersion');
    expect(r.message).not.toContain('the right token was refused');
  });

  it("`auth: 'none'` and a 401 on initialize: not worded as the right token refused (none was sent)", async () => {
    const { r } = await http(spec(fixed('none-401.mjs', 401, 'Bearer'), { auth: 'none' }));
    expect(r).toMatchObject({ verdict: 'failed', step: 'initialize' });
    expect(r.message).toMatch(
      /^no token → no auth \(not checked\); wrong token → no auth \(not checked\); round trip failed: initialize: /,
    );
    expect(r.message).not.toContain('the right token was refused');
  });

  it.each([
    ['tools/list', 'list tools', 'tools/list'],
    ['ping', 'ping', 'ping'],
    ['DELETE', 'terminate session', 'session DELETE'],
  ])('a server that never answers %s: the round trip fails at that step, naming what it waited for', async (hang, step, what) => {
    // Every request before the one never answered has the same bound: 3 s leaves a loaded machine's slow first answers
    // room (the bound is waited out once per case).
    const { r, ctx } = await http(spec(TEST_SERVER, { timeoutMs: 3000 }, { TEST_HANG: hang }));
    // The server lived through it: nothing the client holds is a death's.
    expect(ctx.diedMidRequest).toEqual([]);
    expect(r).toMatchObject({
      verdict: 'failed',
      step,
      message: `no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: timed out after 3000 ms waiting for ${what}`,
    });
    expect(r.details).toMatchObject({ roundTrip: false, checks: { roundTrip: { short: `failed at ${step}` } } });
    expect(r.details).not.toHaveProperty('tools');
  });

  it('401 even for the right token: the round trip says the right token was refused with 401', async () => {
    const { r } = await http(spec(fixed('always-401.mjs', 401, 'Bearer')));
    expect(r).toMatchObject({ verdict: 'failed', step: 'initialize' });
    expect(r.message).toMatch(
      /^no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: initialize: the right token was refused with 401: /,
    );
  });

  it('a 401 without a challenge fails the challenge sub-check (its step named)', async () => {
    const { r } = await http(spec(fixed('no-challenge.mjs', 401)));
    expect(r).toMatchObject({ verdict: 'failed', step: 'request without a token' });
    expect(r.message).toMatch(/^no token → 401 without WWW-Authenticate; wrong token → 401; round trip failed: /);
  });

  it('a tool step that fails names the step; the round trip stops there', async () => {
    const bad: Step = { tool: 'echo', arguments: { text: 'hi' }, expect: { text: 'nope' } };
    const { r } = await http(spec(TEST_SERVER, { steps: [{ resource: 'note://hello' }, bad] }));
    expect(r).toMatchObject({ verdict: 'failed', step: 'tools/call echo' });
    expect(r.message).toMatch(/^no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: tools\/call echo: .*nope/);
    expect(r.details).toMatchObject({ roundTrip: false, checks: { roundTrip: { short: 'failed at tools/call echo' } } });
    // The evidence of a round trip that failed is not recorded.
    expect(r.details).not.toHaveProperty('tools');
    expect(r.details).not.toHaveProperty('protocolVersion');
  });

  it("a server that dies under the round trip's tool call: the exit named, and the death recorded for the leaks phase", async () => {
    const { r, ctx } = await http(spec(TEST_SERVER, {}, { TEST_CRASH: 'tools/call' }));
    expect(r).toMatchObject({ verdict: 'failed', step: 'tools/call echo' });
    expect(r.message).toMatch(
      /^no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: tools\/call echo: .+ \(the server exited with code 5; see its stderr\)$/,
    );
    expect(ctx.diedMidRequest).toEqual([
      { role: 'http', pid: ctx.servers.at(-1)!.proc.pid, request: 'tools/call echo', from: expect.any(Number), to: expect.any(Number) },
    ]);
    // The lifecycle edges after it name the exit, not the round trip's failure.
    for (const id of ['unknown-method', 'unknown-tool', 'invalid-arguments', 'repeated-initialize', 'cancellation'])
      expect(
        r.checks!.find((c) => c.id === id),
        id,
      ).toMatchObject({
        outcome: 'skipped',
        message: 'not run: the server exited (code 5) during the round trip',
      });
  });

  it('a server that exits before listening: failed at "wait for listen", see its stderr', async () => {
    const { r } = await http(spec(bench.server('exits.mjs', "console.error('no config');\nprocess.exit(4);\n")));
    expect(r).toMatchObject({ verdict: 'failed', step: 'wait for listen', stderrTail: 'no config' });
    expect(r.message).toBe(`server exited (code 4) before listening on 127.0.0.1:${r.details!.port as number} (see its stderr)`);
    expect(r.details).not.toHaveProperty('checks');
  });

  it('listens on another port: named, with the hint about {port} and {host}', async () => {
    const bin = bench.server(
      'elsewhere.mjs',
      "import net from 'node:net';\nnet.createServer().listen(0, '127.0.0.1', () => net.createServer().listen(0, '127.0.0.1'));\n",
    );
    const { r } = await neverReady(bin, (server) => new Set(listensOf(server).map((l) => l.port)).size >= 2);
    expect(r).toMatchObject({ verdict: 'failed', step: 'wait for listen' });
    expect(r.message).toMatch(
      new RegExp(
        `^never listened on 127\\.0\\.0\\.1:${r.details!.port as number} within ${READY_BOUND_MS} ms; it listens on 127\\.0\\.0\\.1:\\d+, 127\\.0\\.0\\.1:\\d+ instead: check that http\\.args pass \\{port\\} and \\{host\\}$`,
      ),
    );
  });

  it('stdio-only signs: JSON-RPC on stdout and an exit on stdin EOF; neither: told to check http.args', async () => {
    const stdio = bench.server(
      'stdio-only.mjs',
      // Whitespace where JSON allows it still reads as JSON-RPC.
      `console.log('  { "jsonrpc" :  "2.0", "method": "notifications/message" }');\nprocess.stdin.resume();\nprocess.stdin.on('end', () => process.exit(0));\n`,
    );
    const { r } = await neverReady(stdio, wrote('"jsonrpc"'));
    const where = `127.0.0.1:${r.details!.port as number}`;
    expect(r.message).toBe(
      `never listened on ${where} within ${READY_BOUND_MS} ms, nor on any other TCP port; it looks stdio-only (it wrote JSON-RPC to stdout, it exited when its stdin closed): it ignored http.args. If the server has no HTTP transport, set \`http: false\``,
    );
    // A log line that merely mentions JSON-RPC is not JSON-RPC on stdout.
    const idle = bench.server('idle.mjs', `console.log('log: {"jsonrpc":"2.0"}');\nsetInterval(() => {}, 1000);\n`);
    const second = await neverReady(idle, wrote('log: '));
    expect(second.r.message).toBe(
      `never listened on 127.0.0.1:${second.r.details!.port as number} within ${READY_BOUND_MS} ms, nor on any other TCP port: check that http.args start its HTTP transport, or set \`http: false\` if it is stdio-only`,
    );
  });

  it('a port another process answers on is retried once on a new port; held twice, not measured', async () => {
    const hold = async (): Promise<number> => {
      const h = net.createServer();
      holders.push(h);
      await new Promise<void>((r) => h.listen(0, '127.0.0.1', r));
      return (h.address() as net.AddressInfo).port;
    };
    const [a, b, c] = [await hold(), await hold(), await hold()];
    const held = (p: number): string =>
      `127\\.0\\.0\\.1:${p} answers, but no process of the started server's group holds it \\(held by pid ${process.pid}: [^)]*\\)`;

    // The retry's port is one no other test file's process can take meanwhile: a race there would be a second one.
    const retry = await quietPort();
    process.env[TEST_PORTS_ENV] = `${a},${retry}`;
    const once = await http(spec(TEST_SERVER));
    expect(once.r.verdict).toBe('passed');
    expect(once.r.details!.port).toBe(retry);
    expect(once.r.details!.retriedAfter).toEqual({ port: a, cause: expect.stringMatching(new RegExp(`^${held(a)}$`)) });
    expect(once.ctx.servers).toHaveLength(2);

    process.env[TEST_PORTS_ENV] = `${b},${c}`;
    const twice = await http(spec(TEST_SERVER));
    expect(twice.r).toMatchObject({ phase: 'http', verdict: 'not-measured', step: 'port identity' });
    expect(twice.r.message).toMatch(
      new RegExp(
        `^the port was held by another process twice, so the server could not be measured: ${held(b)}; retried on a new port: ${held(c)}$`,
      ),
    );
    expect(twice.r.details).toEqual({ portRaces: [expect.objectContaining({ port: b }), expect.objectContaining({ port: c })] });
    expect(process.env).not.toHaveProperty(TEST_PORTS_ENV);
  });

  it('EADDRINUSE on its port in its stderr is a race: retried, and the retry judged', async () => {
    const marker = join(bench.cell, 'http-raced');
    const bin = bench.server(
      'eaddrinuse.mjs',
      `import { existsSync, writeFileSync } from 'node:fs';\n${ARGS}if (!existsSync(${JSON.stringify(marker)})) {\n  writeFileSync(${JSON.stringify(marker)}, '');\n  console.error('Error: listen EADDRINUSE: address already in use ' + host + ':' + port);\n  process.exit(1);\n}\nprocess.exit(5);\n`,
    );
    const { r } = await http(spec(bin));
    const first = (r.details!.retriedAfter as { port: number }).port;
    expect(r.details!.retriedAfter).toEqual({ port: first, cause: `port ${first} is already in use (EADDRINUSE in the server's stderr)` });
    expect(r).toMatchObject({ verdict: 'failed', step: 'wait for listen' });
    expect(r.message).toBe(`server exited (code 5) before listening on 127.0.0.1:${r.details!.port as number} (see its stderr)`);
  });

  it('EADDRINUSE on its port held by itself (it listens twice there) is its own failure, never a race', async () => {
    const bin = bench.server(
      'twice.mjs',
      // First on another loopback address (so the harness never reaches it before the crash), then on every interface.
      `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '127.0.0.2');\nnet.createServer().listen(port, '0.0.0.0');\n`,
    );
    const { r, ctx } = await http(spec(bin));
    const port = r.details!.port as number;
    expect(r).toMatchObject({ verdict: 'failed', step: 'wait for listen' });
    expect(r.message).toBe(
      `server exited (code 1) before listening on 127.0.0.1:${port}; the probe saw it listen on port ${port}, then a second listen there fail with EADDRINUSE: it listens twice on its port, so the port was taken by itself, not by another process (see its stderr)`,
    );
    expectNoRaceButForeign(r.details, 'twice.mjs');
    expect(ctx.servers).toHaveLength(r.details!.retriedAfter ? 2 : 1);
  });

  it("a listener outside the server's group that carries its tag is the server's own descendant", async () => {
    const bin = bench.server(
      'detached.mjs',
      `import { spawn } from 'node:child_process';\nconst child = spawn(process.execPath, [...Array(20).fill('--no-warnings'), ${JSON.stringify(TEST_SERVER)}, ...process.argv.slice(2)], { detached: true, stdio: 'ignore' });\nconsole.log('child ' + child.pid);\nsetInterval(() => {}, 1000);\nprocess.on('SIGTERM', () => process.exit(0));\n`,
    );
    // Another server of the same driver first: the tag looked for is this server's own.
    const ctx0 = bench.context();
    const other = ctx0.startServer('stdio', { bin: bench.server('other.mjs', 'setInterval(() => {}, 1000);\n'), args: [], env: {} }, {});
    await other.kill();
    const { r, ctx } = await http(spec(bin), ctx0);
    const listener = r.details!.listener as { pid: number; cmdline: string };
    extra.push(listener.pid);
    expect(ctx.servers[1]!.proc.noise.lines).toEqual([`child ${listener.pid}`]);
    expect(r.details!.readyMs).toBeLessThan(600_000);
    expect(r).toMatchObject({ verdict: 'passed', message: 'no token → 401 with a Bearer challenge; wrong token → 401; round trip ok' });
    expect(r.details).toMatchObject({ identity: 'descendant', readyMs: expect.any(Number) });
    // Its command line, cut at 200 characters.
    expect(listener.cmdline).toHaveLength(200);
    expect(listener.cmdline.startsWith(`${process.execPath} --no-warnings`)).toBe(true);
    expectNoRaceButForeign(r.details, '--no-warnings --no-warnings');
  });

  it('a client without Streamable HTTP (before 1.10): skipped with the reason, no server started', async () => {
    const ctx = bench.context({ clientVersion: '1.9.0' });
    const r = await httpPhase(ctx, spec(TEST_SERVER));
    expect(r).toEqual({
      phase: 'http',
      verdict: 'skipped',
      durationMs: expect.any(Number),
      message: 'the client @modelcontextprotocol/sdk@1.9.0 has no Streamable HTTP transport (added in 1.10.0)',
    });
    expect(ctx.servers).toEqual([]);
  });

  it("the cell's SDK client cannot be loaded: failed at 'load the client', no server started", async () => {
    const ctx = bench.context({ major: 2 });
    const r = await httpPhase(ctx, spec(TEST_SERVER));
    expect(r).toMatchObject({ phase: 'http', verdict: 'failed', step: 'load the client' });
    expect(r.message).toMatch(
      /^could not load the client @modelcontextprotocol\/client@\(version unknown\): .*@modelcontextprotocol\/client.* \(the cell's own SDK\)$/,
    );
    expect(ctx.servers).toEqual([]);
  });

  it("a client variant's client cannot be loaded: not-measured (the harness's install, not the server), naming package@version", async () => {
    const ctx = bench.context({ major: 2, clientVersion: '2.4.0' });
    const r = await httpPhase(ctx, spec(TEST_SERVER));
    expect(r).toMatchObject({ phase: 'http', verdict: 'not-measured', step: 'load the client' });
    expect(r.message).toMatch(/^could not load the client @modelcontextprotocol\/client@2\.4\.0: .*@modelcontextprotocol\/client/);
    expect(ctx.servers).toEqual([]);
  });

  // What the leaks phase checks after every phase ran: the driver's own process holds nothing it did
  // not hold before (no request timer, no client connection). Here right after the http phase alone.
  it("the driver holds nothing after the phase: the leaks phase's own-handle check passes", async () => {
    const baseline = activeResources();
    const { r, ctx } = await http(spec(TEST_SERVER));
    expect(r.verdict).toBe('passed');
    const leaks = await leaksPhase(ctx, 2000, baseline, levels('leaks'));
    expect(leaks.details!.driverHandles).toEqual([]);
    expect(leaks).toMatchObject({ phase: 'leaks', verdict: 'passed' });
    // Also by where they were made, not only by count: a test before this one may leave timers of its own
    // that expire meanwhile and hide a new one from the count. Connections closing get a moment.
    const made = (): ProbeHandle[] => liveHandles([0, 1, 2]).filter((h) => h.location?.includes('src/driver/phases/http.ts'));
    const until = Date.now() + 2000;
    while (made().length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(made()).toEqual([]);
  });

  it('the client session is closed even when the round trip fails: a server that stops once its event streams end still exits', async () => {
    // No session DELETE after a failed step: only closing the client ends the event stream (SSE GET) it opened.
    // Left open, this server never exits and the leaks phase would blame it for the driver's stream.
    const bad: Step = { tool: 'echo', arguments: { text: 'hi' }, expect: { text: 'nope' } };
    const { r, ctx } = await http(spec(TEST_SERVER, { steps: [bad] }, { TEST_MODE: 'graceful-stop' }));
    expect(r).toMatchObject({ verdict: 'failed', step: 'tools/call echo' });
    // The measured server: the last, after a true port race with another file's process.
    expect(ctx.servers.at(-1)!.proc.stderr.tail()).toContain('test-server: event stream opened');
    expect(ctx.servers.at(-1)!.proc.exitInfo).toMatchObject({ code: 0, signal: null });
  });

  it('the requested port at another address: named as observed, with the hint about {host}', async () => {
    // 127.0.0.2 is loopback too, but a client of 127.0.0.1 cannot reach it.
    const bin = bench.server('other-host.mjs', `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '127.0.0.2');\n`);
    const { r } = await neverReady(bin, (server) => listensOf(server).some((l) => l.address === '127.0.0.2'));
    const port = r.details!.port as number;
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'wait for listen',
      message: `never listened on 127.0.0.1:${port} within ${READY_BOUND_MS} ms; it listened on 127.0.0.2:${port}, not on the requested host 127.0.0.1: check that http.args pass {host}`,
    });
  });

  /** Listens on {host}:{port} only once `go` exists, then writes `up`; `own: false`, from a child the probe cannot see. */
  const listensOnGo = (name: string, go: string, up: string, own = true): string => {
    const listen = `const t = setInterval(() => {\n  if (!existsSync(${JSON.stringify(go)})) return;\n  clearInterval(t);\n  net.createServer().listen(port, host, () => writeFileSync(${JSON.stringify(up)}, ''));\n}, 10);\n`;
    if (own)
      return bench.server(name, `import net from 'node:net';\nimport { existsSync, writeFileSync } from 'node:fs';\n${ARGS}${listen}`);
    // A child in the server's group whose probe writes elsewhere (as if the probe could not run in it): only /proc
    // shows its listen.
    const child = `import net from 'node:net';\nimport { existsSync, writeFileSync } from 'node:fs';\nconst [port, host] = [Number(process.argv[1]), process.argv[2]];\n${listen}`;
    return bench.server(
      name,
      `import { spawn } from 'node:child_process';\n${ARGS}const env = { ...process.env, MCP_MATRIX_PROBE_FILE: ${JSON.stringify(join(bench.cell, `${name}.elsewhere.jsonl`))} };\nconst c = spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(child)}, String(port), host], { env, stdio: 'inherit' });\nprocess.on('SIGTERM', () => { c.kill(); process.exit(0); });\n`,
    );
  };

  it('a listen on the requested host made after the wait (the driver stalled past it): never answered, though it listens there now', async () => {
    // The server may listen only once the bound has passed: its own (probe) record of the listen is past it too.
    const go = join(bench.cell, 'late-go');
    const up = join(bench.cell, 'late-up');
    const bin = listensOnGo('late.mjs', go, up);
    const { r, ctx } = await http(spec(bin, { readyTimeoutMs: 1000 }), bench.context({}, stallPastBound(go, up, 1000, true)));
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'wait for listen',
      message: `never answered on 127.0.0.1:${r.details!.port as number} within 1000 ms, though it listens there now (it listened after the wait ended): if it is that slow to start, raise http.readyTimeoutMs`,
    });
    const listened = ctx.servers
      .at(-1)!
      .proc.probeRecords()
      .find((rec) => rec.type === 'listen');
    expect(listened).toMatchObject({ address: '127.0.0.1', port: r.details!.port, at: expect.any(Number) });
  });

  it('a listen its own record dates within the bound, read only past it (the driver stalled): in time', async () => {
    // Before the probe's dated record, this read as "it listened after the wait ended": a stalled driver's false verdict.
    // Called once the server is spawned, after `ctx` below is set.
    const settled = (): boolean => {
      const proc = ctx.servers.at(0)?.proc;
      return !!proc && (!proc.running || proc.probeRecords().some((rec) => rec.type === 'listen' || rec.type === 'listen-failed'));
    };
    const stalled = listenReadPastBound(settled, READY_BOUND_MS);
    const ctx = bench.context({}, stalled.onMessage);
    try {
      const { r } = await http(spec(TEST_SERVER, { readyTimeoutMs: READY_BOUND_MS }), ctx);
      expectNoRaceButForeign(r.details, `held by pid ${ctx.servers[0]!.proc.pid}:`);
      expect(r).toMatchObject({ verdict: 'passed' });
      expect(r.details!.readyMs).toBeLessThanOrEqual(READY_BOUND_MS);
    } finally {
      stalled.restore();
    }
  });

  it('a listen only /proc shows (no probe record dates it), read after a stall across the bound: not measured, with its cause', async () => {
    const go = join(bench.cell, 'undated-go');
    const up = join(bench.cell, 'undated-up');
    const bin = listensOnGo('undated.mjs', go, up, false);
    const { r } = await http(spec(bin, { readyTimeoutMs: 1000 }), bench.context({}, stallPastBound(go, up, 1000)));
    const port = r.details!.port as number;
    expect(r).toMatchObject({ verdict: 'not-measured', step: 'wait for listen' });
    expect(r.message).toMatch(
      new RegExp(
        `^it listens on 127\\.0\\.0\\.1:${port} now, but the driver had no loop turn for \\d+ ms across the end of its 1000 ms wait \\(a loaded machine\\) and no probe record dates the listen: whether it came in time is unknown$`,
      ),
    );
  });

  it.each([
    ['compact, "jsonrpc" first', '{"jsonrpc":"2.0","method":"notifications/message"}'],
    ['compact, "jsonrpc" after another key', '{"id":1,"jsonrpc":"2.0","result":{}}'],
    ['spaced, indented, after a log line', 'starting\n\t { "jsonrpc" : "2.0", "id": 1, "result": {} }'],
  ])('JSON-RPC on stdout (%s) is a stdio-only sign on its own', async (_, lines) => {
    // It does not exit on stdin EOF: the JSON-RPC line is the only sign (one such line among others is enough).
    const bin = bench.server(`jsonrpc-${lines.length}.mjs`, `console.log(${JSON.stringify(lines)});\nsetInterval(() => {}, 1000);\n`);
    const { r } = await neverReady(bin, wrote('"jsonrpc"'));
    expect(r.message).toBe(
      `never listened on 127.0.0.1:${r.details!.port as number} within ${READY_BOUND_MS} ms, nor on any other TCP port; it looks stdio-only (it wrote JSON-RPC to stdout): it ignored http.args. If the server has no HTTP transport, set \`http: false\``,
    );
  });

  it("the round trip's protocol goes to the summary only when it negotiated one, and never over one stdio recorded", async () => {
    const ctx = bench.context();
    ctx.summary.protocolVersion = '2024-11-05';
    const { r } = await http(spec(TEST_SERVER), ctx);
    expect(r.details!.protocolVersion).toEqual(expect.any(String));
    expect(r.details!.protocolVersion).not.toBe('2024-11-05');
    expect(ctx.summary).toStrictEqual({ leakedHandles: null, protocolVersion: '2024-11-05' });
    // A round trip that failed at initialize negotiated nothing: the summary gains no key.
    const failed = await http(spec(fixed('refused-401.mjs', 401, 'Bearer')));
    expect(failed.r.verdict).toBe('failed');
    expect(failed.ctx.summary).toStrictEqual({ leakedHandles: null });
  });
});
