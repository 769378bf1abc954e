// The http phase's checks of the transport's own requirements, from src, against real server processes
// on this repository's SDK: the reference server (stateful, its own Host/Origin guard) passes every one;
// each broken fixture (fixtures/broken/http-*) fails exactly its own check, at its level, with a message
// naming the requirement and the spec revision. The judges themselves are pure and tested on answers.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpPhase } from '../../../src/driver/phases/http.js';
import type { DriverSpec, Step } from '../../../src/contract/protocol.js';
import type { PhaseResultOf } from '../../../src/results/types.js';
import { judgeHost, judgeOrigin, judgeProtocolVersion, judgeQueryToken, judgeSessions } from '../../../src/driver/http/spec-judges.js';
import { negotiatedVersion, NoAnswer, type RawAnswer } from '../../../src/driver/http/raw-http.js';
import { ROOT, TEST_SERVER } from '../helpers/cell.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { resolved } from '../helpers/levels.js';

type HttpSpec = Exclude<DriverSpec['phases']['http'], false>;

const STEP: Step = { tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } };
const fixture = (name: string): string => join(ROOT, 'fixtures/broken', name, 'bin/server.js');

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-spec-checks-');
});
afterAll(async () => {
  await bench?.dispose();
});

function spec(bin: string, over: Partial<HttpSpec> = {}): HttpSpec {
  return resolved('http', {
    command: {
      bin,
      args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
      env: { MCP_SERVER_TOKEN: '{token}' },
    },
    host: '127.0.0.1',
    path: '/mcp',
    steps: [STEP],
    readyTimeoutMs: 15_000,
    timeoutMs: 10_000,
    ...over,
  });
}

/** The deaths the last run recorded where the leaks phase reads them (ctx.diedMidRequest). */
let deaths: { role: string; request: string }[] = [];

async function run(s: HttpSpec): Promise<PhaseResultOf<'http'>> {
  const ctx = bench.context();
  const r = await httpPhase(ctx, s);
  for (const server of ctx.servers) await server.proc.waitExit(5000);
  deaths = ctx.diedMidRequest.map((d) => ({ role: d.role, request: d.request }));
  return ctx.redactor.deep(r);
}

const outcomes = (r: PhaseResultOf<'http'>): Record<string, string> =>
  Object.fromEntries((r.checks ?? []).map((c) => [c.id, `${c.outcome}/${c.level}`]));
const failedIds = (r: PhaseResultOf<'http'>): string[] => (r.checks ?? []).filter((c) => c.outcome === 'failed').map((c) => c.id);

