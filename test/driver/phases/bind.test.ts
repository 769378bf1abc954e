// The bind phase from src against real processes: each outcome of docs/phases.md's bind table, with
// its verdict, step, exact message and details. Servers are a few lines of Node (or a missing bin)
// written into a temp cell; the probe is the real one, bundled from src.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeExit, relative, type ExitFacts, type ExitJudgement } from '../../../src/driver/phases/bind-judgement.js';
import { bindPhase } from '../../../src/driver/phases/bind.js';
import { listensOf, TEST_BIND_PORTS_ENV, type ClassifiedListen } from '../../../src/driver/http/listen-watch.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import { pastBoundOnceSeen, phaseBench, stallPastBound, type PhaseBench } from '../helpers/phase-bench.js';
import { quietPort } from '../../helpers/quiet-port.js';

describe('relative: cell paths in a start failure', () => {
  const cell = '/tmp/mcp-matrix-x/cell-latest-1';
  it('drops the cell prefix from paths inside it, and names the cell itself "."', () => {
    expect(relative(`Cannot find module '${cell}/node_modules/p/dist/s.js' imported from ${cell}/node_modules/p/bin/s.js`, [cell])).toBe(
      "Cannot find module 'node_modules/p/dist/s.js' imported from node_modules/p/bin/s.js",
    );
    expect(relative(`Cannot find module '${cell}/node_modules/p/dist/s.js' imported from ${cell}/`, [cell])).toBe(
      "Cannot find module 'node_modules/p/dist/s.js' imported from .",
    );
    expect(relative(`at file://${cell}/node_modules/p/x.js:1`, [cell])).toBe('at node_modules/p/x.js:1');
    expect(relative('/elsewhere/x.js', [cell])).toBe('/elsewhere/x.js');
  });

  it('reads regex characters in the cell path literally, and strips a file:// URL of the cell itself', () => {
    const odd = '/tmp/a.b+c/cell(1)';
    expect(relative(`at file://${odd}/x.js and ${odd}/y.js in ${odd}`, [odd])).toBe('at x.js and y.js in .');
    // `.` and `+` taken as regex would match these look-alikes.
    expect(relative('/tmp/aXbbc/cell(1)/x.js /tmp/a.bbc/cell1/x.js', [odd])).toBe('/tmp/aXbbc/cell(1)/x.js /tmp/a.bbc/cell1/x.js');
    expect(relative(`imported from file://${odd}`, [odd])).toBe('imported from .');
    expect(relative(`${odd}/a ${'/real/cell'}/b`, [odd, '/real/cell'])).toBe('a b');
    expect(relative(`from ${odd}/ and from ${odd}`, [odd])).toBe('from . and from .');
  });
});

