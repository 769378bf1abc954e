import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_MAJORS, resolveConfig } from '../../src/config/resolve.js';
import { checkEnginesLockstep, checkLockstep, type LockstepCell } from '../../src/plan/lockstep.js';
import { manifestInfo, type RawManifest } from '../../src/plan/package-info.js';
import { resolvePin } from '../../src/plan/pins.js';
import type { PackageMeta } from '../../src/plan/registry.js';
import { fakeRegistry, SDK } from './fake-registry.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const V1 = '@modelcontextprotocol/sdk';
const V2 = '@modelcontextprotocol/server';

/** Published versions per primary package, as the registry would report them. */
function metas(): Map<string, PackageMeta> {
  const out = new Map<string, PackageMeta>();
  for (const name of [V1, V2] as const) {
    out.set(name, { name, versions: new Map(Object.keys(SDK[name]).map((v) => [v, { peerDependencies: {} }])) });
  }
  return out;
}

const cell = (id: string, major: number, version: string): LockstepCell => ({ id, major, version });
const BOTH = { [V1]: '>=1.23.0 <2', [V2]: '>=2.0.0 <3' };
const FULL = [cell('floor-1', 1, '1.23.0'), cell('latest-1', 1, '1.32.2'), cell('floor-2', 2, '2.0.0'), cell('latest-2', 2, '2.4.0')];

describe('checkLockstep', () => {
  test('floor and latest of every admitted major: no finding', () => {
    expect(checkLockstep(BOTH, DEFAULT_MAJORS, metas(), FULL)).toEqual([]);
  });

  test('the floor cell above the declared floor is an error naming the floor and the lowest cell', () => {
    const cells = [cell('1.24.0', 1, '1.24.0'), cell('latest-1', 1, '1.32.2'), cell('floor-2', 2, '2.0.0'), cell('latest-2', 2, '2.4.0')];
    const findings = checkLockstep(BOTH, DEFAULT_MAJORS, metas(), cells);
    expect(findings).toEqual([
      {
        level: 'error',
        message: `the declared range ">=1.23.0 <2" admits ${V1}@1.23.0, but no cell pins it (lowest cell: 1.24.0); add a floor@1 cell or raise the range`,
      },
    ]);
  });

  test('no cell for a declared major is an error naming the major and the cells to add', () => {
    const findings = checkLockstep(BOTH, DEFAULT_MAJORS, metas(), FULL.slice(0, 2));
    expect(findings).toEqual([
      {
        level: 'error',
        message: `the declared range ">=2.0.0 <3" on ${V2} admits major 2 (2.0.0 … 2.4.0), but no cell covers it; add cells floor@2 and latest@2`,
      },
    ]);
  });

  test('a pin outside the declared range is an error', () => {
    const findings = checkLockstep({ [V1]: '>=1.23.0 <2' }, DEFAULT_MAJORS, metas(), [
      cell('old', 1, '1.22.0'),
      cell('floor-1', 1, '1.23.0'),
      cell('latest-1', 1, '1.32.2'),
    ]);
    expect(findings).toEqual([{ level: 'error', message: `cell old pins ${V1}@1.22.0, outside the declared range ">=1.23.0 <2"` }]);
  });

  test('a cell on a major the package declares no range for is an error', () => {
    const findings = checkLockstep({ [V1]: '^1.23.0' }, DEFAULT_MAJORS, metas(), [...FULL.slice(0, 2), cell('2.0.0', 2, '2.0.0')]);
    expect(findings).toEqual([{ level: 'error', message: `cell 2.0.0 pins ${V2}@2.0.0, but the package declares no range on ${V2}` }]);
  });

  test('a published version newer than every cell inside the range is a warning, not an error', () => {
    const findings = checkLockstep(BOTH, DEFAULT_MAJORS, metas(), [...FULL.slice(0, 2), cell('floor-2', 2, '2.0.0')]);
    expect(findings).toEqual([
      {
        level: 'warning',
        message: `${V2}@2.4.0 is inside the declared range ">=2.0.0 <3" but newer than any cell (newest cell: 2.0.0); add a latest@2 cell`,
      },
    ]);
  });

  // Loads matrix.config.ts through jiti and Babel (a worker's first Babel start: 12 s seen in a loaded CI): a hang guard.
  test("the project's own ranges (reference server) and cells (matrix.config.ts): no finding", { timeout: 60_000 }, async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'fixtures/reference-server/package.json'), 'utf8')) as RawManifest;
    const { ranges } = manifestInfo(manifest);
    const loaded = await loadConfig(ROOT, 'matrix.config.ts');
    if (!loaded.ok) throw new Error(loaded.error.message);
    const config = resolveConfig(loaded.value, {}, ROOT);
    const registry = fakeRegistry(SDK);
    const cells: LockstepCell[] = [];
    for (const c of config.cells) {
      const pin = await resolvePin(c.pin, config.majors, registry, ranges);
      if (!pin.ok) throw new Error(pin.error.message);
      cells.push(cell(c.id, pin.value.major, pin.value.version));
    }
    expect(cells.map((c) => `${c.id}=${c.version}`)).toEqual(['floor-1=1.23.0', 'latest-1=1.32.2', '2.0.0=2.0.0', 'latest-2=2.4.0']);
    expect(checkLockstep(ranges, config.majors, metas(), cells)).toEqual([]);
  });
});

