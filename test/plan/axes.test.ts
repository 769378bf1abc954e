import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { clientId, resolveClient } from '../../src/plan/clients.js';
import { nodeBinaryPackage } from '../../src/plan/node-versions.js';
import { buildPlan, refuseUnknownCells, selectCells, selectedIds, variantId, type Plan } from '../../src/plan/plan.js';
import type { Registry } from '../../src/plan/registry.js';
import { DEFAULT_MAJORS } from '../../src/config/majors.js';
import { planJson } from '../../src/commands/plan.js';
import { describeExpansion } from '../../src/plan/expansion.js';
import { variantRef } from '../../src/orchestrator/assemble.js';
import { fakeRegistry, SDK } from './fake-registry.js';
import { packageDir } from './package-dir.js';

const ZOD = '^3.25 || ^4.0';
const PACKAGES = {
  ...SDK,
  '@modelcontextprotocol/sdk': {
    ...SDK['@modelcontextprotocol/sdk'],
    '1.0.0': {},
    '1.24.0': { zod: ZOD, '@cfworker/json-schema': '^4.1.1' },
  },
  '@modelcontextprotocol/client': { '2.0.0': {}, '2.3.1': {}, '2.4.0': {}, '2.5.0-beta.1': {} },
  zod: { '3.24.0': {}, '3.25.76': {}, '4.1.12': {}, '4.2.0-canary.1': {} },
  '@cfworker/json-schema': { '4.1.1': {} },
  [nodeBinaryPackage()]: { '20.19.0': {}, '22.11.0': {}, '22.12.0': {}, '24.1.0': {} },
};

/** The fake registry, with @cfworker/json-schema optional as the real sdk 1.24.0 marks it (peerDependenciesMeta). */
function registry(): Registry {
  const base = fakeRegistry(PACKAGES);
  return {
    ...base,
    get lookups() {
      return base.lookups;
    },
    async meta(name) {
      const m = await base.meta(name);
      if (m.ok && name === '@modelcontextprotocol/sdk') m.value.versions.get('1.24.0')!.optionalPeers = ['@cfworker/json-schema'];
      return m;
    },
  };
}

const { resolved } = packageDir();

async function plan(config: MatrixConfig): Promise<Plan> {
  const built = await buildPlan(resolved(config), registry());
  if (!built.ok) throw new Error(built.error.message + (built.error.details ?? []).join('\n'));
  return built.value;
}

describe('resolveClient', () => {
  it('a 1.x pin installs @modelcontextprotocol/sdk with its required peers at the newest version their range admits (optional peers left out)', async () => {
    const r = await resolveClient('1.24.0', DEFAULT_MAJORS, registry(), {});
    expect(r).toEqual({
      ok: true,
      value: {
        id: 'client-1.24.0',
        pin: '1.24.0',
        major: 1,
        version: '1.24.0',
        package: '@modelcontextprotocol/sdk',
        installSet: { '@modelcontextprotocol/sdk': '1.24.0', zod: '4.1.12' },
      },
    });
  });

  it('latest@2 is the newest stable @modelcontextprotocol/client (2.x declares no peers)', async () => {
    const r = await resolveClient('latest@2', DEFAULT_MAJORS, registry(), {});
    expect(r.ok && r.value).toMatchObject({
      id: 'client-latest-2',
      version: '2.4.0',
      installSet: { '@modelcontextprotocol/client': '2.4.0' },
    });
  });

  it("floor@2 reads the range the package declares on that major's server package", async () => {
    const r = await resolveClient('floor@2', DEFAULT_MAJORS, registry(), { '@modelcontextprotocol/server': '^2.2.0' });
    expect(r.ok && r.value.version).toBe('2.3.1');
  });

  it('a pin that does not exist is a usage error naming the client package', async () => {
    const r = await resolveClient('2.1.0', DEFAULT_MAJORS, registry(), {});
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatchObject({ kind: 'usage' });
    expect(!r.ok && r.error.message).toBe(
      'client pin 2.1.0: @modelcontextprotocol/client@2.1.0 does not exist on the registry (the newest 2.x is 2.4.0); use a published version or latest@2',
    );
  });

  it('a required peer no published version satisfies is a usage error naming both', async () => {
    const reg = fakeRegistry({ ...PACKAGES, '@modelcontextprotocol/sdk': { '1.0.0': { zod: '^9.0.0' } } });
    const r = await resolveClient('1.0.0', DEFAULT_MAJORS, reg, {});
    expect(!r.ok && r.error.message).toBe('client @modelcontextprotocol/sdk@1.0.0 needs zod@^9.0.0, and no published zod satisfies it');
  });
});

