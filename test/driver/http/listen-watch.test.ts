import http from 'node:http';
import net from 'node:net';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeResources, driverLeaks } from '../../../src/driver/probe/driver-handles.js';
import {
  askWithoutToken,
  classifiedListens,
  describeListen,
  failedListens,
  freePort,
  listenAddress,
  listenedAt,
  listensOf,
  listenScope,
  ownListenOn,
  takeTestPort,
  TEST_BIND_PORTS_ENV,
  waitUntilListening,
  type ClassifiedListen,
  type ReadyOutcome,
} from '../../../src/driver/http/listen-watch.js';
import { procAvailable } from '../../../src/driver/server/proc.js';
import type { ServerProcess } from '../../../src/driver/server/process.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { quietPort } from '../../helpers/quiet-port.js';
import { refusedPort } from '../../helpers/refused-port.js';

describe('listenScope: who can reach a listen', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'wildcard'],
    ['::', 'wildcard'],
    ['0:0:0:0:0:0:0:0', 'wildcard'],
    ['[::]', 'wildcard'],
    ['192.168.1.20', 'routable'],
    ['10.0.0.1', 'routable'],
    ['fe80::1%eth0', 'routable'],
    ['::ffff:10.0.0.1', 'routable'],
    ['128.0.0.1', 'routable'],
    [' 127.0.0.1 ', 'loopback'],
    ['::FFFF:127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::1%lo', 'loopback'],
    ['::%eth0', 'wildcard'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
    ['::ffff:0.0.0.0', 'wildcard'],
    ['::ffff:7f00:1', 'routable'],
    ['x::ffff:127.0.0.1', 'routable'],
    ['127.0.0.1.5', 'routable'],
    ['1127.0.0.1', 'routable'],
    ['1:0:0:0:0:0:0:0', 'routable'],
    ['0:0:0:0:0:0:0:1:1', 'routable'],
    ['1:0:0:0:0:0:0:0:0', 'routable'],
    ['0:0:0:0:0:0:0:0:1', 'routable'],
    ['0:0:0:0:0:0:0:2', 'routable'],
    ['[0.0.0.0', 'routable'],
    ['0.0.0.0]', 'routable'],
    // Brackets are stripped only as a pair; the IPv4-mapped prefix only before a dotted address.
    ['[127.0.0.1x', 'routable'],
    ['x127.0.0.1]', 'routable'],
    ['::ffff:::1', 'routable'],
    // Every group may be spelled with several zeros; every octet after 127 with several digits.
    ['0000:0000:0000:0000:0000:0000:0000:0000', 'wildcard'],
    ['127.10.200.30', 'loopback'],
  ] as const)('%s is %s', (address, scope) => {
    expect(listenScope(address)).toBe(scope);
  });
});

describe('describeListen', () => {
  const l = (address: string): ClassifiedListen => ({ address, port: 80, source: 'probe', scope: listenScope(address) });
  it('names the socket and what it exposes', () => {
    expect(describeListen(l('::'))).toBe('[::]:80 (IPv6 wildcard: every interface)');
    expect(describeListen(l('0.0.0.0'))).toBe('0.0.0.0:80 (IPv4 wildcard: every interface)');
    expect(describeListen(l('10.1.2.3'))).toBe('10.1.2.3:80 (a non-loopback address)');
    expect(listenAddress(l('127.0.0.1'))).toBe('127.0.0.1:80');
    expect(describeListen(l('127.0.0.1'))).toBe('127.0.0.1:80 (loopback)');
    expect(describeListen(l('fe80::1'))).toBe('[fe80::1]:80 (a non-loopback address)');
    expect(listenAddress({ address: '::1', port: 5 })).toBe('[::1]:5');
  });
});