describe('judgeExit: what an exit earns', () => {
  const asked = 'asked to bind 0.0.0.0 with no token';
  const facts = (over: Partial<ExitFacts>): ExitFacts => ({
    code: 2,
    signal: null,
    exposed: undefined,
    attempted: undefined,
    port: 4100,
    loopback: [],
    race: undefined,
    crash: undefined,
    asked,
    dirs: ['/cell'],
    ...over,
  });
  const wild: ClassifiedListen = { address: '0.0.0.0', port: 4100, source: 'probe', scope: 'wildcard' };
  const loop = (port: number): ClassifiedListen => ({ address: '127.0.0.1', port, source: 'proc', scope: 'loopback' });

  it('a non-zero exit by itself is the refusal, and nothing else is said', () => {
    expect(judgeExit(facts({ code: 2 }))).toEqual({ outcome: 'refused', verdict: 'passed' });
    expect(judgeExit(facts({ code: 1 }))).toEqual({ outcome: 'refused', verdict: 'passed' });
  });

  it('exit 0 and a signal are not refusals', () => {
    expect(judgeExit(facts({ code: 0 }))).toEqual({
      outcome: 'exited-0',
      verdict: 'failed',
      step: 'exit code',
      message: 'exited 0: a refusal must exit non-zero',
    });
    expect(judgeExit(facts({ code: null, signal: 'SIGTERM' }))).toEqual({
      outcome: 'killed-by-signal',
      verdict: 'failed',
      step: 'exit code',
      message: 'was killed by SIGTERM: a refusal must exit non-zero by itself',
    });
    expect(judgeExit(facts({ code: null, signal: null }))).toMatchObject({
      message: 'was killed by a signal: a refusal must exit non-zero by itself',
    });
  });

  it('a listen the record shows after the exit fails, whatever else happened; loopback listens are context', () => {
    const listened = {
      outcome: 'listened',
      verdict: 'failed',
      step: 'watch',
      message: `listened on 0.0.0.0:4100 (IPv4 wildcard: every interface) before exiting (exit code 2): ${asked}, it must refuse before any non-loopback socket opens`,
      details: { listened: wild },
    };
    expect(judgeExit(facts({ exposed: wild }))).toEqual(listened);
    const crash = { kind: 'crashed' as const, cause: 'TypeError: x', source: 'probe' as const };
    expect(judgeExit(facts({ exposed: wild, race: 'listen EADDRINUSE :4100', crash }))).toEqual(listened);
    const judged = judgeExit(facts({ exposed: wild, code: null, signal: 'SIGKILL', loopback: [loop(4101), loop(4102)] }));
    expect(judged).toMatchObject({
      message: `listened on 0.0.0.0:4100 (IPv4 wildcard: every interface) before exiting (exit code SIGKILL): ${asked}, it must refuse before any non-loopback socket opens. Also on loopback (context, not a finding): 127.0.0.1:4101, 127.0.0.1:4102`,
    });
    // A copy: the listen object itself would read as a cycle to the redactor.
    expect((judged as ExitJudgement).details!.listened).not.toBe(wild);
    expect(judgeExit(facts({ exposed: wild, code: 0 }))).toMatchObject({ outcome: 'listened' });
  });

  it('a non-loopback listen that failed is an attempt to expose itself: failed, before a race, a crash or the exit code', () => {
    const tried = { address: '0.0.0.0', port: 3000, code: 'EADDRINUSE', scope: 'wildcard' as const };
    const crash = { kind: 'crashed' as const, cause: 'TypeError: x', source: 'probe' as const };
    const judged = {
      outcome: 'tried-to-listen',
      verdict: 'failed',
      step: 'watch',
      message: `tried to listen on 0.0.0.0:3000 (IPv4 wildcard: every interface) without a token (EADDRINUSE) (it was given port 4100, not 3000), then exited (exit code 1): ${asked}, it must refuse before it tries any non-loopback listen`,
      details: { attempted: tried },
    };
    expect(judgeExit(facts({ attempted: tried, code: 1 }))).toEqual(judged);
    expect(judgeExit(facts({ attempted: tried, code: 1, race: 'listen EADDRINUSE :4100', crash }))).toEqual(judged);
    expect((judgeExit(facts({ attempted: tried })) as ExitJudgement).details!.attempted).not.toBe(tried);
    // On the port it was given: nothing to add about the port; loopback listens are context.
    expect(
      judgeExit(
        facts({
          attempted: { ...tried, address: '::', port: 4100, code: 'EACCES' },
          code: null,
          signal: 'SIGTERM',
          loopback: [loop(4101)],
        }),
      ),
    ).toMatchObject({
      message: `tried to listen on [::]:4100 (IPv6 wildcard: every interface) without a token (EACCES), then exited (exit code SIGTERM): ${asked}, it must refuse before it tries any non-loopback listen. Also on loopback (context, not a finding): 127.0.0.1:4101`,
    });
    // A listen that succeeded is the finding when there is one.
    expect(judgeExit(facts({ exposed: wild, attempted: tried }))).toMatchObject({ outcome: 'listened' });
  });

  it('a port race is handed back (cell paths dropped), before any crash or exit code', () => {
    const crash = { kind: 'could-not-start' as const, cause: 'SyntaxError: x', source: 'stderr' as const };
    expect(judgeExit(facts({ race: 'listen EADDRINUSE /cell/sock:4100', crash, code: 0 }))).toEqual({
      race: 'listen EADDRINUSE sock:4100',
    });
  });

  it('a start failure before the exit code: "could not start" or "crashed", with exit code or signal, cell paths dropped', () => {
    const notFound = {
      kind: 'could-not-start' as const,
      cause: "Cannot find module '/cell/x.js' imported from /cell/",
      source: 'probe' as const,
    };
    expect(judgeExit(facts({ crash: notFound, code: 1 }))).toEqual({
      outcome: 'could-not-start',
      verdict: 'failed',
      step: 'start',
      message: "could not start: Cannot find module 'x.js' imported from . (exit code 1); a crash before its own code ran is not a refusal",
      details: { startFailure: notFound },
    });
    expect(judgeExit(facts({ crash: notFound, code: 0 }))).toMatchObject({ outcome: 'could-not-start' });
    expect(judgeExit(facts({ crash: notFound, code: null, signal: 'SIGABRT' }))).toMatchObject({
      message:
        "could not start: Cannot find module 'x.js' imported from . (signal SIGABRT); a crash before its own code ran is not a refusal",
    });
    const typeError = { kind: 'crashed' as const, cause: 'TypeError [ERR_X]: bad /cell/a.js', source: 'stderr' as const };
    expect(judgeExit(facts({ crash: typeError, code: 1 }))).toEqual({
      outcome: 'crashed',
      verdict: 'failed',
      step: 'start',
      message: 'crashed: TypeError [ERR_X]: bad a.js (exit code 1); an uncaught TypeError is not a refusal',
      details: { startFailure: typeError },
    });
    for (const cause of ['ReferenceError: y', 'ReferenceError[y]', 'ReferenceError\ty']) {
      expect(judgeExit(facts({ crash: { kind: 'crashed', cause, source: 'probe' }, code: null, signal: 'SIGKILL' }))).toMatchObject({
        message: `crashed: ${cause} (signal SIGKILL); an uncaught ReferenceError is not a refusal`,
      });
    }
  });
});

