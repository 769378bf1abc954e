// Which packages a plan reads from the registry: each look-up is an `npm view` process (~0.4 CPU-s on every run),
// so a plan asks for what its pins and its lockstep check read, and for nothing else.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { buildPlan, pinLookupNames, planLookupNames, type Plan } from '../../src/plan/plan.js';
import type { Registry } from '../../src/plan/registry.js';
import { fakeRegistry, SDK } from './fake-registry.js';

const V1 = '@modelcontextprotocol/sdk';
const V2 = '@modelcontextprotocol/server';
const V2_COMPANION = '@modelcontextprotocol/node';

/** The fake registry, recording each distinct package asked for. */
function recording(): Registry & { asked: Set<string> } {
  const base = fakeRegistry(SDK);
  const asked = new Set<string>();
  return {
    ...base,
    asked,
    get lookups() {
      return base.lookups;
    },
    meta(name) {
      asked.add(name);
      return base.meta(name);
    },
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-plan-lookups-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function plan(config: MatrixConfig, peerDependencies: Record<string, string>) {
  const pkg = path.join(dir, String(Math.random()).slice(2));
  await mkdir(pkg);
  await writeFile(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: 'srv', version: '1.0.0', bin: { srv: 'srv.js' }, peerDependencies }),
  );
  const resolved = resolveConfig({ file: path.join(pkg, 'matrix.config.ts'), dir: pkg, config }, {}, pkg);
  const registry = recording();
  const built = await buildPlan(resolved, registry);
  return { built, asked: registry.asked, resolved };
}

function planned(built: Awaited<ReturnType<typeof plan>>['built']): Plan {
  if (!built.ok) throw new Error(built.error.message + (built.error.details ?? []).join('\n'));
  return built.value;
}

describe('the look-ups of a plan', () => {
  it('a config that pins only major 1 with lockstep off reads only the major-1 package', async () => {
    const { built, asked } = await plan({ package: '.', cells: [{ pin: 'latest@1' }], lockstep: 'off' }, { [V1]: '^1.22.0' });
    expect(planned(built).cells.map((c) => c.version)).toEqual(['1.32.2']);
    expect([...asked]).toEqual([V1]);
  });

  it('a major-2 pin reads its primary and its companion, and an exact 1.x pin the major-1 package', async () => {
    const { built, asked } = await plan(
      { package: '.', cells: [{ pin: 'latest@2' }, { pin: '1.23.0' }], lockstep: 'off' },
      { [V1]: '^1.22.0', [V2]: '^2.0.0' },
    );
    expect(planned(built).cells.map((c) => c.installSet)).toEqual([
      { [V2]: '2.4.0', '@modelcontextprotocol/client': '2.4.0', [V2_COMPANION]: '2.1.2' },
      { [V1]: '1.23.0' },
    ]);
    expect([...asked].sort()).toEqual([V2_COMPANION, V1, V2].sort());
  });

  it('lockstep on: the primary of every major the package declares a range on is read, and its finding kept', async () => {
    const { built, asked } = await plan(
      { package: '.', cells: [{ pin: 'floor@1' }, { pin: 'latest@1' }], lockstep: 'warn' },
      { [V1]: '^1.22.0', [V2]: '^2.2.0' },
    );
    expect(planned(built).lockstep.map((f) => f.message)).toEqual([
      `the declared range "^2.2.0" on ${V2} admits major 2 (2.2.0 … 2.4.0), but no cell covers it; add cells floor@2 and latest@2`,
    ]);
    // The companion is read only for a cell of its major.
    expect([...asked].sort()).toEqual([V1, V2].sort());
  });

  it('lockstep on: a major the package declares no range on is not read', async () => {
    const { asked } = await plan({ package: '.', cells: [{ pin: 'latest@1' }], lockstep: 'error' }, { [V1]: '^1.22.0' });
    expect([...asked]).toEqual([V1]);
  });

  it('a floor pin without a major may resolve to any major: every major is read', async () => {
    const { built, asked } = await plan({ package: '.', cells: [{ pin: 'floor' }], lockstep: 'off' }, { [V2]: '^2.3.0' });
    expect(planned(built).cells.map((c) => c.version)).toEqual(['2.3.1']);
    expect([...asked].sort()).toEqual([V2_COMPANION, V1, V2].sort());
  });

  it('pinLookupNames (started as soon as the config loads) is what the pins need; planLookupNames adds lockstep', async () => {
    const { resolved } = await plan({ package: '.', cells: [{ pin: 'latest@1' }], lockstep: 'error' }, {});
    expect([...pinLookupNames(resolved)]).toEqual([V1]);
    expect([...planLookupNames(resolved, { [V2]: '^2.0.0' })].sort()).toEqual([V1, V2].sort());
    expect([...planLookupNames({ ...resolved, lockstep: 'off' }, { [V2]: '^2.0.0' })]).toEqual([V1]);
  });
});
