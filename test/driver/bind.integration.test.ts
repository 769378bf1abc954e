// The bind phase's outcomes that need no packed fixture, through the compiled driver forked with IPC as
// the orchestrator does it: a port race (retried once, then not measured), a wildcard listen on a taken
// port (failed, not a race), an uncaught TypeError, a syntax error and a shell's 127. Each server is a
// few lines written into a cell without any SDK.

import { mkdirSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverSpec } from '../../src/contract/protocol.js';
import { baseSpec, buildDriver, removeDir, runDriver, shipDriver, tempDir, type Cell } from './helpers/cell.js';

let work: string;
let cell: Cell;

beforeAll(async () => {
  work = tempDir('mcp-matrix-bind-test-');
  const build = await buildDriver(join(work, 'build'));
  const dir = join(work, 'cell');
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  const driver = shipDriver(build, dir);
  cell = { dir, major: 1, driver };
}, 120_000);

afterAll(() => removeDir(work));

function server(name: string, text: string): string {
  const file = join(cell.dir, 'pkg', name);
  writeFileSync(file, text, { mode: 0o755 });
  return file;
}

function bindOnly(bin: string): DriverSpec {
  return baseSpec(cell, join(cell.dir, 'pkg'), {
    stdio: false,
    http: false,
    bind: { command: { bin, args: ['--host', '{host}', '--port', '{port}'], env: {} }, dropEnv: [], timeoutMs: 15_000 },
    leaks: false,
  });
}

async function bind(bin: string) {
  const run = await runDriver(cell, bindOnly(bin));
  expect(run.exitCode, run.stderr).toBe(0);
  expect([...run.reaped].sort()).toEqual([...run.spawned].sort());
  return run.results.get('bind')!;
}

/** A loopback port this process holds: "another process" to the server. */
async function hold(): Promise<net.Server> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return s;
}

const ARGS = "const i = process.argv.indexOf('--port'); const port = Number(process.argv[i + 1]);\n";

describe('bind: outcomes without a packed fixture', () => {
  it('a port taken between the pick and the listen is retried once on a new port, then not measured', async () => {
    // Another process (this one) holds both ports the harness hands out; the server listens there on loopback.
    const held = await Promise.all([hold(), hold()]);
    const [a, b] = held.map((h) => (h.address() as AddressInfo).port);
    process.env.MCP_MATRIX_TEST_BIND_PORTS = `${a},${b}`;
    try {
      const bin = server('busy.mjs', `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '127.0.0.1');\n`);
      const r = await bind(bin);
      expect(r.verdict).toBe('not-measured');
      expect(r.step).toBe('port');
      expect(r.message).toBe(
        `not measured: the port the harness picked was taken by another process on both attempts (${a}: listen EADDRINUSE: address already in use 127.0.0.1:${a}; ${b}: listen EADDRINUSE: address already in use 127.0.0.1:${b})`,
      );
      expect(r.details).toMatchObject({ outcome: 'port-race', portRaces: [{ port: a }, { port: b }] });
    } finally {
      delete process.env.MCP_MATRIX_TEST_BIND_PORTS;
      await Promise.all(held.map((h) => new Promise((resolve) => h.close(resolve))));
    }
  });

  it('a wildcard listen on a port another process holds tried to expose it: failed, never a race', async () => {
    const held = await hold();
    const port = (held.address() as AddressInfo).port;
    process.env.MCP_MATRIX_TEST_BIND_PORTS = String(port);
    try {
      const r = await bind(server('busy-wild.mjs', `import net from 'node:net';\n${ARGS}net.createServer().listen(port, '0.0.0.0');\n`));
      expect(r).toMatchObject({ verdict: 'failed', step: 'watch', details: { outcome: 'tried-to-listen' } });
      expect(r.message).toMatch(
        new RegExp(
          `^tried to listen on 0\\.0\\.0\\.0:${port} \\(IPv4 wildcard: every interface\\) without a token \\(EADDRINUSE\\), then exited \\(exit code 1\\)`,
        ),
      );
    } finally {
      delete process.env.MCP_MATRIX_TEST_BIND_PORTS;
      await new Promise((resolve) => held.close(resolve));
    }
  });

  it('an uncaught TypeError is a crash, not a refusal', async () => {
    const r = await bind(server('typeerror.mjs', 'const config = undefined;\nconsole.log(config.token);\n'));
    expect(r.verdict).toBe('failed');
    expect(r.details!.outcome).toBe('crashed');
    expect(r.message).toMatch(
      /^crashed: TypeError: Cannot read properties of undefined \(reading 'token'\) \(exit code 1\); an uncaught TypeError is not a refusal$/,
    );
  });

  it('a syntax error is "could not start"', async () => {
    const r = await bind(server('syntax.mjs', 'const x = ;\n'));
    expect(r.verdict).toBe('failed');
    expect(r.details!.outcome).toBe('could-not-start');
    expect(r.message).toBe(
      "could not start: SyntaxError: Unexpected token ';' (exit code 1); a crash before its own code ran is not a refusal",
    );
  });

  it('a shell wrapper whose command is missing (exit 127) is "could not start"', async () => {
    const r = await bind(server('wrapper.sh', '#!/bin/sh\nexec mcp-matrix-no-such-interpreter "$@"\n'));
    expect(r.verdict).toBe('failed');
    expect(r.details!.outcome).toBe('could-not-start');
    expect(r.message).toMatch(
      /^could not start: exit code 127 \(a command it runs was not found\): .*mcp-matrix-no-such-interpreter.*not found \(exit code 127\); a crash before its own code ran is not a refusal$/,
    );
  });

  it('a deliberate non-zero exit is a refusal', async () => {
    const r = await bind(server('refuses.mjs', "console.error('refusing to bind without a token');\nprocess.exit(2);\n"));
    expect(r.verdict).toBe('passed');
    expect(r.details).toMatchObject({ outcome: 'refused', exitCode: 2, stderrLine: 'refusing to bind without a token' });
  });
});