describe('buildPlan: variants', () => {
  it('without axes each cell has one variant, its own id, and no client or node', async () => {
    const p = await plan({ cells: [{ pin: 'latest@1' }, { pin: 'latest@2' }] });
    expect(p.cells.map((c) => c.variants)).toEqual([[{ id: 'latest-1' }], [{ id: 'latest-2' }]]);
    expect(planJson(p).include.map((i) => Object.keys(i))).toEqual([
      ['id', 'pin', 'version', 'major', 'role', 'allowedToFail', 'installSet'],
      ['id', 'pin', 'version', 'major', 'role', 'allowedToFail', 'installSet'],
    ]);
  });

  it('crosses cells × clients × node with stable ids, the exact Node release and each client resolved once', async () => {
    const p = await plan({
      cells: [{ pin: 'latest@1' }, { pin: '2.0.0', node: ['24'] }],
      clients: ['1.0.0', 'latest@2'],
      node: [22, '20.19.0'],
    });
    expect(p.cells.map((c) => c.variants.map((v) => v.id))).toEqual([
      [
        'latest-1~client-1.0.0~node-22',
        'latest-1~client-1.0.0~node-20.19.0',
        'latest-1~client-latest-2~node-22',
        'latest-1~client-latest-2~node-20.19.0',
      ],
      ['2.0.0~client-1.0.0~node-24', '2.0.0~client-latest-2~node-24'],
    ]);
    const v = p.cells[0]!.variants[0]!;
    expect(v.client).toEqual({
      id: 'client-1.0.0',
      pin: '1.0.0',
      major: 1,
      version: '1.0.0',
      package: '@modelcontextprotocol/sdk',
      installSet: { '@modelcontextprotocol/sdk': '1.0.0' },
    });
    expect(v.node).toEqual({ id: 'node-22', spec: '22', version: '22.12.0' });
    // The same client object serves every cell that names the pin: it is installed once.
    expect(p.cells[1]!.variants[0]!.client).toBe(v.client);
    expect(describeExpansion(p)).toBe(
      '6 variant(s); installs: 2 server install(s), 2 client install(s), 3 node runtime(s); a variant adds driver runs, never installs',
    );
    expect(variantRef(v)).toEqual({
      id: 'latest-1~client-1.0.0~node-22',
      client: { pin: '1.0.0', major: 1, version: '1.0.0', package: '@modelcontextprotocol/sdk' },
      node: { spec: '22', version: '22.12.0' },
    });
  });

  it('plan --json has one entry per variant with its cell, client and exact Node release', async () => {
    const p = await plan({ cells: [{ pin: 'latest@2' }], clients: ['1.0.0'], node: [22] });
    expect(planJson(p).include).toEqual([
      {
        id: 'latest-2~client-1.0.0~node-22',
        cell: 'latest-2',
        pin: 'latest@2',
        version: '2.4.0',
        major: 2,
        role: '',
        allowedToFail: false,
        installSet: '@modelcontextprotocol/server@2.4.0 @modelcontextprotocol/client@2.4.0 @modelcontextprotocol/node@2.1.2',
        client: { id: 'client-1.0.0', pin: '1.0.0', major: 1, version: '1.0.0', package: '@modelcontextprotocol/sdk' },
        node: '22.12.0',
        nodeSpec: '22',
      },
    ]);
    expect(describeExpansion(p)).toBe(
      '1 variant(s) = 1 cell(s) × 1 client(s) × 1 node(s); installs: 1 server install(s), 1 client install(s), 1 node runtime(s); a variant adds driver runs, never installs',
    );
  });

  it('the plan hash is unchanged by axes absent, and changes with them', async () => {
    const plain = await plan({ cells: [{ pin: 'latest@2' }] });
    const again = await plan({ cells: [{ pin: 'latest@2' }, { pin: 'latest@1', clients: [] }] });
    const axes = await plan({ cells: [{ pin: 'latest@2' }], clients: ['1.0.0'] });
    expect(plain.hash).not.toBe(axes.hash);
    expect(again.hash).not.toBe(plain.hash);
    expect((await plan({ cells: [{ pin: 'latest@2' }] })).hash).toBe(plain.hash);
  });

  it('every axis problem is reported at once', async () => {
    const r = await buildPlan(resolved({ cells: [{ pin: 'latest@1' }], clients: ['1.9.9'], node: [99] }), registry());
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toBe('the axes have problems:');
    expect(!r.ok && r.error.details?.length).toBe(2);
    expect(!r.ok && r.error.details?.[0]).toContain('client pin 1.9.9: @modelcontextprotocol/sdk@1.9.9 does not exist');
    expect(!r.ok && r.error.details?.[1]).toContain('node 99');
  });
});

