import { describe, expect, it } from 'vitest';
import { strictLeg } from '../../../src/commands/init/strict-leg.js';

const CELLS = [
  { pin: 'floor@1', role: 'lower supported boundary (1.x)', version: '1.23.0' },
  { pin: 'latest@1', role: 'latest supported 1.x', version: '1.32.2' },
];

describe('strictLeg', () => {
  it("proposes the newest pin again, installed by pnpm with hoist=false, when the lockfile is pnpm's or Yarn's", () => {
    expect(strictLeg(CELLS, { pm: 'yarn', lockfile: 'yarn.lock' })).toEqual([
      {
        pin: 'latest@1',
        role: 'latest supported 1.x, installed strictly (pnpm, hoist=false) for a yarn lockfile',
        version: '1.32.2',
        install: 'pnpm-strict',
      },
    ]);
    expect(strictLeg(CELLS, { pm: 'pnpm', lockfile: 'pnpm-lock.yaml' })).toHaveLength(1);
  });

  it("proposes the Yarn PnP leg for a Yarn project that uses Plug'n'Play", () => {
    expect(strictLeg(CELLS, { pm: 'yarn', lockfile: 'yarn.lock', pnp: true })).toEqual([
      {
        pin: 'latest@1',
        role: 'latest supported 1.x, installed strictly (Yarn PnP) for a Yarn PnP project',
        version: '1.32.2',
        install: 'yarn-pnp',
      },
    ]);
  });

  it('none for npm, nor without a lockfile', () => {
    expect(strictLeg(CELLS, { pm: 'npm', lockfile: 'package-lock.json' })).toEqual([]);
    expect(strictLeg(CELLS, { pm: 'pnpm' })).toEqual([]);
    expect(strictLeg([], { pm: 'pnpm', lockfile: 'pnpm-lock.yaml' })).toEqual([]);
  });
});
