import { describe, expect, it } from 'vitest';
import { bindKey, bindToShare, sharedBind, sharedBindSkip } from '../../src/judge/bind-share.js';
import type { PlannedVariant } from '../../src/plan/plan.js';
import type { PhaseResult, Verdict } from '../../src/results/types.js';

describe('bind shared by the variants of a cell on one Node release (bind never uses the client)', () => {
  const phases = (bind: Verdict, leaks: Verdict): PhaseResult[] => [
    { phase: 'stdio', verdict: 'passed', durationMs: 300 },
    { phase: 'bind', verdict: bind, durationMs: 180, message: `bind ${bind}`, details: { outcome: 'refused' } },
    { phase: 'leaks', verdict: leaks, durationMs: 20 },
  ];

  it('a measured bind (passed or failed) whose servers leaks judged clean, or with leaks off, is shared', () => {
    for (const leaks of ['passed', 'skipped'] as const) {
      expect(bindToShare(phases('passed', leaks))).toMatchObject({ phase: 'bind', verdict: 'passed', message: 'bind passed' });
      expect(bindToShare(phases('failed', leaks))).toMatchObject({ phase: 'bind', verdict: 'failed', message: 'bind failed' });
    }
  });

  it('an unmeasured or skipped bind is not shared: the next variant measures its own', () => {
    for (const bind of ['not-measured', 'skipped'] as const) expect(bindToShare(phases(bind, 'passed'))).toBeUndefined();
  });

  it("a bind whose variant's leaks failed or went unmeasured is not shared (the bind server may be the leak)", () => {
    for (const leaks of ['failed', 'not-measured'] as const) expect(bindToShare(phases('passed', leaks))).toBeUndefined();
    expect(bindToShare(phases('passed', 'passed').filter((p) => p.phase !== 'leaks'))).toBeUndefined();
    expect(bindToShare(phases('passed', 'passed').filter((p) => p.phase !== 'bind'))).toBeUndefined();
  });

  it('the sharing variant reports the same verdict, message and details, with who measured it and how long it took', () => {
    const measured = phases('failed', 'passed')[1]!;
    expect(sharedBind({ variant: 'latest-1~client-latest-1~node-20', result: measured })).toEqual({
      phase: 'bind',
      verdict: 'failed',
      message: 'bind failed',
      durationMs: 0,
      details: {
        outcome: 'refused',
        measuredBy: 'latest-1~client-latest-1~node-20',
        measuredMs: 180,
        shared: 'bind does not use the client: measured once per cell and Node release',
      },
    });
  });
});

describe('the key of a shared bind, and a kept spec run again by hand', () => {
  it('a variant is keyed by the Node release it runs on, the host’s when it has none', () => {
    expect(bindKey({ id: 'latest-1~node-20', node: { spec: '20', version: '20.19.5' } as PlannedVariant['node'] })).toBe('20.19.5');
    expect(bindKey({ id: 'latest-1' })).toBe('host');
  });

  it('a bind another variant measured says who measured it; one the variant ran itself, or none, runs', () => {
    const shared = sharedBind({ variant: 'latest-1~client-1.0.0', result: { phase: 'bind', verdict: 'passed', durationMs: 5 } });
    expect(sharedBindSkip(shared)).toBe('measured by latest-1~client-1.0.0: bind is run once per cell and Node release');
    expect(sharedBindSkip({ phase: 'bind', verdict: 'passed', durationMs: 5 })).toBeUndefined();
    expect(sharedBindSkip({ phase: 'bind', verdict: 'passed', durationMs: 5, details: { measuredBy: 7 } })).toBeUndefined();
    expect(sharedBindSkip(undefined)).toBeUndefined();
  });
});
