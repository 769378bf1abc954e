// The http phase on cells installed once (helpers/fixture-cell.ts): every sub-check in one message (two findings, 403
// never a 401), `http.auth: 'none'`, a held port (retried, then not-measured, never failed), a stdio-only server that
// never listens (told to set `http: false`), and the `http.auth: 'oauth'` control (its authorization server retried).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPhase, type PhaseName, type PhaseResultOf, type RunResult } from '../../src/results/types.js';
import { ROOT, tempDir, writeConfig, type CliOutcome } from './helpers/cli.js';
import { runFixtureCell } from './helpers/fixture-cell.js';
import { expectNoRaceButForeign } from '../helpers/foreign-race.js';
import { quietPort } from '../helpers/quiet-port.js';
import { processesMentioning } from './helpers/procs.js';

interface Run {
  out: CliOutcome;
  results: RunResult;
  markdown: string;
  /** What the run left in its own TMPDIR, and processes still naming it: both must be empty. */
  leftovers: string[];
  /** The run's own TMPDIR: its servers' command lines name it. */
  tmp: string;
}

const dirs: string[] = [];
const held: net.Server[] = [];
const holders: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const h of holders) h.kill('SIGKILL');
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const fixture = (name: string): string => path.join(ROOT, 'fixtures/broken', name);

const STEPS = `[
  { tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } },
  { tool: 'add', arguments: { a: 2, b: 3 }, expect: { text: '5' } },
]`;

/** A one-cell config for a fixture package; `http` is the config's http section. */
function config(pkg: string, http: string, extra = ''): string {
  return `{
    package: ${JSON.stringify(pkg)},
    cells: [{ pin: 'latest@1', role: 'latest 1.x' }],
    stdio: { expect: { tools: ['echo', 'add'] }, steps: ${STEPS} },
    http: ${http},
    leaks: { graceMs: 3000 },
    lockstep: 'off',
    ${extra}
  }`;
}

async function run(configFile: string | { body: string }, env: Record<string, string> = {}): Promise<Run> {
  let file: string;
  if (typeof configFile === 'string') file = configFile;
  else {
    const configDir = await tempDir('mm-http-config-');
    dirs.push(configDir);
    file = await writeConfig(configDir, configFile.body);
  }
  // A TMPDIR of its own: what the run leaves behind is told apart from concurrent test files' runs.
  const tmp = await tempDir('mm-http-tmp-');
  dirs.push(tmp);
  const ran = await runFixtureCell('http', 'mm-http', { ...env, TMPDIR: tmp }, file);
  dirs.push(ran.outDir);
  const { out, results } = ran;
  if (!results) throw new Error(`no results.json (exit ${out.code}): ${out.stderr}`);
  const markdown = await readFile(path.join(ran.outDir, 'matrix.md'), 'utf8');
  const leftovers = [...(await readdir(tmp)), ...processesMentioning(tmp).map((p) => `pid ${p.pid} ${p.cmdline}`)];
  return { out, results, markdown, leftovers, tmp };
}

function phase<P extends PhaseName>(r: RunResult, name: P): PhaseResultOf<P> {
  return findPhase(r.cells[0]!.phases, name)!;
}

function table(r: RunResult): string {
  return r.cells[0]!.phases.map((p) => `${p.phase}: ${p.verdict}${p.step ? ` [${p.step}]` : ''} ${p.message ?? ''}`).join('\n');
}

/** The HTTP cell of the table's only row (the 11th column). */
/** The HTTP column of the latest@1 row, found by its header (constant columns move to the header). */
function httpCell(markdown: string): string {
  const lines = markdown.split('\n');
  const cells = (line: string) => line.split(' | ').map((c) => c.replace(/^\| |\s\|$/g, '').trim());
  const column = cells(lines.find((l) => l.startsWith('| Pin'))!).findIndex((h) => h.startsWith('HTTP'));
  expect(column).toBeGreaterThan(0);
  return cells(lines.find((l) => l.startsWith('| latest@1'))!)[column]!;
}

/** A loopback port held by this (test) process, listening: it answers like a server would. */
async function holdPort(): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.push(server);
  return (server.address() as net.AddressInfo).port;
}

const runs = new Map<string, Run>();
let portA = 0;
let portB = 0;
let portC = 0;
let portAs = 0;
/** The retry's port after portA: a port none of the other files' processes can take before the server listens. */
let retryA = 0;

