import { describe, expect, it } from 'vitest';
import { shareKey, sharedResult, sharedSkip, sharedWith, toShare, type PhaseShare } from '../../src/judge/phase-share.js';
import type { PlannedVariant } from '../../src/plan/plan.js';
import type { PhaseResult, Verdict } from '../../src/results/types.js';
import { malformed } from '../helpers/malformed.js';

describe('bind and conformance shared by the variants of a cell on one Node release (neither uses the client)', () => {
  const phases = (bind: Verdict, leaks: Verdict, conformance: Verdict = bind): PhaseResult[] => [
    { phase: 'stdio', verdict: 'passed', durationMs: 300 },
    { phase: 'bind', verdict: bind, durationMs: 180, message: `bind ${bind}`, details: { outcome: 'refused' } },
    { phase: 'conformance', verdict: conformance, durationMs: 2400, message: `conformance ${conformance}` },
    { phase: 'leaks', verdict: leaks, durationMs: 20 },
  ];

  it('a measured result (passed or failed) whose servers leaks judged clean, or with leaks off, is shared', () => {
    for (const leaks of ['passed', 'skipped'] as const)
      for (const verdict of ['passed', 'failed'] as const) {
        expect(toShare('bind', phases(verdict, leaks))).toMatchObject({ phase: 'bind', verdict, message: `bind ${verdict}` });
        expect(toShare('conformance', phases(verdict, leaks))).toMatchObject({
          phase: 'conformance',
          verdict,
          message: `conformance ${verdict}`,
        });
      }
  });

  it('an unmeasured or skipped result is not shared: the next variant measures its own', () => {
    for (const verdict of ['not-measured', 'skipped'] as const) {
      expect(toShare('bind', phases(verdict, 'passed', 'passed'))).toBeUndefined();
      expect(toShare('conformance', phases('passed', 'passed', verdict))).toBeUndefined();
    }
  });

  it("a result whose variant's leaks failed or went unmeasured is not shared (its server may be the leak)", () => {
    for (const leaks of ['failed', 'not-measured'] as const) {
      expect(toShare('bind', phases('passed', leaks))).toBeUndefined();
      expect(toShare('conformance', phases('passed', leaks))).toBeUndefined();
    }
    expect(
      toShare(
        'bind',
        phases('passed', 'passed').filter((p) => p.phase !== 'leaks'),
      ),
    ).toBeUndefined();
    expect(
      toShare(
        'conformance',
        phases('passed', 'passed').filter((p) => p.phase !== 'conformance'),
      ),
    ).toBeUndefined();
  });

  it('the sharing variant reports the same verdict, message and details, with who measured it and how long it took', () => {
    const measured = phases('failed', 'passed')[1]!;
    expect(sharedResult({ variant: 'latest-1~client-latest-1~node-20', result: measured })).toEqual({
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
    const checks = [{ id: 'ping', outcome: 'passed', level: 'require', judge: 'suite@1' }] as PhaseResult['checks'];
    const conformance: PhaseResult = {
      phase: 'conformance',
      verdict: 'passed',
      durationMs: 2400,
      message: '1/1',
      checks,
      details: { url: 'u' },
    };
    expect(sharedResult({ variant: 'latest-1~client-1', result: conformance })).toEqual({
      ...conformance,
      durationMs: 0,
      details: {
        url: 'u',
        measuredBy: 'latest-1~client-1',
        measuredMs: 2400,
        shared: 'conformance does not use the client: measured once per cell and Node release',
      },
    });
  });
});

describe('the key of a shared result, what a variant takes over, and a kept spec run again by hand', () => {
  const node20 = { spec: '20', version: '20.19.5' } as PlannedVariant['node'];

  it('a variant is keyed by the phase and the Node release it runs on, the host’s when it has none', () => {
    expect(shareKey('bind', { node: node20 })).toBe('bind on 20.19.5');
    expect(shareKey('conformance', { node: node20 })).toBe('conformance on 20.19.5');
    expect(shareKey('bind', {})).toBe('bind on host');
  });

  it('a variant takes over what an earlier one measured on its Node release, and nothing from another release', () => {
    const share: PhaseShare = new Map([
      [shareKey('conformance', { node: node20 }), { variant: 'a', result: { phase: 'conformance', verdict: 'passed', durationMs: 9 } }],
      [shareKey('bind', {}), { variant: 'b', result: { phase: 'bind', verdict: 'failed', durationMs: 4 } }],
    ]);
    const on20 = sharedWith(share, { node: node20 });
    expect(Object.keys(on20)).toEqual(['conformance']);
    expect(on20.conformance).toMatchObject({ verdict: 'passed', durationMs: 0, details: { measuredBy: 'a', measuredMs: 9 } });
    expect(Object.keys(sharedWith(share, {}))).toEqual(['bind']);
    expect(sharedWith(undefined, {})).toEqual({});
  });

  it('a result another variant measured says who measured it; one the variant ran itself, or none, runs', () => {
    const shared = sharedResult({ variant: 'latest-1~client-1.0.0', result: { phase: 'bind', verdict: 'passed', durationMs: 5 } });
    expect(sharedSkip(shared)).toBe('measured by latest-1~client-1.0.0: bind is run once per cell and Node release');
    const conformance = sharedResult({ variant: 'x', result: { phase: 'conformance', verdict: 'failed', durationMs: 5 } });
    expect(sharedSkip(conformance)).toBe('measured by x: conformance is run once per cell and Node release');
    expect(sharedSkip({ phase: 'bind', verdict: 'passed', durationMs: 5 })).toBeUndefined();
    expect(sharedSkip({ phase: 'bind', verdict: 'passed', durationMs: 5, details: { measuredBy: malformed(7) } })).toBeUndefined();
    expect(sharedSkip(undefined)).toBeUndefined();
  });
});