describe('failedListens and ownListenOn: what the probe saw fail, and what the server held itself', () => {
  const records = (...r: Record<string, unknown>[]) => ({ probeRecords: () => r });
  it('classifies each distinct failed listen once, keeping its code; records without an address or a port are skipped', () => {
    const proc = records(
      { type: 'listen', address: '127.0.0.1', port: 5 },
      { type: 'listen-failed', address: '0.0.0.0', port: 3000, code: 'EADDRINUSE' },
      { type: 'listen-failed', address: '0.0.0.0', port: 3000, code: 'EACCES' },
      { type: 'listen-failed', address: '::1', port: 3000 },
      { type: 'listen-failed', address: '/tmp/s.sock', code: 'EACCES' },
      { type: 'listen-failed', port: 1, code: 'EADDRINUSE' },
      { type: 'crash', address: '10.0.0.1', port: 2, code: 'EADDRINUSE' },
    );
    expect(failedListens(proc)).toEqual([
      { address: '0.0.0.0', port: 3000, code: 'EADDRINUSE', scope: 'wildcard' },
      { address: '::1', port: 3000, code: 'error', scope: 'loopback' },
    ]);
    expect(failedListens(records())).toEqual([]);
  });

  it('a listen of its own on the port, at any address; a failed one or another port is not', () => {
    expect(ownListenOn(records({ type: 'listen', address: '127.0.0.1', port: 7 }), 7)).toBe(true);
    expect(ownListenOn(records({ type: 'listen-failed', address: '127.0.0.1', port: 7 }), 7)).toBe(false);
    expect(ownListenOn(records({ type: 'listen', address: '127.0.0.1', port: 8 }), 7)).toBe(false);
  });

  it("listenedAt: the earliest dated listen on that host and port, by the server's own clock; none without a date", () => {
    const proc = records(
      { type: 'listen', address: '127.0.0.1', port: 7, at: 300 },
      { type: 'listen', address: '127.0.0.1', port: 7, at: 200 },
      { type: 'listen', address: '127.0.0.2', port: 7, at: 100 },
      { type: 'listen', address: '127.0.0.1', port: 8, at: 100 },
      { type: 'listen-failed', address: '127.0.0.1', port: 7, at: 100 },
    );
    expect(listenedAt(proc, '127.0.0.1', 7)).toBe(200);
    expect(listenedAt(proc, '127.0.0.1', 9)).toBeUndefined();
    expect(listenedAt(records({ type: 'listen', address: '127.0.0.1', port: 7 }), '127.0.0.1', 7)).toBeUndefined();
  });

  it("the bind phase's test ports come from their own variable, in order", () => {
    const env: NodeJS.ProcessEnv = { [TEST_BIND_PORTS_ENV]: '4100,4101', MCP_MATRIX_TEST_HTTP_PORTS: '5000' };
    expect(takeTestPort(env, TEST_BIND_PORTS_ENV)).toBe(4100);
    expect(takeTestPort(env, TEST_BIND_PORTS_ENV)).toBe(4101);
    expect(takeTestPort(env, TEST_BIND_PORTS_ENV)).toBeUndefined();
    expect(env).toEqual({ MCP_MATRIX_TEST_HTTP_PORTS: '5000' });
  });
});