beforeAll(async () => {
  [portA, portB, portC, portAs] = await Promise.all([holdPort(), holdPort(), holdPort(), holdPort()]);
  retryA = await quietPort();
  const jobs: [string, () => Promise<Run>][] = [
    ['two findings', () => run(path.join(fixture('http-no-challenge-and-403'), 'matrix.config.ts'))],
    ['403 with a challenge', () => run(path.join(fixture('http-403-challenge'), 'matrix.config.ts'))],
    // Origin and Host are required with no token; set to warn here (the fixture checks neither), they show and never fail.
    [
      'auth none',
      () => run({ body: config(fixture('http-no-auth'), `{ auth: 'none', env: {}, checks: { origin: 'warn', host: 'warn' } }`) }),
    ],
    [
      'port race once',
      () => run({ body: config(fixture('_base'), '{}', 'bind: false,') }, { MCP_MATRIX_TEST_HTTP_PORTS: `${portA},${retryA}` }),
    ],
    [
      'port race twice',
      () => run({ body: config(fixture('_base'), '{}', 'bind: false,') }, { MCP_MATRIX_TEST_HTTP_PORTS: `${portB},${portC}` }),
    ],
    ['detached listener', () => run(path.join(fixture('http-detached-listener'), 'matrix.config.ts'))],
    // The OAuth control, its authorization server's first port taken (the test-only hook forces it).
    ['oauth control', () => run(path.join(fixture('_oauth'), 'matrix.config.ts'), { MCP_MATRIX_TEST_AS_PORTS: String(portAs) })],
    [
      'stdio only',
      // The stdio-only fixture: it ignores --transport (the default http args) and serves stdio.
      () => run({ body: config(fixture('bind-never-listens'), '{ readyTimeoutMs: 3000 }', 'bind: false,') }),
    ],
  ];
  // One at a time: the runs take turns in this process (fixture-cell.ts).
  for (const [name, job] of jobs) runs.set(name, await job());
}, 900_000);

describe('http: every sub-check is reported', () => {
  it('401 without a challenge AND 403 on a wrong token: both findings in one message', () => {
    const { out, results, markdown, leftovers } = runs.get('two findings')!;
    expect(out.code, table(results)).toBe(1);
    expect(results.cells[0]!.phases.map((p) => [p.phase, p.verdict])).toEqual([
      ['environment', 'passed'],
      ['stdio', 'passed'],
      ['http', 'failed'],
      ['bind', 'passed'],
      ['conformance', 'skipped'],
      ['leaks', 'passed'],
    ]);
    const http = phase(results, 'http');
    expect(http.message).toBe('no token → 401 without WWW-Authenticate; wrong token → 403 (want 401); round trip ok');
    expect(http.step).toBe('request without a token');
    expect(http.details).toMatchObject({
      unauthenticated: { status: 401, wwwAuthenticate: null },
      wrongToken: { status: 403 },
      roundTrip: true,
      checks: {
        noToken: { outcome: 'ok' },
        wwwAuthenticate: { outcome: 'failed' },
        wrongToken: { outcome: 'failed' },
        roundTrip: { outcome: 'ok' },
      },
    });
    expect(httpCell(markdown)).toBe(
      'FAIL · no token 401, no challenge · wrong token 403 (want 401) · round trip ok · warn origin 200 (want 403) · warn host 200 (want 4xx)',
    );
    expect(out.stdout + out.stderr).toContain('http: FAIL');
    expect(leftovers).toEqual([]);
  });

  it('403 with a Bearer challenge is not a 401: no token and wrong token both fail with "403 (want 401)"', () => {
    const { out, results, markdown, leftovers } = runs.get('403 with a challenge')!;
    expect(out.code, table(results)).toBe(1);
    const http = phase(results, 'http');
    expect(http.verdict).toBe('failed');
    expect(http.message).toBe('no token → 403 (want 401) with a Bearer challenge; wrong token → 403 (want 401); round trip ok');
    expect(http.step).toBe('request without a token');
    expect(http.details).toMatchObject({
      checks: { noToken: { outcome: 'failed' }, wwwAuthenticate: { outcome: 'ok' }, wrongToken: { outcome: 'failed' } },
    });
    expect(httpCell(markdown)).toBe(
      'FAIL · no token 403 (want 401) · wrong token 403 (want 401) · round trip ok · warn origin 200 (want 403) · warn host 200 (want 4xx)',
    );
    for (const p of results.cells[0]!.phases)
      if (p.phase !== 'http') expect(p.verdict, table(results)).toBe(p.phase === 'conformance' ? 'skipped' : 'passed');
    expect(leftovers).toEqual([]);
  });

  it('http.auth: \'none\' skips the 401 checks, shows them as "no auth" (never ok), and still runs the round trip', () => {
    const { out, results, markdown, leftovers } = runs.get('auth none')!;
    expect(out.code, table(results)).toBe(0);
    const http = phase(results, 'http');
    expect(http.verdict).toBe('passed');
    expect(http.message).toBe('no token → no auth (not checked); wrong token → no auth (not checked); round trip ok');
    expect(http.details).toMatchObject({
      auth: 'none',
      roundTrip: true,
      tools: 2,
      checks: { noToken: { outcome: 'no auth' }, wrongToken: { outcome: 'no auth' }, roundTrip: { outcome: 'ok' } },
    });
    expect(http.details).not.toHaveProperty('unauthenticated');
    expect(httpCell(markdown)).toBe('no auth · round trip ok · warn origin 200 (want 403) · warn host 200 (want 4xx)');
    expect(http.checks!.map((c) => `${c.id}/${c.outcome}/${c.level}`)).toEqual(
      expect.arrayContaining(['no-token-401/skipped/require', 'origin/failed/warn', 'host/failed/warn', 'round-trip/passed/require']),
    );
    expect(leftovers).toEqual([]);
  });
});

