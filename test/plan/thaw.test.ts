// The frozen plan thawed (src/plan/thaw.ts): what the plan job resolved is what every cell job runs, whatever the
// registry says later; a config other than the plan's refuses it.
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/plan.js';
import { configShape, freezePlan, parseFrozenPlan } from '../../src/plan/frozen.js';
import { thawPlan } from '../../src/plan/thaw.js';
import { planJson } from '../../src/commands/plan.js';
import { fakeRegistry, SDK } from './fake-registry.js';
import { CONFIG, packageDir } from './package-dir.js';

const { resolved } = packageDir();

describe('thawPlan', () => {
  it('a release between the plan job and a cell job changes nothing: the thawed plan has the planned pins, install sets and hash', async () => {
    const planned = await buildPlan(resolved(CONFIG), fakeRegistry(SDK));
    if (!planned.ok) throw new Error(planned.error.message);
    const frozen = parseFrozenPlan(JSON.parse(JSON.stringify({ frozen: freezePlan(planned.value) })), 'plan.json');
    if (!frozen.ok) throw new Error(frozen.error.message);
    // The registry moved on: a new sdk and a new companion. Resolving again gives another plan …
    const released = fakeRegistry({
      ...SDK,
      '@modelcontextprotocol/sdk': { ...SDK['@modelcontextprotocol/sdk'], '1.40.0': {} },
      '@modelcontextprotocol/node': { ...SDK['@modelcontextprotocol/node'], '2.1.3': { '@modelcontextprotocol/server': '^2.4.0' } },
    });
    const again = await buildPlan(resolved(CONFIG), released);
    expect(again.ok && again.value.hash).not.toBe(planned.value.hash);
    // … the frozen one does not, and it asks the registry nothing.
    const thawed = await thawPlan(resolved(CONFIG), frozen.value);
    expect(thawed.ok).toBe(true);
    if (!thawed.ok) return;
    expect(thawed.value.hash).toBe(planned.value.hash);
    expect(thawed.value.cells.map((c) => [c.id, c.version, c.installSet])).toEqual(
      planned.value.cells.map((c) => [c.id, c.version, c.installSet]),
    );
    expect(planJson(thawed.value)).toEqual(planJson(planned.value));
  });

  it("env values may differ between jobs (a fork's run has no secrets); anything else in the config refuses the plan", async () => {
    const planned = await buildPlan(resolved(CONFIG), fakeRegistry(SDK));
    if (!planned.ok) throw new Error(planned.error.message);
    const frozen = freezePlan(planned.value);
    expect(configShape(resolved({ ...CONFIG, env: { TOKEN: '' } }))).toBe(frozen.shape);
    const other = await thawPlan(resolved({ ...CONFIG, cells: [{ pin: 'latest@1' }] }), frozen);
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error.message).toMatch(/is not the one the plan was made from .*run the plan job again/);
  });
});
