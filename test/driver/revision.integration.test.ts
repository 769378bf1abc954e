// The http phase judges each spec check by the revision the cell's own client negotiates, proven on real cells at the
// boundary of the MCP-Protocol-Version header (MCP 2025-06-18): one server that drops the header
// (fixtures/broken/http-header-ignored-any-pin), packed and installed on SDK 1.12.3 (its client and server speak
// 2025-03-26 at most: the header check does not apply, and the phase passes) and on SDK 1.13.3 (2025-06-18: the
// check applies and fails, citing 2025-06-18). The same server on the current pin fails too (1.32.2, 2025-11-25:
// test/driver/phases/spec-checks.test.ts, `http-protocol-version-ignored`).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverSpec } from '../../src/contract/protocol.js';
import type { PhaseResultOf } from '../../src/results/types.js';
import { baseSpec, buildDriver, makeCell, npmPack, removeDir, ROOT, runDriver, tempDir, type Cell } from './helpers/cell.js';

const FIXTURE = 'broken-http-header-ignored-any-pin';
let work: string;
const cells: Record<string, Cell> = {};

beforeAll(async () => {
  work = tempDir('mcp-matrix-revision-test-');
  const build = await buildDriver(join(work, 'build'));
  const tarball = await npmPack(join(ROOT, 'fixtures/broken/http-header-ignored-any-pin'), work);
  const pins = ['1.12.3', '1.13.3'];
  const made = await Promise.all(pins.map((v) => makeCell(1, build, [tarball], [`@modelcontextprotocol/sdk@${v}`])));
  pins.forEach((v, i) => (cells[v] = made[i]!));
}, 600_000);

afterAll(() => {
  for (const c of Object.values(cells)) removeDir(c.dir);
  removeDir(work);
});

function spec(cell: Cell, pin: string): DriverSpec {
  const pkg = join(cell.dir, 'node_modules', FIXTURE);
  const bin = join(pkg, 'bin/server.js');
  return {
    ...baseSpec(cell, pkg, {
      stdio: false,
      http: {
        command: {
          bin,
          args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
          env: { MCP_SERVER_TOKEN: '{token}' },
        },
        host: '127.0.0.1',
        path: '/mcp',
        steps: [{ tool: 'echo', arguments: { text: 'hello' }, expect: { text: 'hello' } }],
        readyTimeoutMs: 15_000,
        timeoutMs: 10_000,
      },
      bind: false,
      leaks: false,
    }),
    clientVersion: pin,
  };
}

async function http(pin: string): Promise<PhaseResultOf<'http'>> {
  const run = await runDriver(cells[pin]!, spec(cells[pin]!, pin));
  const r = run.results.get('http');
  if (!r) throw new Error(`no http result: ${run.stderr}`);
  return r;
}

const check = (r: PhaseResultOf<'http'>, id: string) => r.checks!.find((c) => c.id === id)!;

describe('the MCP-Protocol-Version header check at its revision boundary, on real SDK pins', () => {
  it('SDK 1.12.3 negotiates 2025-03-26, which has no such header: not applicable, shown and recorded, and the phase passes', async () => {
    const r = await http('1.12.3');
    expect(r.details?.judgedBy).toBe('2025-03-26');
    expect(check(r, 'protocol-version')).toMatchObject({
      outcome: 'not-applicable',
      level: 'require',
      revision: '2025-03-26',
      spec: { revision: 'MCP 2025-06-18', section: 'basic/transports#protocol-version-header' },
      message: 'not applicable (revision 2025-03-26): MCP 2025-03-26 has no MCP-Protocol-Version header; it arrived in 2025-06-18',
      // What the server did is kept: it ignored the header.
      evidence: { seen: { outcome: 'failed' } },
    });
    expect(r.verdict, r.message).toBe('passed');
    // The other checks cite the revision judged by.
    expect(check(r, 'origin')).toMatchObject({ revision: '2025-03-26', spec: { revision: 'MCP 2025-03-26' } });
  });

  it('SDK 1.13.3 negotiates 2025-06-18, which has the header: the check applies and fails, citing 2025-06-18', async () => {
    const r = await http('1.13.3');
    expect(r.details?.judgedBy).toBe('2025-06-18');
    expect(check(r, 'protocol-version')).toMatchObject({
      outcome: 'failed',
      revision: '2025-06-18',
      spec: { revision: 'MCP 2025-06-18', section: 'basic/transports#protocol-version-header' },
      message: 'a request with MCP-Protocol-Version 1999-01-01 got 200 (want 400: the header is ignored)',
    });
    expect(r.verdict).toBe('failed');
    expect(r.message).toContain('[MUST, MCP 2025-06-18 basic/transports#protocol-version-header, level require]');
  });
});