describe('http: a port held by another process is retried, then not measured', () => {
  it('the first port answers for another process: retried once on a new port, and the phase passes', () => {
    const { out, results, leftovers } = runs.get('port race once')!;
    expect(out.code, table(results)).toBe(0);
    const http = phase(results, 'http');
    expect(http.verdict).toBe('passed');
    expect(http.details!.port).not.toBe(portA);
    expect(http.details!.retriedAfter).toEqual({
      port: portA,
      cause: expect.stringMatching(
        new RegExp(
          `^127\\.0\\.0\\.1:${portA} answers, but no process of the started server's group holds it \\(held by pid ${process.pid}: `,
        ),
      ),
    });
    expect(phase(results, 'leaks').verdict, table(results)).toBe('passed');
    expect(leftovers).toEqual([]);
  });

  it('held again after the retry: not-measured with the cause (exit 3), never failed', () => {
    const { out, results, markdown, leftovers } = runs.get('port race twice')!;
    expect(out.code, table(results)).toBe(3);
    expect(results.verdict).toBe('not-measured');
    expect(results.cells[0]!.verdict).toBe('not-measured');
    const http = phase(results, 'http');
    expect(http.verdict).toBe('not-measured');
    expect(http.step).toBe('port identity');
    const held = (p: number): string =>
      `127\\.0\\.0\\.1:${p} answers, but no process of the started server's group holds it \\(held by pid ${process.pid}: [^)]*\\)`;
    expect(http.message).toMatch(
      new RegExp(
        `^the port was held by another process twice, so the server could not be measured: ${held(portB)}; retried on a new port: ${held(portC)}$`,
      ),
    );
    expect(results.cells[0]!.phases.filter((p) => p.phase !== 'http').map((p) => [p.phase, p.verdict])).toEqual([
      ['environment', 'passed'],
      ['stdio', 'passed'],
      ['bind', 'skipped'],
      ['conformance', 'skipped'],
      ['leaks', 'passed'],
    ]);
    expect(httpCell(markdown)).toBe('not measured');
    expect(leftovers).toEqual([]);
  });
});

