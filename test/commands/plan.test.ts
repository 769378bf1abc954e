// `mcp-matrix plan`'s limit: more variants than a GitHub matrix runs is refused, naming the limit and the splits.
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/plan.js';
import { matrixLimit, MATRIX_JOB_LIMIT, tooManyVariants } from '../../src/commands/plan.js';
import { fakeRegistry, SDK } from '../plan/fake-registry.js';
import { CONFIG, packageDir } from '../plan/package-dir.js';

const { resolved } = packageDir();

describe('plan: the GitHub matrix limit', () => {
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