describe('checkEnginesLockstep (engines.node against the Node axis)', () => {
  const RELEASES = [
    '18.20.8',
    '20.0.0',
    '20.19.0',
    '20.20.2',
    '21.7.3',
    '22.0.0',
    '22.23.5',
    '23.11.1',
    '24.0.0',
    '24.22.3',
    '26.0.0-rc.1',
  ];
  const node = (spec: string, version: string) => ({ id: `node-${spec}`, version });

  test('no Node axis: the host runs, nothing is claimed', () => {
    expect(checkEnginesLockstep('>=20', [], RELEASES)).toEqual([]);
    expect(checkEnginesLockstep(undefined, [], RELEASES)).toEqual([]);
  });

  test('the floor release and every admitted even major covered: no finding', () => {
    const axis = [node('20.19.0', '20.19.0'), node('22', '22.23.5'), node('24', '24.22.3')];
    expect(checkEnginesLockstep('>=20.19', axis, RELEASES)).toEqual([]);
  });

  test('the floor not run, an LTS major uncovered: both errors, naming the floor and the majors', () => {
    expect(checkEnginesLockstep('>=20', [node('20', '20.20.2'), node('22', '22.23.5')], RELEASES)).toEqual([
      {
        level: 'error',
        message: `engines.node ">=20" admits Node 20.0.0, but no variant runs it (lowest: 20.20.2); add node '20.0.0' or raise engines.node`,
      },
      { level: 'error', message: 'engines.node ">=20" admits Node 24, but no variant runs it; add 24 to "node"' },
    ]);
  });

  test('several uncovered majors are named together; odd majors are not required', () => {
    const findings = checkEnginesLockstep('>=18.20.8', [node('18.20.8', '18.20.8')], RELEASES);
    expect(findings).toEqual([
      { level: 'error', message: 'engines.node ">=18.20.8" admits Node 20, 22, 24, but no variant runs them; add 20, 22, 24 to "node"' },
    ]);
  });

  test('a variant outside the claim is an error naming the variant', () => {
    const findings = checkEnginesLockstep(
      '^20.19 || >=22',
      [node('18', '18.20.8'), node('20.19.0', '20.19.0'), node('22', '22.23.5'), node('24', '24.22.3')],
      RELEASES,
    );
    expect(findings).toEqual([
      { level: 'error', message: 'variant node-18 runs Node 18.20.8, outside the declared engines.node "^20.19 || >=22"' },
    ]);
  });

  test('an older release of the newest major: a warning, as for the SDK', () => {
    const axis = [node('20.19.0', '20.19.0'), node('22', '22.23.5'), node('24.0.0', '24.0.0')];
    expect(checkEnginesLockstep('>=20.19', axis, RELEASES)).toEqual([
      {
        level: 'warning',
        message: 'Node 24.22.3 is inside engines.node ">=20.19" but newer than any variant (newest: 24.0.0); add node 24',
      },
    ]);
  });

  test('no engines.node, or not a range: an error', () => {
    expect(checkEnginesLockstep(undefined, [node('22', '22.23.5'), node('20', '20.20.2')], RELEASES)).toEqual([
      {
        level: 'error',
        message: 'the Node axis runs 20.20.2, 22.23.5, but the package declares no engines.node; declare the Node releases it supports',
      },
    ]);
    expect(checkEnginesLockstep('twenty', [node('22', '22.23.5')], RELEASES)).toEqual([
      { level: 'error', message: 'engines.node "twenty" is not a valid semver range' },
    ]);
  });

  test('manifestInfo reads engines.node', () => {
    expect(manifestInfo({ name: 'p', engines: { node: '>=20' } }).nodeRange).toBe('>=20');
    expect(manifestInfo({ name: 'p', engines: {} })).not.toHaveProperty('nodeRange');
  });
});