type BindSpec = Exclude<DriverSpec['phases']['bind'], false>;

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-bind-phase-');
});
afterAll(() => bench?.dispose());

const ARGS = "const port = Number(process.argv[process.argv.indexOf('--port') + 1]);\n";

/**
 * A bound no server here needs to reach (those that idle to it are given their own): a listen is caught, or an exit
 * judged, however long a start takes on a loaded machine; a phase that waited for it would meet the test's timeout.
 */
const BOUND = 60_000;

function spec(bin: string, over: Partial<BindSpec> = {}): BindSpec {
  return {
    command: { bin, args: ['--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}' } },
    dropEnv: ['MCP_SERVER_TOKEN'],
    timeoutMs: BOUND,
    ...over,
  };
}

/**
 * The port the phase gives its next server, unless the test chose one: outside listen(0)'s range, so that no other
 * test file's process takes it before the server listens there (a wildcard listen that failed would be judged an
 * attempt, a loopback one a race).
 */
async function quietBindPort(): Promise<void> {
  process.env[TEST_BIND_PORTS_ENV] ??= String(await quietPort());
}

const ASKED = 'asked to bind 0.0.0.0 with no token';

/** Ports this process holds on loopback: "another process" to the server under test. */
async function holdPorts(n: number): Promise<{ port: number; server: net.Server }[]> {
  const out: { port: number; server: net.Server }[] = [];
  for (let i = 0; i < n; i++) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    out.push({ port: (server.address() as net.AddressInfo).port, server });
  }
  return out;
}

async function release(held: { server: net.Server }[]): Promise<void> {
  await Promise.all(held.map((h) => new Promise((resolve) => h.server.close(resolve))));
}

/** The stderr of the last bind server, whatever the verdict (a passed result carries none). */
let lastStderr = '';

async function bind(name: string, text: string, over: Partial<BindSpec> = {}, specOver: Partial<DriverSpec> = {}) {
  const ctx = bench.context(specOver);
  await quietBindPort();
  const r = await bindPhase(ctx, spec(bench.server(name, text), over));
  // Every server it started is gone by the time it answers.
  for (const s of ctx.servers) expect(s.proc.running).toBe(false);
  lastStderr = ctx.servers.at(-1)?.proc.stderr.tail() ?? '';
  return r;
}