describe('listensOf, ownListenOn and takeTestPort among other records', () => {
  const records = (...r: Record<string, unknown>[]) => ({ probeRecords: () => r });
  it('a listen that failed is no listen, though its record has an address and a port', () => {
    const proc = {
      ...records(
        { type: 'probe', pid: 1 },
        { type: 'listen-failed', address: '0.0.0.0', port: 3000, code: 'EADDRINUSE' },
        { type: 'listen', address: '127.0.0.1', port: 5 },
      ),
      pid: undefined,
    } as unknown as ServerProcess;
    expect(listensOf(proc)).toEqual([{ address: '127.0.0.1', port: 5, source: 'probe' }]);
  });

  it('a listen of its own on the port among other records (the probe record, another port) is its own', () => {
    const proc = records(
      { type: 'probe', pid: 1 },
      { type: 'listen', address: '127.0.0.1', port: 8 },
      { type: 'listen', address: '::', port: 7 },
    );
    expect(ownListenOn(proc, 7)).toBe(true);
    expect(ownListenOn(proc, 9)).toBe(false);
  });

  it("the http phase's and the bind phase's test ports are read from the variables of those names, one at a time", () => {
    // The names are the contract with the tests that set them in the driver's environment.
    const env: NodeJS.ProcessEnv = { MCP_MATRIX_TEST_HTTP_PORTS: '4001,4002,4003', MCP_MATRIX_TEST_BIND_PORTS: '4100' };
    expect([takeTestPort(env), env.MCP_MATRIX_TEST_HTTP_PORTS]).toEqual([4001, '4002,4003']);
    expect([takeTestPort(env), env.MCP_MATRIX_TEST_HTTP_PORTS]).toEqual([4002, '4003']);
    expect(takeTestPort(env)).toBe(4003);
    expect(takeTestPort(env)).toBeUndefined();
    expect(takeTestPort(env, TEST_BIND_PORTS_ENV)).toBe(4100);
    expect(env).toEqual({});
  });
});

describe('freePort', () => {
  it('hands out a port nothing listens on, that can then be listened on', async () => {
    const port = await freePort('127.0.0.1');
    expect(port).toBeGreaterThan(0);
    const s = net.createServer();
    await new Promise<void>((resolve, reject) => s.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((r) => s.close(r));
  });

  it('rejects a host it cannot bind', async () => {
    await expect(freePort('192.0.2.1')).rejects.toMatchObject({ code: 'EADDRNOTAVAIL' });
  });
});

describe('askWithoutToken: what an exposed listen answers a request with no token', () => {
  const servers: http.Server[] = [];
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  async function serve(host: string, handler: http.RequestListener): Promise<number> {
    const s = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        handler(req, res);
      });
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, host, r));
    return (s.address() as net.AddressInfo).port;
  }
  const at = (address: string, port: number, scope: ClassifiedListen['scope']): ClassifiedListen => ({
    address,
    port,
    scope,
    source: 'proc',
  });

  it('POSTs an initialize to the path, and reads the status and the challenge', async () => {
    const port = await serve('127.0.0.1', (req, res) =>
      res.writeHead(req.url === '/rpc' ? 401 : 404, { 'www-authenticate': 'Bearer' }).end(),
    );
    expect(await askWithoutToken(at('127.0.0.1', port, 'loopback'), '/rpc')).toEqual({ status: 401, challenge: 'Bearer' });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({
      method: 'POST',
      url: '/rpc',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', connection: 'close' },
    });
    expect(request.headers).not.toHaveProperty('authorization');
    expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(request.body));
    expect(JSON.parse(request.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-matrix-bind', version: '0' } },
    });
  });

  it('no challenge is null; several are joined', async () => {
    const none = await serve('127.0.0.1', (_req, res) => res.writeHead(200).end());
    expect(await askWithoutToken(at('127.0.0.1', none, 'routable'), '/mcp')).toEqual({ status: 200, challenge: null });
    const two = await serve('127.0.0.1', (_req, res) => {
      res.setHeader('www-authenticate', ['Basic', 'Bearer']);
      res.writeHead(401).end();
    });
    expect(await askWithoutToken(at('127.0.0.1', two, 'loopback'), '/mcp')).toEqual({ status: 401, challenge: 'Basic, Bearer' });
  });

  it('a wildcard is reached on its loopback (IPv4 and IPv6)', async () => {
    const v4 = await serve('127.0.0.1', (_req, res) => res.writeHead(204).end());
    expect(await askWithoutToken(at('0.0.0.0', v4, 'wildcard'), '/mcp')).toEqual({ status: 204, challenge: null });
    const v6 = await serve('::1', (_req, res) => res.writeHead(202).end()).catch(() => undefined);
    if (v6 !== undefined) expect(await askWithoutToken(at('::', v6, 'wildcard'), '/mcp')).toEqual({ status: 202, challenge: null });
  });

  it('any other listen is reached at its own address', async () => {
    const port = await serve('127.0.0.2', (_req, res) => res.writeHead(403, { 'www-authenticate': 'Bearer' }).end());
    expect(await askWithoutToken(at('127.0.0.2', port, 'loopback'), '/mcp')).toEqual({ status: 403, challenge: 'Bearer' });
  });

  it("a Host given is the request's Host (a loopback name, to tell a Host allowlist from a token); else the address's own", async () => {
    const port = await serve('127.0.0.1', (_req, res) => res.writeHead(403).end());
    expect(await askWithoutToken(at('127.0.0.1', port, 'loopback'), '/mcp', 1500, `localhost:${port}`)).toEqual({
      status: 403,
      challenge: null,
    });
    expect(seen.at(-1)!.headers.host).toBe(`localhost:${port}`);
    await askWithoutToken(at('127.0.0.1', port, 'loopback'), '/mcp');
    expect(seen.at(-1)!.headers.host).toBe(`127.0.0.1:${port}`);
  });

  it('no HTTP answer: the error code, or the bound', async () => {
    const port = await refusedPort();
    expect(await askWithoutToken(at('127.0.0.1', port, 'loopback'), '/mcp')).toEqual({ error: 'ECONNREFUSED' });
    const silent = await serve('127.0.0.1', () => {});
    expect(await askWithoutToken(at('127.0.0.1', silent, 'loopback'), '/mcp', 300)).toEqual({ error: 'no answer within 300 ms' });
  });
});

