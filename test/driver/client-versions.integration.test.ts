// The adapter spans every client a config can name: the packed reference server in a 1.x cell and a 2.x cell, driven
// by the driver from client installs of their own, from @modelcontextprotocol/sdk 1.0.0 through the latest 1.x and
// @modelcontextprotocol/client 2.x. Every phase passes (the whole surface listed, tools called, resources and prompts
// read), except http for a client before 1.10.0, which is skipped with the reason; the negotiated protocol is the
// client's latest.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverSpec, Step } from '../../src/contract/protocol.js';
import {
  baseSpec,
  buildDriver,
  makeCell,
  makeClient,
  npmPack,
  REFERENCE_SERVER,
  removeDir,
  runDriver,
  tempDir,
  type Cell,
  type DriverRun,
} from './helpers/cell.js';

/** Client version → the protocol it negotiates with a current server (its LATEST_PROTOCOL_VERSION). */
const CLIENTS: [version: string, protocol: string][] = [
  ['1.0.0', '2024-11-05'],
  ['1.5.0', '2024-11-05'],
  ['1.9.0', '2024-11-05'],
  ['1.10.0', '2024-11-05'],
  ['1.12.0', '2025-03-26'],
  ['1.13.0', '2025-06-18'],
  ['1.23.0', '2025-06-18'],
  ['1.32.2', '2025-11-25'],
  ['2.0.0', '2025-11-25'],
  ['2.4.0', '2025-11-25'],
];
const majorOf = (version: string): number => Number(version.split('.')[0]);
const hasReference = existsSync(join(REFERENCE_SERVER, 'package.json'));

const STEPS: Step[] = [
  { tool: 'add_note', arguments: { title: 'Matrix', body: 'written by mcp-matrix', tags: ['matrix'] }, expect: { text: 'Created note-' } },
  { tool: 'search_notes', arguments: { query: 'x', limit: 0 }, expect: { isError: true, text: 'Invalid limit' } },
];

let work: string;
const servers: Record<number, Cell> = {};
const clients: Record<string, Cell> = {};

beforeAll(async () => {
  if (!hasReference) return;
  work = tempDir('mcp-matrix-client-versions-test-');
  const build = await buildDriver(join(work, 'build'));
  const tarball = await npmPack(REFERENCE_SERVER, work);
  [servers[1], servers[2]] = await Promise.all([makeCell(1, build, [tarball]), makeCell(2, build, [tarball])]);
  // Two at a time: most of an install is waiting on the registry or the cache.
  const queue = CLIENTS.map(([v]) => v);
  const worker = async (): Promise<void> => {
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
      const major = majorOf(v);
      clients[v] = await makeClient(major, `${major >= 2 ? '@modelcontextprotocol/client' : '@modelcontextprotocol/sdk'}@${v}`, build);
    }
  };
  await Promise.all([worker(), worker()]);
}, 900_000);

afterAll(() => {
  for (const c of [...Object.values(servers), ...Object.values(clients)]) removeDir(c.dir);
  removeDir(work);
});

function variantSpec(server: Cell, client: Cell, clientVersion: string): DriverSpec {
  const pkg = join(server.dir, 'node_modules/reference-mcp-server');
  const bin = join(pkg, 'bin/reference-mcp-server.js');
  const spec = baseSpec(server, pkg, {
    stdio: {
      command: { bin, args: [], env: {} },
      expect: { tools: 7, prompts: ['summarize_note', 'draft_note'] },
      steps: STEPS,
      timeoutMs: 10_000,
    },
    http: {
      command: {
        bin,
        args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
        env: { MCP_SERVER_TOKEN: '{token}' },
      },
      host: '127.0.0.1',
      path: '/mcp',
      steps: STEPS,
      readyTimeoutMs: 15_000,
      timeoutMs: 10_000,
    },
    bind: {
      command: { bin, args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'], env: {} },
      dropEnv: ['MCP_SERVER_TOKEN'],
      timeoutMs: 15_000,
    },
    leaks: { graceMs: 10_000 },
  });
  return { ...spec, major: client.major, clientVersion, probe: join(client.driver, 'probe', 'probe.js') };
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

describe.skipIf(!hasReference).each([1, 2])('the reference server on SDK %i.x', (serverMajor) => {
  it.each(CLIENTS)(
    'client %s: every phase passes (http skipped for a client before 1.10.0), protocol %s',
    async (version, protocol) => {
      const client = clients[version]!;
      const run = await runDriver(client, variantSpec(servers[serverMajor]!, client, version));
      const lacksHttp = majorOf(version) === 1 && Number(version.split('.')[1]) < 10;
      const verdicts = Object.fromEntries([...run.results.values()].map((r) => [r.phase, r.verdict]));
      expect(verdicts, explain(run)).toEqual({
        stdio: 'passed',
        http: lacksHttp ? 'skipped' : 'passed',
        bind: 'passed',
        conformance: 'skipped',
        leaks: 'passed',
      });
      if (lacksHttp) {
        expect(run.results.get('http')!.message).toBe(
          `the client @modelcontextprotocol/sdk@${version} has no Streamable HTTP transport (added in 1.10.0)`,
        );
      } else {
        expect(run.results.get('http')!.details!.protocolVersion).toBe(protocol);
      }
      expect(run.done!.summary).toMatchObject({ serverName: 'reference-mcp-server', tools: 7, prompts: 2, protocolVersion: protocol });
    },
    180_000,
  );
});
