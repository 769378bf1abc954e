import { describe, expect, it } from 'vitest';
import { besideOrAlone, cellLanes, hasLanes, laneRoom } from '../../src/orchestrator/cell-lanes.js';
import type { PhaseShare } from '../../src/judge/phase-share.js';
import type { PhaseResult } from '../../src/results/types.js';

const node = (version: string) => ({ spec: version, version, id: `node-${version}` });
const v = (id: string, nodeVersion?: string) => ({ id, ...(nodeVersion ? { node: node(nodeVersion) } : {}) });
const tick = () => new Promise((r) => setTimeout(r, 5));
const bindOf = (variant: string) => ({ variant, result: { phase: 'bind', verdict: 'passed', durationMs: 1 } as PhaseResult });

/** A task that starts, logs, and ends when told. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, task: async () => (log.push(`${name} start`), await opened, log.push(`${name} end`), name) };
}

describe('hasLanes, laneRoom: which cells and runs have variants side by side', () => {
  it('a node_modules cell with two Node releases or more; not a strict leg, not one release', () => {
    expect(hasLanes({ variants: [v('a', '20'), v('b', '22')] })).toBe(true);
    expect(hasLanes({ variants: [v('a', '20'), v('b', '20')] })).toBe(false);
    expect(hasLanes({ variants: [v('a'), v('b')] })).toBe(false);
    expect(hasLanes({ install: 'pnpm-strict', variants: [v('a', '20'), v('b', '22')] })).toBe(false);
  });

  it('only with more drivers at once than cells, and never with sideBySide false', () => {
    const cells = [{ variants: [v('a', '20'), v('b', '22')] }];
    expect(laneRoom({}, cells, 2)).toBe(process.platform === 'linux');
    expect(laneRoom({}, cells, 1)).toBe(false);
    expect(laneRoom({ sideBySide: false }, cells, 8)).toBe(false);
  });
});

describe('besideOrAlone: drivers beside each other, or one alone on the cell', () => {
  it('an alone waits for those running beside, and a later beside waits for it', async () => {
    const lock = besideOrAlone();
    const log: string[] = [];
    const [a, b, c] = [gate(log, 'a'), gate(log, 'alone'), gate(log, 'c')];
    const ran = [lock.beside(a.task), lock.alone(b.task)];
    await tick();
    ran.push(lock.beside(c.task));
    await tick();
    expect(log).toEqual(['a start']);
    a.open();
    await tick();
    expect(log).toEqual(['a start', 'a end', 'alone start']);
    b.open();
    await tick();
    c.open();
    await Promise.all(ran);
    expect(log).toEqual(['a start', 'a end', 'alone start', 'alone end', 'c start', 'c end']);
  });
});

describe('cellLanes: one lane per Node release, rows that stand, and the way back to in turn', () => {
  it("variants on two Node releases run at once; a lane's later one beside its first, taking its shares once its row stands", async () => {
    const shares: PhaseShare = new Map();
    const lanes = cellLanes([v('a', '20'), v('b', '22'), v('c', '20')], shares);
    const log: string[] = [];
    const gates = ['a', 'b', 'c'].map((n) => gate(log, n));
    const took: string[] = [];
    const rows = ['a', 'b', 'c'].map((id, i) =>
      lanes.run(
        v(id, i === 1 ? '22' : '20'),
        async (lane) => {
          expect(lane.later !== undefined).toBe(id === 'c');
          const row = await gates[i]!.task();
          if (id === 'a') shares.set('bind on 20', bindOf('a'));
          if (lane.later) took.push(JSON.stringify(Object.keys(await lane.later())), `c took: after ${log.join(', ')}`);
          return row;
        },
        async () => 'in turn',
      ),
    );
    await tick();
    expect(log).toEqual(['a start', 'b start', 'c start']);
    gates[2]!.open();
    gates[1]!.open();
    await tick();
    // c's driver ended first; its shares wait for a's row (and b's, earlier in plan order).
    expect(took).toEqual([]);
    gates[0]!.open();
    expect(await Promise.all(rows)).toEqual(['a', 'b', 'c']);
    expect(took).toEqual(['["bind"]', 'c took: after a start, b start, c start, c end, b end, a end']);
  });

  it("a later variant whose run is not its turn's (no clean share): run again in its lane's turn, after the earlier ones", async () => {
    const lanes = cellLanes([v('a', '20'), v('b', '20')], new Map());
    const runs: string[] = [];
    const rows = ['a', 'b'].map((id) =>
      lanes.run(
        v(id, '20'),
        async (lane) => {
          runs.push(`${id}${lane.later ? ' beside its first' : ''}`);
          if (lane.later) {
            expect(await lane.later()).toEqual({});
            lane.again = 'no clean bind';
            return `${id} discarded`;
          }
          await tick();
          return id;
        },
        async () => 'in turn',
      ),
    );
    expect(await Promise.all(rows)).toEqual(['a', 'b']);
    expect(runs).toEqual(['a', 'b beside its first', 'b']);
  });

  it('a server that wrote into its copy: that variant and every later one run again in turn, in order, with the shares of those that stand', async () => {
    const shares: PhaseShare = new Map();
    const variants = [v('a', '20'), v('b', '22'), v('c', '20'), v('d', '22')];
    const lanes = cellLanes(variants, shares);
    const turns: string[] = [];
    const rows = variants.map((variant) =>
      lanes.run(
        variant,
        async (lane) => {
          // a measures bind on 20, b on 22 (each beside the other); b's server writes into its copy.
          if (variant.id === 'a' || variant.id === 'b') shares.set(`bind on ${variant.node!.version}`, bindOf(variant.id));
          if (variant.id === 'b') lane.wrote = 'pkg/state.json';
          await tick();
          return `${variant.id} beside`;
        },
        async (turnShares) => {
          turns.push(`${variant.id}: ${[...turnShares.values()].map((s) => s.variant).join(',')}`);
          if (variant.id === 'b') turnShares.set('bind on 22', bindOf('b'));
          return `${variant.id} in turn`;
        },
      ),
    );
    expect(await Promise.all(rows)).toEqual(['a beside', 'b in turn', 'c in turn', 'd in turn']);
    // b's own beside share is gone before its run in turn; c and d see a's and b's (run again) in plan order.
    expect(turns).toEqual(['b: a', 'c: a,b', 'd: a,b']);
  });
});
