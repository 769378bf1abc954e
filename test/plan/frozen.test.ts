// The frozen plan: what the plan job resolved is what every cell job runs, whatever the registry says later.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { buildPlan } from '../../src/plan/plan.js';
import { configShape, freezePlan, parseFrozenPlan } from '../../src/plan/frozen.js';
import { thawPlan } from '../../src/plan/thaw.js';
import { matrixLimit, MATRIX_JOB_LIMIT, planJson, tooManyVariants } from '../../src/commands/plan.js';
import { fakeRegistry, SDK } from './fake-registry.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-frozen-'));
  const manifest = {
    name: 'srv',
    version: '1.0.0',
    bin: { srv: 'srv.js' },
    peerDependencies: { '@modelcontextprotocol/sdk': '>=1.23.0', '@modelcontextprotocol/server': '^2.2.0' },
  };
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const CONFIG: MatrixConfig = { cells: [{ pin: 'latest@1' }, { pin: 'latest@2' }], lockstep: 'off', env: { TOKEN: 'one' } };
const resolved = (config: MatrixConfig) => resolveConfig({ file: path.join(dir, 'matrix.config.ts'), dir, config }, {}, dir);

describe('frozen plan', () => {
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

  it('a plan.json without a frozen plan, or of another version, is bad input naming the command that writes it', () => {
    for (const json of [{}, { frozen: { version: 9 } }, { frozen: { version: 1, hash: 'h', shape: 's', cells: [] } }]) {
      const r = parseFrozenPlan(json, 'plan.json');
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/^--plan plan\.json: .*mcp-matrix plan --json > plan\.json/);
    }
  });

  it('more variants than a GitHub matrix runs: the message names the limit and the splits', async () => {
    const planned = await buildPlan(resolved(CONFIG), fakeRegistry(SDK));
    if (!planned.ok) throw new Error(planned.error.message);
    const message = tooManyVariants(300, planned.value);
    expect(MATRIX_JOB_LIMIT).toBe(256);
    expect(message).toMatch(
      /^the plan has 300 variants, more than the 256 jobs a GitHub Actions matrix can run .*split the config by SDK major \(one config per major: 1\.x, 2\.x\)/,
    );
    expect(message).toContain('shorten the client or Node axis');
    expect(matrixLimit(256, planned.value)).toBeUndefined();
    expect(matrixLimit(257, planned.value)).toEqual({ kind: 'usage', message: tooManyVariants(257, planned.value) });
  });
});