describe('bindPhase: every outcome, from src', () => {
  it('a refusal (exit non-zero by itself) passes, with what it was asked and how it exited', async () => {
    const r = await bind(
      'refuse.mjs',
      // No token at all: its variable dropped, `{token}` empty; and no SDK watch (a bind server never answers).
      `${ARGS}if (process.env.MCP_SERVER_TOKEN !== undefined || !process.argv.includes('--token=')) process.exit(9);\nif (process.env.MCP_MATRIX_SDK_PACKAGES !== undefined) process.exit(8);\nconsole.error('refusing ' + process.argv[3] + ':' + port);\nprocess.exit(2);\n`,
      {
        command: {
          bin: join(bench.cell, 'pkg/refuse.mjs'),
          args: ['--host', '{host}', '--port', '{port}', '--token={token}'],
          env: { MCP_SERVER_TOKEN: '{token}' },
        },
      },
      { sdkPackages: ['@modelcontextprotocol/sdk'] },
    );
    expect(bench.messages).toContainEqual({ type: 'spawned', pid: r.details!.pid, phase: 'bind' });
    expect(r).toMatchObject({ phase: 'bind', verdict: 'passed' });
    expect(r).not.toHaveProperty('message');
    expect(r).not.toHaveProperty('step');
    expect(r).not.toHaveProperty('stderrTail');
    expect(r.details).toEqual({
      port: expect.any(Number),
      pid: expect.any(Number),
      host: '0.0.0.0',
      hostGiven: true,
      outcome: 'refused',
      exitCode: 2,
      signal: null,
      exitMs: expect.any(Number),
      stderrLine: `refusing 0.0.0.0:${r.details!.port as number}`,
    });
    expect(r.details!.exitMs).toBeGreaterThanOrEqual(0);
    expect(r.durationMs).toBeGreaterThanOrEqual(r.details!.exitMs as number);
  });

  it('exit 0 is not a refusal: failed at "exit code"', async () => {
    const r = await bind('exit-zero.mjs', "console.error('nothing to do');\nprocess.exit(0);\n");
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'exit code',
      message: 'exited 0: a refusal must exit non-zero',
      stderrTail: 'nothing to do',
    });
    expect(r.details).toMatchObject({ outcome: 'exited-0', exitCode: 0, signal: null, stderrLine: 'nothing to do' });
    expect(r.details).not.toHaveProperty('listens');
  });

  it('killed by a signal is not a refusal', async () => {
    const r = await bind('signal.mjs', "process.kill(process.pid, 'SIGKILL');\n");
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'exit code',
      message: 'was killed by SIGKILL: a refusal must exit non-zero by itself',
    });
    expect(r.details).toMatchObject({ outcome: 'killed-by-signal', exitCode: null, signal: 'SIGKILL' });
  });

  it('still running at the bound without ever listening: failed, killed, told to set `bind: false` if it has no HTTP transport', async () => {
    const r = await bind('idle.mjs', 'setInterval(() => {}, 1000);\n', { timeoutMs: 1500 });
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'wait for exit',
      message: `still running after 1500 ms without ever listening: ${ASKED}, it must exit non-zero by itself (killed it); a server without an HTTP transport should set \`bind: false\``,
    });
    expect(r.details).toMatchObject({ outcome: 'never-listened' });
    expect(r.details).not.toHaveProperty('exitCode');
    expect(r.durationMs).toBeGreaterThanOrEqual(1500);
  });

  it('a bind invocation that names no host is described as such (host in neither args nor env)', async () => {
    const r = await bind('idle-nohost.mjs', 'setInterval(() => {}, 1000);\n', {
      timeoutMs: 1000,
      command: { bin: join(bench.cell, 'pkg/idle-nohost.mjs'), args: ['--port', '{port}'], env: { OTHER: 'x' } },
    });
    expect(r.message).toBe(
      'still running after 1000 ms without ever listening: started with no token (its bind invocation names no host), it must exit non-zero by itself (killed it); a server without an HTTP transport should set `bind: false`',
    );
    expect(r.details).toMatchObject({ hostGiven: false });
  });

  it('the host counts as given in an env value, as `{host}` or literally', async () => {
    for (const env of [{ HOST: '{host}' }, { HOST: '0.0.0.0' }]) {
      const r = await bind('refuse-env.mjs', 'process.exit(3);\n', {
        command: { bin: join(bench.cell, 'pkg/refuse-env.mjs'), args: [], env },
      });
      expect(r.verdict).toBe('passed');
      expect(r.details).toMatchObject({ hostGiven: true, exitCode: 3 });
    }
    const literal = await bind('refuse-arg.mjs', 'process.exit(3);\n', {
      command: { bin: join(bench.cell, 'pkg/refuse-arg.mjs'), args: ['--host=0.0.0.0'], env: {} },
    });
    expect(literal.details).toMatchObject({ hostGiven: true });
  });

  it('loopback only for the whole bound: passed as "loopback only", never as a non-loopback listen', async () => {
    // Its two listens are judged at the bound, reached on the phase's clock once it has seen both: however long the
    // server takes to start on a loaded machine (test/driver/helpers/phase-bench.ts).
    const ctx = bench.context();
    const bound = 60_000;
    const bin = bench.server(
      'loopback.mjs',
      `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '127.0.0.1', () => net.createServer().listen(0, '127.0.0.1'));\n`,
    );
    const both = (): boolean => {
      const server = ctx.servers.at(-1)?.proc;
      return server !== undefined && new Set(listensOf(server).map((l) => l.port)).size >= 2;
    };
    await quietBindPort();
    const r = await pastBoundOnceSeen(() => bindPhase(ctx, spec(bin, { timeoutMs: bound })), both, bound);
    for (const s of ctx.servers) expect(s.proc.running).toBe(false);
    const port = r.details!.port as number;
    const other = (r.details!.listens as { port: number }[]).find((l) => l.port !== port)!.port;
    expect(r).toMatchObject({
      verdict: 'passed',
      message: `loopback only: ${ASKED}, it did not refuse, but for the whole ${bound} ms it only ever listened on loopback (127.0.0.1:${port}, 127.0.0.1:${other}), so it exposed nothing; killed it at the bound`,
    });
    expect(r).not.toHaveProperty('step');
    expect(r.details).toMatchObject({
      outcome: 'loopback-only',
      listens: [
        expect.objectContaining({ address: '127.0.0.1', port, scope: 'loopback' }),
        expect.objectContaining({ address: '127.0.0.1', port: other, scope: 'loopback' }),
      ],
    });
    expect(r.details).not.toHaveProperty('listened');
  });

  it('a wildcard listen that serves without a token: failed while running, what it answered, loopback listens as context', async () => {
    const r = await bind(
      'open.mjs',
      `import http from 'node:http';\n${ARGS}const s = http.createServer((req, res) => res.writeHead(req.url === '/mcp' ? 200 : 404).end());\nhttp.createServer().listen(0, '127.0.0.1', () => s.listen(port, '0.0.0.0'));\n`,
    );
    const port = r.details!.port as number;
    const loop = (r.details!.listens as { address: string; port: number }[]).find((l) => l.address === '127.0.0.1')!;
    expect(loop).toBeDefined();
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'watch',
      message: `is listening on 0.0.0.0:${port} (IPv4 wildcard: every interface): ${ASKED}; a request without a token got HTTP 200: anyone who can reach it can use it; a non-loopback bind must be refused (killed it). Also on loopback (context, not a finding): 127.0.0.1:${loop.port}`,
    });
    expect(r.details).toMatchObject({
      outcome: 'listened',
      listened: { address: '0.0.0.0', port, scope: 'wildcard' },
      unauthenticated: { status: 200, challenge: null },
    });
    // Caught while it runs, not at the bound.
    expect(r.durationMs).toBeLessThan(BOUND);
  });

  it.each([
    [401, 'Bearer'],
    [403, 'Bearer'],
  ])('a wildcard listen that answers %i: it guards the socket with a token of its own, still a failure', async (status, challenge) => {
    const r = await bind(
      `guarded-${status}.mjs`,
      `import http from 'node:http';\n${ARGS}http.createServer((req, res) => res.writeHead(req.url === '/rpc' ? ${status} : 200, { 'www-authenticate': '${challenge}' }).end()).listen(port, '0.0.0.0');\n`,
      { path: '/rpc' },
    );
    const port = r.details!.port as number;
    expect(r.message).toBe(
      `is listening on 0.0.0.0:${port} (IPv4 wildcard: every interface): ${ASKED}; a request without a token got HTTP ${status}, so it guards the socket with a token of its own; a non-loopback bind must be refused (killed it)`,
    );
    expect(r.details).toMatchObject({ unauthenticated: { status, challenge } });
  });

  it('a wildcard listen behind a Host allowlist (403 unless Host is localhost:PORT): named an allowlist, never a token of its own', async () => {
    const r = await bind(
      'host-allowlist.mjs',
      `import http from 'node:http';\n${ARGS}http.createServer((req, res) => res.writeHead(req.headers.host === 'localhost:' + port ? 200 : 403).end()).listen(port, '0.0.0.0');\n`,
    );
    const port = r.details!.port as number;
    expect(r.message).toBe(
      `is listening on 0.0.0.0:${port} (IPv4 wildcard: every interface): ${ASKED}; a request without a token got HTTP 403, but HTTP 200 with \`Host: localhost:${port}\`: a Host allowlist, not a token of its own (anyone who reaches it and sends a loopback Host name can use it); a non-loopback bind must be refused (killed it)`,
    );
    expect(r.details).toMatchObject({
      unauthenticated: { status: 403 },
      unauthenticatedWithLoopbackHost: { status: 200, host: `localhost:${port}` },
    });
  });

  it('a wildcard listen that answers 403 without a challenge to any Host: an allowlist or a token, not told apart', async () => {
    const r = await bind(
      'forbid-all.mjs',
      `import http from 'node:http';\n${ARGS}http.createServer((req, res) => res.writeHead(403).end()).listen(port, '0.0.0.0');\n`,
    );
    expect(r.message).toContain(
      '; a request without a token got HTTP 403 without a Bearer challenge: a Host or Origin allowlist, or a token of its own (not told apart);',
    );
  });

  it('a wildcard listen that answers 403 with a Bearer challenge after another one: a token of its own', async () => {
    const r = await bind(
      'forbid-bearer-second.mjs',
      `import http from 'node:http';\n${ARGS}http.createServer((req, res) => { res.statusCode = 403; res.setHeader('www-authenticate', ['Basic realm="x"', 'Bearer error="insufficient_scope"']); res.end(); }).listen(port, '0.0.0.0');\n`,
    );
    expect(r.message).toContain('; a request without a token got HTTP 403, so it guards the socket with a token of its own;');
  });

  it('a wildcard listen that answers no HTTP: named as such', async () => {
    const r = await bind('raw.mjs', `import net from 'node:net';\n${ARGS}net.createServer((s) => s.destroy()).listen(port, '0.0.0.0');\n`);
    const port = r.details!.port as number;
    expect(r.message).toMatch(
      new RegExp(
        `^is listening on 0\\.0\\.0\\.0:${port} \\(IPv4 wildcard: every interface\\): ${ASKED}; a request without a token got no HTTP answer \\((ECONNRESET|EPIPE|socket hang up)\\); a non-loopback bind must be refused \\(killed it\\)$`,
      ),
    );
  });

  // One of this host's own non-loopback IPv4 addresses (none on a machine with loopback only: skipped).
  const routable = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

  it.skipIf(!routable)(
    'a listen on one routable address (not a wildcard) that serves without a token: failed, named as that socket',
    async () => {
      const r = await bind(
        'routable.mjs',
        `import http from 'node:http';\n${ARGS}http.createServer((req, res) => res.writeHead(req.url === '/mcp' ? 200 : 404).end()).listen(port, ${JSON.stringify(routable)});\n`,
      );
      const port = r.details!.port as number;
      expect(r).toMatchObject({
        verdict: 'failed',
        step: 'watch',
        message: `is listening on ${routable}:${port} (a non-loopback address): ${ASKED}; a request without a token got HTTP 200: anyone who can reach it can use it; a non-loopback bind must be refused (killed it)`,
      });
      expect(r.details).toMatchObject({ outcome: 'listened', listened: { address: routable, port, scope: 'routable' } });
    },
  );

  it('a bin that does not exist cannot spawn: failed at "spawn", its path shown inside the cell', async () => {
    const ctx = bench.context();
    const r = await bindPhase(ctx, spec(join(bench.cell, 'pkg/missing')));
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'spawn',
      message: 'could not start pkg/missing: pkg/missing does not exist (spawn ENOENT)',
    });
    expect(r.details).toMatchObject({ outcome: 'cannot-spawn', pid: undefined });
  });

  it('an uncaught TypeError is a crash; a module that cannot be found "could not start"; cell paths read relative', async () => {
    const crash = await bind('typeerror.mjs', 'const config = undefined;\nconsole.log(config.token);\n');
    expect(crash).toMatchObject({
      verdict: 'failed',
      step: 'start',
      message:
        "crashed: TypeError: Cannot read properties of undefined (reading 'token') (exit code 1); an uncaught TypeError is not a refusal",
    });
    expect(crash.details).toMatchObject({ outcome: 'crashed', startFailure: { kind: 'crashed', source: 'probe' } });

    const missing = await bind('missing-dep.mjs', "import './lib/gone.js';\n");
    expect(missing).toMatchObject({ verdict: 'failed', step: 'start' });
    expect(missing.message).toMatch(
      /^could not start: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module 'pkg\/lib\/gone\.js' imported from pkg\/missing-dep\.mjs \(exit code 1\); a crash before its own code ran is not a refusal$/,
    );
    expect(missing.details).toMatchObject({ outcome: 'could-not-start' });
  });

  it('a handled miss of an optional dependency, logged, then a refusal: refused, never "could not start" (issue 25)', async () => {
    const r = await bind(
      'optional-dep.mjs',
      "try {\n  await import('keytar');\n} catch (e) {\n  console.error('keytar not available, keeping credentials in memory:', e);\n}\nconsole.error('refusing to bind 0.0.0.0 without a token');\nprocess.exit(2);\n",
    );
    expect(lastStderr).toContain("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'keytar'");
    expect(r).toMatchObject({ verdict: 'passed' });
    expect(r).not.toHaveProperty('message');
    expect(r.details).toMatchObject({ outcome: 'refused', exitCode: 2, stderrLine: 'refusing to bind 0.0.0.0 without a token' });
  });

  it('an error its own \'uncaughtException\' handler took, then a refusal: refused, never "crashed" (issue 25)', async () => {
    const r = await bind(
      'handled.mjs',
      "process.on('uncaughtException', (e) => console.error('telemetry off: ' + e.message));\nsetImmediate(() => undefined.start());\nsetTimeout(() => process.exit(2), 100);\n",
    );
    expect(lastStderr).toMatch(/^telemetry off: Cannot read properties of undefined/);
    expect(r).toMatchObject({ verdict: 'passed' });
    expect(r.details).toMatchObject({ outcome: 'refused', exitCode: 2 });
    expect(r.details).not.toHaveProperty('startFailure');
  });

  it('a handler that exits at once on the error did not handle it: crashed', async () => {
    for (const how of [
      "process.on('uncaughtException', () => process.exit(1));",
      'process.setUncaughtExceptionCaptureCallback(() => process.exit(1));',
    ]) {
      const r = await bind('exits-in-handler.mjs', `${how}\nconst config = undefined;\nconsole.log(config.token);\n`);
      expect(r).toMatchObject({
        verdict: 'failed',
        step: 'start',
        message:
          "crashed: TypeError: Cannot read properties of undefined (reading 'token') (exit code 1); an uncaught TypeError is not a refusal",
      });
    }
  });

  it('a crash killed by a signal says so', async () => {
    // Its exit handler kills it: the crash is in the probe's record, the exit is a signal.
    const r = await bind('crash-signal.mjs', "process.on('exit', () => process.kill(process.pid, 'SIGKILL'));\nundefined.x;\n");
    expect(r.message).toMatch(/^crashed: TypeError: .* \(signal SIGKILL\); an uncaught TypeError is not a refusal$/);
  });

  it('EADDRINUSE on its port, held by another process, is a race: retried once on a new port, the retry judged on its own', async () => {
    const marker = join(bench.cell, 'raced-once');
    const [held] = await holdPorts(1);
    process.env[TEST_BIND_PORTS_ENV] = String(held!.port);
    try {
      // It ignores the host and listens on loopback: a taken port there says nothing of the server.
      const r = await bind(
        'race-once.mjs',
        `import net from 'node:net';\nimport { existsSync, writeFileSync } from 'node:fs';\n${ARGS}if (existsSync(${JSON.stringify(marker)})) process.exit(2);\nwriteFileSync(${JSON.stringify(marker)}, '');\nnet.createServer().listen(port, '127.0.0.1');\n`,
      );
      expect(existsSync(marker), JSON.stringify(r)).toBe(true);
      expect(r.verdict).toBe('passed');
      const races = r.details!.portRaces as { port: number; cause: string }[];
      expect(races).toEqual([{ port: held!.port, cause: `listen EADDRINUSE: address already in use 127.0.0.1:${held!.port}` }]);
      expect(r.details!.port).not.toBe(held!.port);
      expect(r.details).toMatchObject({ outcome: 'refused', exitCode: 2 });
    } finally {
      await release([held!]);
    }
    expect(process.env).not.toHaveProperty(TEST_BIND_PORTS_ENV);
  });

  it('EADDRINUSE twice, held by another process: not measured, both ports and causes named', async () => {
    const held = await holdPorts(2);
    const [a, b] = held.map((h) => h.port);
    process.env[TEST_BIND_PORTS_ENV] = `${a},${b}`;
    try {
      const r = await bind('race.mjs', `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '127.0.0.1');\n`);
      expect(r).toMatchObject({ phase: 'bind', verdict: 'not-measured', step: 'port' });
      const races = r.details!.portRaces as { port: number; cause: string }[];
      expect(r.details).toEqual({ outcome: 'port-race', portRaces: races });
      expect(races.map((x) => x.port)).toEqual([a, b]);
      expect(r.message).toBe(
        `not measured: the port the harness picked was taken by another process on both attempts (${a}: listen EADDRINUSE: address already in use 127.0.0.1:${a}; ${b}: listen EADDRINUSE: address already in use 127.0.0.1:${b})`,
      );
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
      expect(r.durationMs).toBeLessThan(600_000);
    } finally {
      await release(held);
    }
  });

  it('a wildcard listen that fails on a port another process holds is an attempt to expose itself: failed, never a race', async () => {
    const [held] = await holdPorts(1);
    process.env[TEST_BIND_PORTS_ENV] = String(held!.port);
    try {
      const r = await bind('wild-taken.mjs', `import http from 'node:http';\n${ARGS}http.createServer().listen(port, '0.0.0.0');\n`);
      expect(r).toMatchObject({
        verdict: 'failed',
        step: 'watch',
        message: `tried to listen on 0.0.0.0:${held!.port} (IPv4 wildcard: every interface) without a token (EADDRINUSE), then exited (exit code 1): ${ASKED}, it must refuse before it tries any non-loopback listen`,
      });
      expect(r.details).toMatchObject({
        outcome: 'tried-to-listen',
        port: held!.port,
        attempted: { address: '0.0.0.0', port: held!.port, code: 'EADDRINUSE', scope: 'wildcard' },
      });
      expect(r.details).not.toHaveProperty('portRaces');
    } finally {
      await release([held!]);
    }
  });

  it('a wildcard listen on a fixed port, held by itself on loopback, fails with that port named; it was given another', async () => {
    const r = await bind(
      'wild-fixed.mjs',
      `import net from 'node:net';\nconst a = net.createServer().listen(0, '127.0.0.1', () => net.createServer().listen(a.address().port, '0.0.0.0'));\n`,
    );
    const tried = r.details!.attempted as { port: number };
    expect(r.message).toBe(
      `tried to listen on 0.0.0.0:${tried.port} (IPv4 wildcard: every interface) without a token (EADDRINUSE) (it was given port ${r.details!.port as number}, not ${tried.port}), then exited (exit code 1): ${ASKED}, it must refuse before it tries any non-loopback listen. Also on loopback (context, not a finding): 127.0.0.1:${tried.port}`,
    );
    expect(r.details).toMatchObject({ outcome: 'tried-to-listen', exitCode: 1 });
  });

  it('a failed wildcard listen it survives is caught while it runs: failed and killed', async () => {
    const [held] = await holdPorts(1);
    try {
      const r = await bind(
        'wild-survives.mjs',
        `import net from 'node:net';\nnet.createServer().on('error', (e) => console.error('no luck: ' + e.code)).listen(${held!.port}, '0.0.0.0');\nsetInterval(() => {}, 1000);\n`,
      );
      expect(r).toMatchObject({
        verdict: 'failed',
        step: 'watch',
        message: `tried to listen on 0.0.0.0:${held!.port} (IPv4 wildcard: every interface) without a token (EADDRINUSE) (it was given port ${r.details!.port as number}, not ${held!.port}): ${ASKED}, it must refuse before it tries any non-loopback listen (killed it)`,
      });
      expect(r.details).toMatchObject({ outcome: 'tried-to-listen', attempted: { port: held!.port } });
      // Caught while it runs, not at the bound.
      expect(r.durationMs).toBeLessThan(BOUND);
    } finally {
      await release([held!]);
    }
  });

  it('EADDRINUSE on its own port, which it holds itself (a second listen there), is not a race: judged by its exit', async () => {
    const r = await bind(
      'twice.mjs',
      `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '127.0.0.1', () => net.createServer().listen(port, '127.0.0.1'));\n`,
    );
    expect(r.verdict).toBe('passed');
    expect(r.details).toMatchObject({ outcome: 'refused', exitCode: 1 });
    expect(r.details).not.toHaveProperty('portRaces');
  });

  it('EADDRINUSE on another port is not a race: the server exited non-zero by itself', async () => {
    const r = await bind(
      'other-port.mjs',
      "import net from 'node:net';\nconst a = net.createServer().listen(0, '127.0.0.1', () => net.createServer().listen(a.address().port, '127.0.0.1'));\n",
    );
    expect(r.verdict).toBe('passed');
    expect(r.details).toMatchObject({ outcome: 'refused', exitCode: 1 });
    expect(r.details).not.toHaveProperty('portRaces');
  });

  it('a wildcard listen first seen after the bound (the driver stalled past it) is still caught: failed, never "loopback only"', async () => {
    // The watch's last look before the bound saw nothing; the look at the bound is the one that sees it.
    const go = join(bench.cell, 'bind-late-go');
    const up = join(bench.cell, 'bind-late-up');
    const bin = bench.server(
      'bind-late.mjs',
      `import http from 'node:http';\nimport { existsSync, writeFileSync } from 'node:fs';\n${ARGS}const t = setInterval(() => {\n  if (!existsSync(${JSON.stringify(go)})) return;\n  clearInterval(t);\n  http.createServer((req, res) => res.writeHead(200).end()).listen(port, '0.0.0.0', () => writeFileSync(${JSON.stringify(up)}, ''));\n}, 10);\n`,
    );
    const ctx = bench.context({}, stallPastBound(go, up, 1000));
    await quietBindPort();
    const r = await bindPhase(ctx, spec(bin, { timeoutMs: 1000 }));
    for (const s of ctx.servers) expect(s.proc.running).toBe(false);
    const port = r.details!.port as number;
    expect(r).toMatchObject({
      verdict: 'failed',
      step: 'watch',
      message: `is listening on 0.0.0.0:${port} (IPv4 wildcard: every interface): ${ASKED}; a request without a token got HTTP 200: anyone who can reach it can use it; a non-loopback bind must be refused (killed it)`,
    });
    expect(r.details).toMatchObject({ outcome: 'listened', listened: { address: '0.0.0.0', port, scope: 'wildcard' } });
    expect(r.durationMs).toBeGreaterThanOrEqual(1000);
  });
});
