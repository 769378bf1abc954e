import { describe, expect, it } from 'vitest';
import type { CellContext } from '../../src/cells/cell-context.js';
import type { ConformanceSuite } from '../../src/cells/conformance/conformance-suite.js';
import { prepareShared } from '../../src/orchestrator/instruments.js';
import { fail, ok, type Result } from '../../src/util/result.js';

/** A suite provider that counts its calls and settles when told. */
function provider() {
  let settle!: (r: Result<ConformanceSuite>) => void;
  const pending = new Promise<Result<ConformanceSuite>>((resolve) => (settle = resolve));
  let calls = 0;
  const tools: Pick<CellContext, 'conformanceSuite'> = {
    conformanceSuite: () => {
      calls++;
      return pending;
    },
  };
  return { tools, settle, calls: () => calls };
}

describe('prepareShared: the instruments every cell waits for, started before the first cell', () => {
  it('asks for the conformance suite at once when the phase is on, and settles when the suite is ready', async () => {
    const p = provider();
    let settled = false;
    const ready = prepareShared({ conformance: { timeoutMs: 1 } }, p.tools).then(() => (settled = true));
    // Asked before any cell runs (the first cell's driver no longer waits for the suite's check and catalogue).
    expect(p.calls()).toBe(1);
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    p.settle(ok({} as ConformanceSuite));
    await ready;
    expect(settled).toBe(true);
  });

  it('a suite that could not be made is the cells’ to report: preparing it never rejects', async () => {
    const p = provider();
    const ready = prepareShared({ conformance: { timeoutMs: 1 } }, p.tools);
    p.settle(fail('infrastructure', 'no registry'));
    await expect(ready).resolves.toBeUndefined();
    const rejecting: Pick<CellContext, 'conformanceSuite'> = { conformanceSuite: () => Promise.reject(new Error('boom')) };
    await expect(prepareShared({ conformance: { timeoutMs: 1 } }, rejecting)).resolves.toBeUndefined();
  });

  it('asks for nothing when the conformance phase is off, or the run has no suite provider', async () => {
    const p = provider();
    await prepareShared({ conformance: false }, p.tools);
    expect(p.calls()).toBe(0);
    await expect(prepareShared({ conformance: { timeoutMs: 1 } }, {})).resolves.toBeUndefined();
  });
});