describe("http.auth: 'oauth', run as the CLI runs it", () => {
  it('the control passes every phase and every OAuth sub-check; its authorization server retried a taken port; no token in any output', () => {
    const { out, results, markdown, leftovers } = runs.get('oauth control')!;
    expect(out.code, table(results)).toBe(0);
    // conformance: skipped (MCP_MATRIX_CONFORMANCE=off in the e2e runs).
    expect(results.cells[0]!.phases.map((p) => p.verdict)).toEqual(['passed', 'passed', 'passed', 'passed', 'skipped', 'passed']);
    const http = phase(results, 'http');
    expect(http.message).toMatch(
      /^no token → 401 with a Bearer challenge; wrong token → 401; round trip ok; metadata discovery → named by resource_metadata; metadata → resource "http:\/\/127\.0\.0\.1:\d+\/mcp", authorization_servers names the issuer; other audience → 401; expired token → 401; other key → 401; alg none → 401$/,
    );
    expect(http.details).toMatchObject({
      auth: 'oauth',
      issuer: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      authorizationServerRetriedAfter: `127.0.0.1:${portAs}: port already in use`,
    });
    expect(http.details!.issuer).not.toBe(`http://127.0.0.1:${portAs}`);
    // Origin and Host are unchecked by the fixture: behind its token they warn, never fail.
    expect(httpCell(markdown)).toBe('ok · warn origin 200 (want 403) · warn host 200 (want 4xx)');
    expect(JSON.stringify(results) + markdown + out.stdout + out.stderr).not.toMatch(/eyJ[\w-]{8,}/);
    expect(leftovers).toEqual([]);
  });
});

describe("http: a listener outside the group that is the server's own descendant", () => {
  it('is judged as the server (identity "descendant"), not as a port race; leaks names the escaped child', () => {
    const { out, results, leftovers, tmp } = runs.get('detached listener')!;
    expect(out.code, table(results)).toBe(1);
    const http = phase(results, 'http');
    expect(http.verdict, table(results)).toBe('passed');
    expect(http.message).toBe('no token → 401 with a Bearer challenge; wrong token → 401; round trip ok');
    expectNoRaceButForeign(http.details, tmp);
    expect(http.details).toMatchObject({
      identity: 'descendant',
      listener: { pid: expect.any(Number), cmdline: expect.stringContaining('node_modules/broken-http-detached-listener/bin/server.js') },
    });
    const leaks = phase(results, 'leaks');
    expect(leaks.verdict).toBe('failed');
    expect(leaks.message).toContain(`pid ${(http.details!.listener as { pid: number }).pid} `);
    expect(leftovers).toEqual([]);
  });
});

const python = spawnSync('python3', ['-c', 'print(1)']).status === 0;

describe('http: EADDRINUSE', () => {
  // A socket bound but not listening: connecting is refused, so only the server's own bind tells.
  it.skipIf(!python)(
    'a server that exits with EADDRINUSE is retried on a new port and passes',
    async () => {
      const holder = spawn('python3', [
        '-c',
        'import socket,sys\ns=socket.socket()\ns.bind(("127.0.0.1",0))\nprint(s.getsockname()[1],flush=True)\nsys.stdin.read()',
      ]);
      holders.push(holder);
      const port = await new Promise<string>((resolve) => holder.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
      // The retry on a port no other file's process can take meanwhile (a second race would be not measured).
      const { out, results, leftovers } = await run(
        { body: config(fixture('_base'), '{}', 'bind: false,') },
        { MCP_MATRIX_TEST_HTTP_PORTS: `${port},${await quietPort()}` },
      );
      holder.kill('SIGKILL');
      expect(out.code, table(results)).toBe(0);
      const http = phase(results, 'http');
      expect(http.verdict).toBe('passed');
      expect(http.details!.retriedAfter).toEqual({
        port: Number(port),
        cause: `port ${port} is already in use (EADDRINUSE in the server's stderr)`,
      });
      expect(leftovers).toEqual([]);
    },
    240_000,
  );
});

describe('http: a server that never listens', () => {
  it('a stdio-only server is told it never listened, and to set `http: false`', () => {
    const { out, results, leftovers } = runs.get('stdio only')!;
    expect(out.code, table(results)).toBe(1);
    const http = phase(results, 'http');
    expect(http.verdict).toBe('failed');
    expect(http.step).toBe('wait for listen');
    expect(http.message).toMatch(
      /^never listened on 127\.0\.0\.1:\d+ within 3000 ms, nor on any other TCP port; it looks stdio-only \(it exited when its stdin closed\): it ignored http\.args\. If the server has no HTTP transport, set `http: false`$/,
    );
    expect(phase(results, 'stdio').verdict).toBe('passed');
    expect(phase(results, 'leaks').verdict, table(results)).toBe('passed');
    expect(leftovers).toEqual([]);
  });
});
