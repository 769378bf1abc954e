// Client variants, driver side, for real: the server runs from its cell (SDK 1.32.2 + fixtures/broken/resource-link-only,
// packed and installed), the driver from a client install of its own (SDK 1.0.0, 1.5.0, 1.12.0, client 2.4.0), as the
// orchestrator runs a variant. A client without Streamable HTTP skips the http phase with the reason; a client that
// cannot read a `resource_link` answer fails the step, naming the client, the negotiated protocol and the content type.

import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverSpec, Step } from '../../src/contract/protocol.js';
import {
  baseSpec,
  buildDriver,
  makeCell,
  makeClient,
  npmPack,
  removeDir,
  ROOT,
  runDriver,
  shipDriver,
  tempDir,
  type Cell,
  type DriverRun,
} from './helpers/cell.js';

const FIXTURE = 'broken-resource-link-only';
const FIND_DOC: Step = { tool: 'find_doc', arguments: { topic: 'intro' } };
const ECHO: Step = { tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } };

let work: string;
let build: string;
let server: Cell;
const clients: Record<string, Cell> = {};

beforeAll(async () => {
  work = tempDir('mcp-matrix-old-client-test-');
  build = await buildDriver(join(work, 'build'));
  const tarball = await npmPack(join(ROOT, 'fixtures/broken/resource-link-only'), work);
  const [cell, ...made] = await Promise.all([
    makeCell(1, build, [tarball]),
    makeClient(1, '@modelcontextprotocol/sdk@1.0.0', build),
    makeClient(1, '@modelcontextprotocol/sdk@1.5.0', build),
    makeClient(1, '@modelcontextprotocol/sdk@1.12.0', build),
    makeClient(2, '@modelcontextprotocol/client@2.4.0', build),
  ]);
  server = cell;
  [clients['1.0.0'], clients['1.5.0'], clients['1.12.0'], clients['2.4.0']] = made as [Cell, Cell, Cell, Cell];
}, 600_000);

afterAll(() => {
  removeDir(server?.dir);
  for (const c of Object.values(clients)) removeDir(c.dir);
  removeDir(work);
});

/** The variant's spec: servers from the cell, the probe and the client from the client install. */
function variantSpec(client: Cell, clientVersion: string | undefined, steps: Step[]): DriverSpec {
  const packageDir = join(server.dir, 'node_modules', FIXTURE);
  const bin = join(packageDir, 'bin/server.js');
  const spec = baseSpec(server, packageDir, {
    stdio: { command: { bin, args: [], env: {} }, expect: { tools: ['echo', 'add', 'find_doc'] }, steps, timeoutMs: 10_000 },
    http: {
      command: {
        bin,
        args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
        env: { MCP_SERVER_TOKEN: '{token}' },
      },
      host: '127.0.0.1',
      path: '/mcp',
      steps,
      readyTimeoutMs: 15_000,
      timeoutMs: 10_000,
    },
    bind: {
      command: {
        bin,
        args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'],
        env: { MCP_SERVER_TOKEN: '{token}' },
      },
      dropEnv: ['MCP_SERVER_TOKEN'],
      timeoutMs: 15_000,
    },
    leaks: { graceMs: 10_000 },
  });
  return { ...spec, major: client.major, probe: join(client.driver, 'probe', 'probe.js'), ...(clientVersion ? { clientVersion } : {}) };
}

function verdicts(run: DriverRun): Record<string, string> {
  return Object.fromEntries([...run.results.values()].map((r) => [r.phase, r.verdict]));
}

function explain(run: DriverRun): string {
  return (
    JSON.stringify(
      [...run.results.values()].map((r) => [r.phase, r.verdict, r.step, r.message]),
      null,
      1,
    ) + run.stderr
  );
}

const cannotRead = (client: string, protocol: string): RegExp =>
  new RegExp(
    `^tools/call find_doc: the client ${client.replace(/[.]/g, '\\.')} could not read the server's answer under the negotiated protocol ${protocol}: ` +
      `content\\[0\\] has type "resource_link", which this client does not know \\(the server sent content protocol ${protocol} does not have\\) · ` +
      `sent tools/call \\{"name":"find_doc","arguments":\\{"topic":"intro"\\}\\} · answer \\{"content":\\[\\{[^\\]]*"type":"resource_link"`,
  );