describe('selectCells (--cell)', () => {
  it('a cell id keeps every variant of it; a variant id keeps that one; selectedIds records either', async () => {
    const p = await plan({ cells: [{ pin: 'latest@1' }, { pin: 'latest@2' }], clients: ['1.0.0', 'latest@2'] });
    const whole = selectCells(p.cells, ['latest-1']);
    expect(whole.ok && whole.value.map((c) => c.variants.map((v) => v.id))).toEqual([
      ['latest-1~client-1.0.0', 'latest-1~client-latest-2'],
    ]);
    expect(whole.ok && selectedIds(p.cells, whole.value)).toEqual(['latest-1']);
    const one = selectCells(p.cells, ['latest-2~client-1.0.0', '1.32.2']);
    expect(one.ok && one.value.map((c) => c.variants.map((v) => v.id))).toEqual([
      ['latest-1~client-1.0.0', 'latest-1~client-latest-2'],
      ['latest-2~client-1.0.0'],
    ]);
    expect(one.ok && selectedIds(p.cells, one.value)).toEqual(['latest-1', 'latest-2~client-1.0.0']);
    expect(selectCells(p.cells, []).ok && selectedIds(p.cells, p.cells)).toBeUndefined();
  });

  it('an unknown name is a usage error listing cells and variants', async () => {
    const p = await plan({ cells: [{ pin: 'latest@1' }], clients: ['1.0.0'] });
    const r = selectCells(p.cells, ['latest-1~client-2.0.0']);
    expect(!r.ok && r.error.message).toBe(
      '--cell latest-1~client-2.0.0 matches no cell or variant; the plan has: latest-1 (1.32.2); variants: latest-1~client-1.0.0',
    );
  });

  it('without axes the message is what it was', async () => {
    const p = await plan({ cells: [{ pin: 'latest@1' }] });
    const r = selectCells(p.cells, ['nope']);
    expect(!r.ok && r.error.message).toBe('--cell nope matches no cell; the plan has: latest-1 (1.32.2)');
  });
});

describe('refuseUnknownCells (--cell, before any look-up)', () => {
  it('lets through every name selectCells may take once planned; refuses the rest, naming the config cells', async () => {
    const p = await plan({ cells: [{ pin: 'latest@1' }, { pin: '2.3.1' }], clients: ['1.0.0'] });
    const names = ['latest-1', 'latest@1', '2.3.1', '1.32.2', '9.9.9', 'latest-1~client-1.0.0', 'latest-1~client-2.0.0'];
    expect(refuseUnknownCells(p.cells, names)).toEqual({ ok: true, value: undefined });
    expect(refuseUnknownCells(p.cells, [])).toEqual({ ok: true, value: undefined });
    const r = refuseUnknownCells(p.cells, ['nope', 'latest-1', 'latest', '~client-1.0.0']);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.kind).toBe('usage');
    expect(!r.ok && r.error.message).toBe(
      "--cell nope, latest, ~client-1.0.0 matches no cell; the config's cells: latest-1 (latest@1), 2.3.1 (a cell is named by its id, its pin or the version it resolves to; a variant by its id, <cell id>~…)",
    );
  });
});

describe('ids', () => {
  it('variantId and clientId follow the contract', () => {
    expect(variantId('latest-2', clientId('1.0.0'), 'node-22')).toBe('latest-2~client-1.0.0~node-22');
    expect(variantId('floor-1', clientId('latest@2'))).toBe('floor-1~client-latest-2');
    expect(variantId('floor-1', undefined, 'node-22.11.0')).toBe('floor-1~node-22.11.0');
    expect(variantId('floor-1')).toBe('floor-1');
  });
});