describe('http spec checks against real servers', () => {
  it('the reference server (stateful, guards Host and Origin itself) passes every check', async () => {
    const r = await run(
      spec(join(ROOT, 'fixtures/reference-server/bin/reference-mcp-server.js'), {
        steps: [{ tool: 'add_note', arguments: { title: 't', body: 'b' } }],
      }),
    );
    expect(r.verdict, r.message).toBe('passed');
    expect(failedIds(r)).toEqual([]);
    expect(outcomes(r)).toMatchObject({
      'token-in-header': 'passed/require',
      origin: 'passed/warn',
      host: 'passed/warn',
      'protocol-version': 'passed/require',
      'session-id-visible-ascii': 'passed/require',
      'session-id-distinct': 'passed/warn',
      'session-required': 'passed/warn',
      'session-ended-404': 'passed/require',
    });
    expect(r.checks!.find((c) => c.id === 'host')!.message).toMatch(/^Host evil\.example:\d+ refused with 403$/);
  });

  it('the stateless control (_base): sessions are skipped, saying why; Origin and Host unchecked only warn behind a token', async () => {
    const r = await run(spec(fixture('_base')));
    expect(r.verdict, r.message).toBe('passed');
    expect(outcomes(r)).toMatchObject({ origin: 'failed/warn', host: 'failed/warn', 'session-ended-404': 'skipped/require' });
    expect(r.checks!.find((c) => c.id === 'session-ended-404')!.message).toBe('the server issued no Mcp-Session-Id (no sessions)');
    // A warning is shown from the checks, never in the message (which names what decides the verdict).
    expect(r.message).toBe('no token → 401 with a Bearer challenge; wrong token → 401; round trip ok');
    expect(r.checks!.find((c) => c.id === 'origin')!.message).toBe(
      'a foreign Origin (http://evil.example) got 200 (want 403: the server does not validate Origin (DNS rebinding); judged by MCP 2025-11-25, the revision it negotiated)',
    );
  });

  it.each([
    [
      'http-query-token',
      'token-in-header',
      'request with the token in the query string',
      /^token-in-header: the right token in the query string \(\?access_token=…\) without an Authorization header got 200 \(want 401: a token in the URI is accepted\) \[MUST, MCP 2025-11-25 basic\/authorization#token-requirements, level require\]$/,
    ],
    [
      'http-protocol-version-ignored',
      'protocol-version',
      'request with an unsupported protocol version',
      /^protocol-version: a request with MCP-Protocol-Version 1999-01-01 got 200 \(want 400: the header is ignored\) \[MUST, MCP 2025-11-25 basic\/transports#protocol-version-header, level require\]$/,
    ],
    [
      'http-session-after-delete',
      'session-ended-404',
      'request after session DELETE',
      /^session-ended-404: after DELETE \(200\) a request with the ended session's ID got 200 \(want 404: the session is still valid\) \[MUST, MCP 2025-11-25 basic\/transports#session-management, level require\]$/,
    ],
  ])('%s fails exactly %s', async (name, id, step, message) => {
    const r = await run(spec(fixture(name)));
    expect(r.verdict, r.message).toBe('failed');
    expect(failedIds(r).filter((x) => x !== 'origin' && x !== 'host')).toEqual([id]);
    expect(r.step).toBe(step);
    const line = r.message!.split('; ').find((part) => part.startsWith(`${id}: `));
    expect(line).toMatch(message);
    // The bearer checks and the round trip still pass: only the spec check fails.
    expect(outcomes(r)).toMatchObject({
      'no-token-401': 'passed/require',
      'wrong-token-401': 'passed/require',
      'round-trip': 'passed/require',
    });
  });

  it("http-origin-unchecked on the SDK's own protection (1.24+, here the repo's 1.32.2): Host refused, Origin not checked; required with auth none", async () => {
    const r = await run(
      spec(fixture('http-origin-unchecked'), {
        auth: 'none',
        command: { ...spec('').command, bin: fixture('http-origin-unchecked'), env: {} },
      }),
    );
    expect(r.verdict, r.message).toBe('failed');
    expect(failedIds(r)).toEqual(['origin']);
    expect(outcomes(r)).toMatchObject({ origin: 'failed/require', host: 'passed/warn', 'token-in-header': 'skipped/require' });
    expect(r.step).toBe('request with a foreign Origin');
    expect(r.message).toContain(
      'origin: a foreign Origin (http://evil.example) got 200 (want 403: the server does not validate Origin (DNS rebinding); judged by MCP 2025-11-25, the revision it negotiated) [MUST, MCP 2025-11-25 basic/transports#security-warning, level require]',
    );
  });

  it('a Host allowlist (403 to every request unless Host is localhost:PORT) is named as one, not a token of its own', async () => {
    const bin = bench.server(
      'host-allowlist.mjs',
      `import http from 'node:http';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
http.createServer((req, res) => {
  if (req.headers.host !== 'localhost:' + port) return void res.writeHead(403).end('forbidden host');
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
}).listen(port, '127.0.0.1');
`,
    );
    const r = await run(spec(bin, { auth: 'none', command: { ...spec('').command, bin, env: {} } }));
    const port = r.details!.port as number;
    expect(r.verdict).toBe('failed');
    expect(r.message).toContain(
      `(every request to Host 127.0.0.1:${port} got 403, but Host localhost:${port} is served: a Host allowlist, not a token; run it with http.host: 'localhost')`,
    );
  });

  const testServer = (mode: string, over: Partial<HttpSpec> = {}): HttpSpec => {
    const base = spec(TEST_SERVER, over);
    return { ...base, command: { ...base.command, env: { ...base.command.env, TEST_MODE: mode } } };
  };

  it('a server that refuses a foreign Host by closing the connection refuses it: host passes, naming the closed connection', async () => {
    const r = await run(testServer('drop-foreign-host', { checks: { host: 'require' } }));
    const port = r.details!.port as number;
    expect(r.verdict, r.message).toBe('passed');
    expect(r.checks!.find((c) => c.id === 'host')).toMatchObject({
      outcome: 'passed',
      level: 'require',
      message: `Host evil.example:${port}: the connection was closed without an HTTP answer (socket hang up), a refusal (a DNS-rebound page reads nothing), while its own Host (127.0.0.1:${port}) is served`,
    });
  });

  it('a server that negotiates 2025-11-25 and refuses a foreign Origin by closing the connection fails origin for the missing 403 alone, named as such', async () => {
    const r = await run(testServer('drop-foreign-origin', { checks: { origin: 'require' } }));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.checks!.filter((c) => c.outcome === 'failed' && c.level === 'require').map((c) => c.id)).toEqual(['origin']);
    expect(r.step).toBe('request with a foreign Origin');
    expect(r.message).toContain(
      'origin: a foreign Origin (http://evil.example) got no HTTP answer: the connection was closed (socket hang up), which refuses it (a DNS-rebound page reads nothing), but an invalid Origin MUST get 403 Forbidden (judged by MCP 2025-11-25, the revision it negotiated; earlier revisions named no status) [MUST, MCP 2025-11-25 basic/transports#security-warning, level require]',
    );
  });

  const withRevision = (mode: string, revision: string, over: Partial<HttpSpec> = {}): HttpSpec => {
    const base = testServer(mode, over);
    return { ...base, command: { ...base.command, env: { ...base.command.env, TEST_REVISION: revision } } };
  };

  it.each([
    ['2025-06-18', 'drop-foreign-origin', 'the connection closed (socket hang up)'],
    ['2025-03-26', 'drop-foreign-origin', 'the connection closed (socket hang up)'],
    ['2025-06-18', 'origin-400', '400'],
    ['2025-03-26', 'origin-400', '400'],
  ])(
    'a server that negotiates %s and refuses a foreign Origin by %s is judged by that revision (no status named): origin passes, citing it',
    async (revision, mode, refusal) => {
      const r = await run(withRevision(mode, revision, { checks: { origin: 'require' } }));
      expect(r.verdict, r.message).toBe('passed');
      expect(r.details!.protocolVersion).toBe(revision);
      const port = r.details!.port as number;
      expect(r.checks!.find((c) => c.id === 'origin')).toMatchObject({
        outcome: 'passed',
        level: 'require',
        requirement: 'MUST',
        spec: { revision: `MCP ${revision}`, section: 'basic/transports#security-warning' },
        message: `a foreign Origin got ${refusal}, a refusal; a loopback Origin got 200 (judged by MCP ${revision}, the revision it negotiated, which names no status)`,
        evidence: { revision, loopbackOrigin: `http://localhost:${port}` },
      });
    },
  );

  // Item 9 review: under a revision without basic/authorization (2024-11-05, what many hand-written servers answer),
  // the 401 checks were not applicable, so a server the config says requires a bearer token passed while serving
  // requests without one. The 401 status is the later revision's; refusing them is the config's (`http.auth`).
  it('a server that negotiates 2024-11-05 and serves requests without a token fails: the configured auth, not the 401 status', async () => {
    const r = await run(withRevision('no-auth', '2024-11-05'));
    expect(r.details!.protocolVersion).toBe('2024-11-05');
    expect(r.verdict, r.message).toBe('failed');
    expect(r.step).toBe('request without a token');
    expect(r.checks!.find((c) => c.id === 'no-token-401')).toMatchObject({
      outcome: 'failed',
      level: 'require',
      revision: '2024-11-05',
      message:
        "200: the endpoint served a request without a token, but the config says it requires a bearer token (http.auth 'bearer'); MCP 2024-11-05 has no authorization section, so no status is required of the refusal",
      short: '200 (want a refusal)',
    });
    // The config's rule, not the spec's: no MCP citation.
    expect(r.checks!.find((c) => c.id === 'no-token-401')).not.toHaveProperty('spec');
    expect(r.checks!.find((c) => c.id === 'wrong-token-401')).toMatchObject({
      outcome: 'failed',
      level: 'require',
      message:
        "200: the endpoint served a request with a wrong token, but the config says it requires a bearer token (http.auth 'bearer'); MCP 2024-11-05 has no authorization section, so no status is required of the refusal",
    });
    expect(r.message).toBe(
      "no token → 200: the endpoint served a request without a token, but the config says it requires a bearer token (http.auth 'bearer'); MCP 2024-11-05 has no authorization section, so no status is required of the refusal; wrong token → 200: the endpoint served a request with a wrong token, but the config says it requires a bearer token (http.auth 'bearer'); MCP 2024-11-05 has no authorization section, so no status is required of the refusal; round trip ok",
    );
  });

  it('a server that negotiates 2025-11-25 and answers a foreign Origin with 400 fails origin for the 403 that revision requires', async () => {
    const r = await run(testServer('origin-400', { checks: { origin: 'require' } }));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.details!.protocolVersion).toBe('2025-11-25');
    expect(r.checks!.find((c) => c.id === 'origin')).toMatchObject({
      outcome: 'failed',
      spec: { revision: 'MCP 2025-11-25', section: 'basic/transports#security-warning' },
      message: 'a foreign Origin (http://evil.example) got 400 (want 403; judged by MCP 2025-11-25, the revision it negotiated)',
    });
  });

  it('a server that negotiates 2025-06-18 and serves a foreign Origin still fails origin, citing 2025-06-18', async () => {
    const r = await run(withRevision('', '2025-06-18', { checks: { origin: 'require' } }));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.message).toContain(
      'origin: a foreign Origin (http://evil.example) got 200 (want a refusal, a 4xx or a closed connection: the server does not validate Origin (DNS rebinding); judged by MCP 2025-06-18, the revision it negotiated, which names no status) [MUST, MCP 2025-06-18 basic/transports#security-warning, level require]',
    );
  });

  it('a server that exits under a spec check: that check names the exit once, the later ones are not run, the round trip says why it was not run', async () => {
    // It exits (code 9) on the unsupported MCP-Protocol-Version: every request after that found nobody listening.
    const r = await run(testServer('crash-on-bad-version'));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.step).toBe('request with an unsupported protocol version');
    expect(r.message).toBe(
      'no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: not run: the server exited during protocol-version; protocol-version: the server exited (code 9) under the request with an unsupported protocol version (see its stderr) [MUST, MCP 2025-11-25 basic/transports#protocol-version-header, level require]',
    );
    expect(r.message).not.toMatch(/ECONNREFUSED|socket hang up/);
    const notRun = 'not run: the server exited (code 9) during protocol-version';
    expect(Object.fromEntries(r.checks!.map((c) => [c.id, [c.outcome, c.outcome === 'skipped' ? c.message : '']]))).toMatchObject({
      'token-in-header': ['passed', ''],
      'protocol-version': ['failed', ''],
      'session-id-visible-ascii': ['skipped', notRun],
      'session-id-distinct': ['skipped', notRun],
      'session-required': ['skipped', notRun],
      'session-ended-404': ['skipped', notRun],
      'round-trip': ['failed', ''],
      // The lifecycle edges (after the round trip) name the exit too, not 'the round trip failed'.
      'unknown-method': ['skipped', notRun],
      'repeated-initialize': ['skipped', notRun],
      cancellation: ['skipped', notRun],
    });
    expect(JSON.stringify(r.checks)).not.toMatch(/ECONNREFUSED/);
    // Issue 32 item 8: what the driver's client still holds from the request is not counted as its own leak.
    expect(deaths).toEqual([{ role: 'http', request: 'protocol-version' }]);
  });

  it('a server that exits under the request without a token: no-token-401 names the exit, every later check is skipped with it, nothing reads ECONNREFUSED', async () => {
    // It exits (code 7) on the request without a token, unanswered, once the wrong token (sent with it) has had its 401.
    const r = await run(testServer('crash-on-no-token'));
    expect(r.verdict, r.message).toBe('failed');
    expect(r.step).toBe('request without a token');
    expect(r.message).toBe(
      'no token → the server exited (code 7) under the request without a token (see its stderr); wrong token → 401; round trip failed: not run: the server exited during no-token-401',
    );
    const notRun = 'not run: the server exited (code 7) during no-token-401';
    const seen = Object.fromEntries(r.checks!.map((c) => [c.id, `${c.outcome}: ${c.message}`]));
    expect(seen).toEqual({
      'no-token-401': 'failed: the server exited (code 7) under the request without a token (see its stderr)',
      'www-authenticate': `skipped: ${notRun}`,
      'wrong-token-401': 'passed: 401',
      'token-in-header': `skipped: ${notRun}`,
      origin: `skipped: ${notRun}`,
      host: `skipped: ${notRun}`,
      'protocol-version': `skipped: ${notRun}`,
      'session-id-visible-ascii': `skipped: ${notRun}`,
      'session-id-distinct': `skipped: ${notRun}`,
      'session-required': `skipped: ${notRun}`,
      'session-ended-404': `skipped: ${notRun}`,
      'round-trip': 'failed: failed: not run: the server exited during no-token-401',
      'unknown-method': `skipped: ${notRun}`,
      'unknown-tool': `skipped: ${notRun}`,
      'invalid-arguments': `skipped: ${notRun}`,
      'repeated-initialize': `skipped: ${notRun}`,
      cancellation: `skipped: ${notRun}`,
    });
    expect(r.checks!.find((c) => c.id === 'no-token-401')).toMatchObject({
      step: 'request without a token',
      evidence: { exited: 'code 7' },
    });
    expect(JSON.stringify(r)).not.toMatch(/ECONNREFUSED|fetch failed|socket hang up/);
    expect(deaths).toEqual([{ role: 'http', request: 'no-token-401' }]);
  });

  it('a level set to off is not run, and a required check set to warn no longer fails the phase', async () => {
    const r = await run(spec(fixture('http-query-token'), { checks: { 'token-in-header': 'warn', origin: 'off' } }));
    expect(r.verdict, r.message).toBe('passed');
    expect(outcomes(r)).toMatchObject({ 'token-in-header': 'failed/warn', origin: 'skipped/off' });
  });
});