describe('a client variant (the driver loads its client from its own install)', () => {
  it('SDK 1.0.0: stdio fails at tools/call find_doc naming the client, protocol 2024-11-05 and resource_link; http is skipped (no Streamable HTTP)', async () => {
    const run = await runDriver(clients['1.0.0']!, variantSpec(clients['1.0.0']!, '1.0.0', [FIND_DOC, ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'failed',
      http: 'skipped',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    const stdio = run.results.get('stdio')!;
    expect(stdio.step).toBe('tools/call find_doc');
    expect(stdio.message).toMatch(cannotRead('@modelcontextprotocol/sdk@1.0.0', '2024-11-05'));
    expect(run.results.get('http')!.message).toBe(
      'the client @modelcontextprotocol/sdk@1.0.0 has no Streamable HTTP transport (added in 1.10.0)',
    );
    expect(run.done!.summary.protocolVersion).toBe('2024-11-05');
  }, 180_000);

  it('SDK 1.5.0 without clientVersion in the spec: reads the installed version; stdio passes, http is skipped, never passed', async () => {
    const run = await runDriver(clients['1.5.0']!, variantSpec(clients['1.5.0']!, undefined, [ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'passed',
      http: 'skipped',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    const http = run.results.get('http')!;
    expect(http.message).toBe('the client @modelcontextprotocol/sdk@1.5.0 has no Streamable HTTP transport (added in 1.10.0)');
    // Skipped before anything started: no http server, no check.
    expect(http.details).toBeUndefined();
  }, 180_000);

  it('SDK 1.12.0 (has Streamable HTTP, predates resource_link): stdio and the http round trip fail, naming protocol 2025-03-26', async () => {
    const run = await runDriver(clients['1.12.0']!, variantSpec(clients['1.12.0']!, '1.12.0', [FIND_DOC, ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'failed',
      http: 'failed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(run.results.get('stdio')!.message).toMatch(cannotRead('@modelcontextprotocol/sdk@1.12.0', '2025-03-26'));
    const http = run.results.get('http')!;
    expect(http.step).toBe('tools/call find_doc');
    // The refusal checks still ran and passed: only the round trip failed, on the content.
    expect(http.message).toMatch(
      /^no token → 401 with a Bearer challenge; wrong token → 401; round trip failed: tools\/call find_doc: the client @modelcontextprotocol\/sdk@1\.12\.0 could not read the server's answer under the negotiated protocol 2025-03-26: content\[0\] has type "resource_link"/,
    );
  }, 180_000);

  it('client 2.4.0 (a current client of the other major): every phase passes against the same server', async () => {
    const run = await runDriver(clients['2.4.0']!, variantSpec(clients['2.4.0']!, '2.4.0', [FIND_DOC, ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'passed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(run.done!.summary.protocolVersion).toBe('2025-11-25');
  }, 180_000);

  it("a client install without its client: stdio and http are not-measured, naming the client (not the server's doing)", async () => {
    const dir = join(work, 'empty-client');
    const driver = shipDriver(build, dir);
    const empty: Cell = { dir, major: 1, driver };
    const run = await runDriver(empty, variantSpec(empty, '1.0.0', [ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'not-measured',
      http: 'not-measured',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    for (const phase of ['stdio', 'http'] as const) {
      const r = run.results.get(phase)!;
      expect(r.step).toBe('load the client');
      expect(r.message).toMatch(
        /^could not load the client @modelcontextprotocol\/sdk@1\.0\.0: Cannot find (package|module) '@modelcontextprotocol\/sdk/,
      );
    }
  }, 180_000);

  /** A copy of a client install, changed by `edit` (the shared installs stay as they are). */
  function editedCopy(of: Cell, name: string, edit: (sdk: string) => void): Cell {
    const dir = join(work, name);
    cpSync(of.dir, dir, { recursive: true, verbatimSymlinks: true });
    edit(join(dir, 'node_modules/@modelcontextprotocol/sdk'));
    return { dir, major: of.major, driver: join(dir, '.mcp-matrix/driver') };
  }

  it('a 1.12.0 client install without its Streamable HTTP module: http not-measured at "load the client", naming the client', async () => {
    const broken = editedCopy(clients['1.12.0']!, 'client-1.12.0-no-http', (sdk) => rmSync(join(sdk, 'dist/esm/client/streamableHttp.js')));
    const run = await runDriver(broken, variantSpec(broken, '1.12.0', [ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'passed',
      http: 'not-measured',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    const http = run.results.get('http')!;
    expect(http.step).toBe('load the client');
    expect(http.message).toMatch(
      /^could not load the Streamable HTTP transport of the client @modelcontextprotocol\/sdk@1\.12\.0: Cannot find module '.*streamableHttp\.js'/,
    );
  }, 180_000);

  it('a client whose version cannot be read and that lacks the module is a client before 1.10.0: http skipped, the version unknown', async () => {
    const unread = editedCopy(clients['1.5.0']!, 'client-1.5.0-no-version', (sdk) => {
      const manifest = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as Record<string, unknown>;
      delete manifest.version;
      writeFileSync(join(sdk, 'package.json'), JSON.stringify(manifest));
    });
    const run = await runDriver(unread, variantSpec(unread, undefined, [ECHO]));
    expect(verdicts(run), explain(run)).toEqual({
      stdio: 'passed',
      http: 'skipped',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(run.results.get('http')!.message).toBe(
      'the client @modelcontextprotocol/sdk@(version unknown) has no Streamable HTTP transport (added in 1.10.0)',
    );
  }, 180_000);
});