/**
 * A timed-out outcome without `stalledMs`: a loaded machine may stall this process across the wait's end, which
 * the outcome then says (a positive number of ms); the rest is the same either way.
 */
function stallAside(outcome: ReadyOutcome): ReadyOutcome {
  if (outcome.ok || outcome.stalledMs === undefined) return outcome;
  expect(outcome.stalledMs).toBeGreaterThan(0);
  const { stalledMs: _stalled, ...rest } = outcome;
  return rest;
}

describe('waitUntilListening and listensOf, against real processes', () => {
  let bench: PhaseBench;
  beforeAll(async () => {
    bench = await phaseBench('mcp-matrix-listen-watch-');
  });
  afterAll(() => bench?.dispose());

  // A server that must listen on the port it is given gets one no other file's listen(0) can take meanwhile.
  const start = (name: string, text: string, port: number): ServerProcess =>
    bench.context().startServer('http', { bin: bench.server(name, text), args: [String(port)], env: {} }, { PATH: process.env.PATH ?? '' });

  it('ready once the port answers and its own group holds it ("verified"); its listens are seen, probe and /proc', async () => {
    const port = await quietPort();
    const proc = start(
      'listen.mjs',
      "import net from 'node:net';\nnet.createServer().listen(Number(process.argv[2]), '127.0.0.1');\n",
      port,
    );
    const before = Date.now();
    const baseline = activeResources();
    const ready = await waitUntilListening(proc, '127.0.0.1', port, 10_000);
    expect(ready).toEqual({ ok: true, identity: procAvailable() ? 'verified' : 'probe', ms: expect.any(Number) });
    // The time it took, from the start of the wait.
    expect(ready.ok && ready.ms).toBeGreaterThanOrEqual(0);
    expect(ready.ok && ready.ms).toBeLessThanOrEqual(Date.now() - before);
    // The wait leaves nothing open in the driver (its watch on the probe file is closed).
    expect(await driverLeaks(baseline, 200)).toEqual([]);
    const listens = listensOf(proc);
    expect(listens).toContainEqual({ address: '127.0.0.1', port, source: 'probe' });
    if (procAvailable()) expect(listens).toContainEqual({ address: '127.0.0.1', port, source: 'proc' });
    expect(classifiedListens(proc)).toEqual([{ address: '127.0.0.1', port, source: 'probe', scope: 'loopback' }]);
    await proc.kill();
  });

  it('an exit before listening names the code, or the signal', async () => {
    const port = await refusedPort();
    const coded = start('exit7.mjs', 'process.exit(7);\n', port);
    expect(await waitUntilListening(coded, '127.0.0.1', port, 10_000)).toEqual({
      ok: false,
      step: 'wait for listen',
      reason: `server exited (code 7) before listening on 127.0.0.1:${port}`,
    });
    const killed = start('killed.mjs', "process.kill(process.pid, 'SIGKILL');\n", port);
    expect(await waitUntilListening(killed, '127.0.0.1', port, 10_000)).toEqual({
      ok: false,
      step: 'wait for listen',
      reason: `server exited (code none, signal SIGKILL) before listening on 127.0.0.1:${port}`,
    });
  });

  it('never listening: timed out at the bound', async () => {
    // Refused for the whole wait: on a port bound and closed again, another test file's listener could answer.
    const port = await refusedPort();
    const idle = start('idle.mjs', 'setInterval(() => {}, 1000);\n', port);
    expect(stallAside(await waitUntilListening(idle, '127.0.0.1', port, 400))).toEqual({
      ok: false,
      step: 'wait for listen',
      reason: `timed out after 400 ms waiting for the server to listen on 127.0.0.1:${port}`,
    });
    await idle.kill();
  });

  it("a port someone else answers on is not the server's: 'port identity'", async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    const idle = start('idle2.mjs', 'setInterval(() => {}, 1000);\n', port);
    try {
      expect(await waitUntilListening(idle, '127.0.0.1', port, 10_000)).toEqual({
        ok: false,
        step: 'port identity',
        reason: `127.0.0.1:${port} answers, but no process of the started server's group holds it`,
      });
    } finally {
      await idle.kill();
      await new Promise((r) => holder.close(r));
    }
  });

  it('a server that could not spawn has no exit code yet: "code none"', async () => {
    const port = await refusedPort();
    const proc = bench.context().startServer('http', { bin: join(bench.cell, 'missing-bin'), args: [], env: {} }, {});
    expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({
      ok: false,
      step: 'wait for listen',
      reason: `server exited (code none) before listening on 127.0.0.1:${port}`,
    });
    expect(listensOf(proc)).toEqual([]);
  });

  it('without the probe file to watch it still polls to the bound', async () => {
    const port = await refusedPort();
    const idle = start('idle3.mjs', 'setInterval(() => {}, 1000);\n', port);
    rmSync(idle.options.probeFile);
    try {
      expect(await waitUntilListening(idle, '127.0.0.1', port, 300)).toMatchObject({ ok: false, step: 'wait for listen' });
    } finally {
      await idle.kill();
    }
  });

  it("every distinct TCP listen, classified once (the probe's record first); a Unix socket is not one", async () => {
    const [a, b] = [await quietPort(), await quietPort()];
    const sock = join(bench.cell, 'server.sock');
    const proc = start(
      'many.mjs',
      `import net from 'node:net';\nnet.createServer().listen(${JSON.stringify(sock)}, () => net.createServer().listen(${a}, '127.0.0.1', () => net.createServer().listen(${b}, '127.0.0.2')));\n`,
      b,
    );
    try {
      expect(await waitUntilListening(proc, '127.0.0.2', b, 10_000)).toMatchObject({ ok: true });
      expect(listensOf(proc).filter((l) => l.source === 'probe')).toEqual([
        { address: '127.0.0.1', port: a, source: 'probe' },
        { address: '127.0.0.2', port: b, source: 'probe' },
      ]);
      expect(classifiedListens(proc)).toEqual([
        { address: '127.0.0.1', port: a, source: 'probe', scope: 'loopback' },
        { address: '127.0.0.2', port: b, source: 'probe', scope: 'loopback' },
      ]);
    } finally {
      await proc.kill();
    }
  });

  it.runIf(procAvailable())("the server's group listening on another port does not make the port it was given its own", async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    const other = await quietPort();
    const proc = start('other.mjs', `import net from 'node:net';\nnet.createServer().listen(${other}, '127.0.0.1');\n`, port);
    try {
      // It listens (on its own port) before the harness asks about the one it was given.
      expect(await waitUntilListening(proc, '127.0.0.1', other, 10_000)).toMatchObject({ ok: true, identity: 'verified' });
      expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({
        ok: false,
        step: 'port identity',
        reason: `127.0.0.1:${port} answers, but no process of the started server's group holds it`,
      });
    } finally {
      await proc.kill();
      await new Promise((r) => holder.close(r));
    }
  });

  it('a server without the probe that listens late is still seen before the bound: the poll interval stays short', async () => {
    // Nothing wakes the poll (no probe record): only its own interval. An interval that kept doubling from 10 ms
    // would look at 5.11 s, then at 10.23 s, after the 10.2 s bound, although the server listens soon after 5.5 s:
    // 4.6 s for its start on a loaded machine (a bare node start took 1.2 s at load 17).
    const port = await quietPort();
    const bin = bench.server(
      'late.sh',
      `#!/bin/sh\nsleep 5.5\nexec env -u NODE_OPTIONS ${JSON.stringify(process.execPath)} -e "require('net').createServer().listen(Number(process.argv[1]), '127.0.0.1')" "$1"\n`,
    );
    const proc = bench.context().startServer('http', { bin, args: [String(port)], env: {} }, { PATH: process.env.PATH ?? '' });
    try {
      const ready = await waitUntilListening(proc, '127.0.0.1', port, 10_200);
      expect(ready).toEqual({ ok: true, identity: procAvailable() ? 'verified' : 'unverified', ms: expect.any(Number) });
      expect(listensOf(proc).filter((l) => l.source === 'probe')).toEqual([]);
    } finally {
      await proc.kill();
    }
  });

  it('a connection attempt that hangs (a full accept queue drops it) counts as no answer: timed out at the bound', async () => {
    // A listener with a backlog of 1 that is stopped: the kernel queues two connections, then drops the next
    // SYNs, so a connection attempt neither connects nor fails. Each attempt must end at its own bound.
    const port = await quietPort();
    const proc = start(
      'stopped.mjs',
      `import net from 'node:net';\nnet.createServer().listen({ port: ${port}, host: '127.0.0.1', backlog: 1 }, () => process.kill(process.pid, 'SIGSTOP'));\n`,
      port,
    );
    const queued: net.Socket[] = [];
    try {
      expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toMatchObject({ ok: true });
      // Stopped once its state says so; then connections fill its queue until one is left hanging.
      const until = Date.now() + 10_000;
      while (!/\) T /.test(readFileSync(`/proc/${proc.pid!}/stat`, 'utf8')) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      let hung = false;
      for (let i = 0; i < 8 && !hung; i++) {
        const s = net.connect({ host: '127.0.0.1', port });
        queued.push(s);
        hung = await new Promise<boolean>((resolve) => {
          s.once('connect', () => resolve(false)).once('error', () => resolve(false));
          // Hung only if, after the second, a look at the sockets (the loop's poll, before its check phase) still finds
          // no connect: a stalled test process must not take a connect waiting to be read for a hang.
          setTimeout(() => setImmediate(() => resolve(true)), 1000);
        });
      }
      expect(hung).toBe(true);
      expect(stallAside(await waitUntilListening(proc, '127.0.0.1', port, 1200))).toEqual({
        ok: false,
        step: 'wait for listen',
        reason: `timed out after 1200 ms waiting for the server to listen on 127.0.0.1:${port}`,
      });
    } finally {
      for (const s of queued) s.destroy();
      process.kill(proc.pid!, 'SIGCONT');
      await proc.kill();
    }
  });
});