describe('the judges, on answers', () => {
  const a = (status: number, extra: Partial<RawAnswer> = {}): RawAnswer => ({ status, body: '', ...extra });
  it('Origin: 403 for the foreign one and 2xx for loopback passes; any other status fails naming it', () => {
    expect(judgeOrigin(a(403), a(200), 'http://localhost:1').outcome).toBe('passed');
    expect(judgeOrigin(a(400), a(200), 'http://localhost:1')).toMatchObject({
      outcome: 'failed',
      message: 'a foreign Origin (http://evil.example) got 400 (want 403; judged by MCP 2025-11-25: no negotiated revision was read)',
    });
    expect(judgeOrigin(a(403), a(403), 'http://localhost:1')).toMatchObject({ outcome: 'failed', step: 'request with a loopback Origin' });
    expect(judgeOrigin(new NoAnswer('reset'), a(200), 'x')).toMatchObject({ outcome: 'failed', short: 'no answer' });
  });
  it('Host: any 4xx is a refusal, named; 2xx and 5xx are not', () => {
    expect(judgeHost(a(421), 80)).toMatchObject({ outcome: 'passed', message: 'Host evil.example:80 refused with 421' });
    expect(judgeHost(a(500), 80).outcome).toBe('failed');
    expect(judgeHost(a(200), 80).message).toMatch(/does not validate Host/);
  });
  it('protocol version: exactly 400 for the unsupported one, 2xx for the negotiated one', () => {
    expect(judgeProtocolVersion(a(400), a(200), '2025-06-18').outcome).toBe('passed');
    expect(judgeProtocolVersion(a(406), a(200), 'v').message).toBe('a request with MCP-Protocol-Version 1999-01-01 got 406 (want 400)');
    expect(judgeProtocolVersion(a(400), a(400), 'v')).toMatchObject({
      outcome: 'failed',
      step: 'request with the negotiated protocol version',
    });
  });
  it('sessions: visible ASCII, distinct, 400 without, 404 after DELETE; 405 to DELETE is not judged', () => {
    const base = { first: 'abc', second: 'abd', withId: a(200), withoutId: a(400), deleted: a(204), afterDelete: a(404) };
    expect(Object.values(judgeSessions(base)).map((f) => f.outcome)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(judgeSessions({ ...base, first: 'a b' })['session-id-visible-ascii'].outcome).toBe('failed');
    expect(judgeSessions({ ...base, first: 'é' })['session-id-visible-ascii'].outcome).toBe('failed');
    expect(judgeSessions({ ...base, second: 'abc' })['session-id-distinct'].message).toBe('two sessions got the same Mcp-Session-Id');
    expect(judgeSessions({ ...base, withoutId: a(200) })['session-required'].message).toBe(
      'a request (ping) without Mcp-Session-Id got 200 (want 400)',
    );
    expect(judgeSessions({ ...base, deleted: a(405) })['session-ended-404'].outcome).toBe('skipped');
    expect(judgeSessions({ ...base, deleted: a(500) })['session-ended-404'].outcome).toBe('failed');
    const none = judgeSessions({ withId: a(200), withoutId: a(200), deleted: a(405), afterDelete: a(200) });
    expect(Object.values(none).map((f) => f.outcome)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
  });
  it('token in the query string: 401 (or the no-token refusal itself) passes; a 2xx fails; not judged when no token is refused', () => {
    expect(judgeQueryToken(a(401), 401).outcome).toBe('passed');
    expect(judgeQueryToken(a(403), 403)).toMatchObject({
      outcome: 'passed',
      message: 'the token in the query string got 403, as a request without a token does',
    });
    expect(judgeQueryToken(a(400), 401).message).toBe(
      'the right token in the query string (?access_token=…) without an Authorization header got 400 (want 401)',
    );
    expect(judgeQueryToken(a(200), 401).message).toMatch(/\(want 401: a token in the URI is accepted\)$/);
    expect(judgeQueryToken(a(200), 200).outcome).toBe('skipped');
    expect(judgeQueryToken(a(200)).outcome).toBe('skipped');
  });
  it('reads the negotiated version from JSON and from the first SSE event', () => {
    const result = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18' } });
    expect(negotiatedVersion(a(200, { contentType: 'application/json', body: result }))).toBe('2025-06-18');
    expect(negotiatedVersion(a(200, { contentType: 'text/event-stream', body: `event: message\ndata: ${result}\n\n` }))).toBe('2025-06-18');
    expect(negotiatedVersion(a(200, { body: 'nope' }))).toBeUndefined();
  });
});
