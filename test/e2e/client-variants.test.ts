// Client variants through the real CLI: the server installed once per cell, each client pin installed apart and the
// driver loading its client from there. fixtures/broken/resource-link-only (clients 1.0.0 and latest@1) fails just the
// old-client variant, naming the client, the negotiated protocol and the content type; a client before 1.10.0 shows
// http skipped with the reason, never passed.
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CellResult, RunResult } from '../../src/results/types.js';
import { cli, readResults, ROOT, tempDir, writeConfig, type CliOutcome } from './helpers/cli.js';
import { phaseTable, runFixture, type FixtureRun } from './helpers/fixture-run.js';

const dirs: string[] = [];
let linkRun: FixtureRun;
let oldClient: { out: CliOutcome; results: RunResult };

beforeAll(async () => {
  const base = async (): Promise<void> => {
    const tmp = await tempDir('mm-client-variants-');
    dirs.push(tmp);
    // The correct server, driven by a client that predates Streamable HTTP.
    const config = await writeConfig(
      tmp,
      `{ package: ${JSON.stringify(path.join(ROOT, 'fixtures/broken/_base'))}, cells: [{ pin: 'latest@1' }], clients: ['1.9.0'],
         stdio: { expect: { tools: ['echo', 'add'] }, steps: [{ tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } }] },
         http: { args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'], env: { MCP_SERVER_TOKEN: '{token}' } },
         bind: { args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'] }, leaks: { graceMs: 3000 }, lockstep: 'off' }`,
    );
    const outDir = path.join(tmp, 'out');
    const out = await cli(['run', '--config', config, '--out', outDir, '--progress', 'silent'], { timeoutMs: 300_000 });
    oldClient = { out, results: await readResults(outDir) };
  };
  const link = async (): Promise<void> => {
    linkRun = await runFixture('resource-link-only', 'mm-client-variants');
    dirs.push(linkRun.outDir);
  };
  await Promise.all([base(), link()]);
}, 900_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const phase = (row: CellResult, name: string) => row.phases.find((p) => p.phase === name);
const verdicts = (row: CellResult): Record<string, string> => Object.fromEntries(row.phases.map((p) => [p.phase, p.verdict]));

describe('client variants (the driver runs each client pin from its own install)', () => {
  it('resource-link-only with clients 1.0.0 and latest@1: only the 1.0.0 variant fails, at stdio, naming client, protocol and content type', () => {
    expect(linkRun.results, `no results.json; stderr: ${linkRun.out.stderr}`).toBeDefined();
    const r = linkRun.results!;
    const table = phaseTable(r);
    expect(linkRun.out.code, table).toBe(1);
    expect(r.verdict).toBe('failed');
    expect(r.cells.map((c) => [c.id, c.cell, c.verdict])).toEqual([
      ['latest-1~client-1.0.0', 'latest-1', 'failed'],
      ['latest-1~client-latest-1', 'latest-1', 'passed'],
    ]);
    const [old, current] = r.cells as [CellResult, CellResult];

    expect(old.client).toEqual({ pin: '1.0.0', major: 1, version: '1.0.0', package: '@modelcontextprotocol/sdk' });
    expect(verdicts(old), table).toEqual({
      environment: 'passed',
      stdio: 'failed',
      http: 'skipped',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(phase(old, 'stdio')!.step).toBe('tools/call find_doc');
    expect(phase(old, 'stdio')!.message).toMatch(
      /^tools\/call find_doc: the client @modelcontextprotocol\/sdk@1\.0\.0 could not read the server's answer under the negotiated protocol 2024-11-05: content\[0\] has type "resource_link", which this client does not know \(the server sent content protocol 2024-11-05 does not have\) · sent tools\/call \{"name":"find_doc","arguments":\{"topic":"intro"\}\} · answer \{"content":\[\{.*"type":"resource_link"\}\]\}; the other cells answered: the same answer without failing \(latest-1~client-latest-1 \(1\.\d+\.\d+\)\)$/,
    );
    expect(phase(old, 'http')!.message).toBe(
      'the client @modelcontextprotocol/sdk@1.0.0 has no Streamable HTTP transport (added in 1.10.0)',
    );
    expect(old.summary.protocolVersion).toBe('2024-11-05');

    expect(current.client).toMatchObject({ pin: 'latest@1', major: 1, package: '@modelcontextprotocol/sdk' });
    expect(current.client!.version).toMatch(/^1\.(\d+)\.\d+$/);
    expect(Number(current.client!.version.split('.')[1])).toBeGreaterThanOrEqual(13);
    expect(verdicts(current), table).toEqual({
      environment: 'passed',
      stdio: 'passed',
      http: 'passed',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(current.summary.protocolVersion).toBe('2025-11-25');

    expect(linkRun.leftoverDirs).toEqual([]);
    expect(linkRun.leftoverProcs).toEqual([]);
  });

  it('a client before 1.10.0 (1.9.0) against the correct server: http skipped with the reason, the rest passes, exit 0', () => {
    const { out, results: r } = oldClient;
    const table = phaseTable(r);
    expect(out.code, `${table}\n${out.stderr}`).toBe(0);
    expect(r.cells.map((c) => c.id)).toEqual(['latest-1~client-1.9.0']);
    const row = r.cells[0]!;
    expect(row.client).toEqual({ pin: '1.9.0', major: 1, version: '1.9.0', package: '@modelcontextprotocol/sdk' });
    expect(verdicts(row), table).toEqual({
      environment: 'passed',
      stdio: 'passed',
      http: 'skipped',
      bind: 'passed',
      conformance: 'skipped',
      leaks: 'passed',
    });
    expect(phase(row, 'http')!.message).toBe(
      'the client @modelcontextprotocol/sdk@1.9.0 has no Streamable HTTP transport (added in 1.10.0)',
    );
    expect(row.summary.protocolVersion).toBe('2024-11-05');
  });
});
