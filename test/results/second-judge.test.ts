// Two judges of one requirement: the suite's check and ours, compared per variant.
import { describe, expect, it } from 'vitest';
import { compareJudges } from '../../src/results/second-judge.js';
import type { PhaseResult } from '../../src/results/types.js';

describe('two judges of one requirement', () => {
  const http = (outcome: 'passed' | 'failed'): PhaseResult => ({
    phase: 'http',
    verdict: 'passed',
    durationMs: 1,
    checks: [{ id: 'origin', outcome, level: 'warn', message: `origin ${outcome}` }],
  });
  const conformance: PhaseResult = {
    phase: 'conformance',
    verdict: 'failed',
    durationMs: 1,
    message: '1 of 1 scenario(s) failed',
    checks: [{ id: 'dns-rebinding-protection', outcome: 'failed', level: 'require', message: 'got 200', judge: 'suite', sameAs: 'origin' }],
  };

  it('where they differ, the check and the phase say so; verdicts stay their own', () => {
    const [, c] = compareJudges([http('passed'), conformance]);
    expect(c!.verdict).toBe('failed');
    expect(c!.checks![0]!.message).toBe("got 200; the judges differ: mcp-matrix's own http › origin passed");
    expect(c!.message).toBe(
      '1 of 1 scenario(s) failed; judged differently: conformance › dns-rebinding-protection failed, http › origin passed',
    );
    expect(c!.details!.disagreements).toEqual([
      { theirs: 'conformance › dns-rebinding-protection', theirOutcome: 'failed', ours: 'http › origin', ourOutcome: 'passed' },
    ]);
  });

  it('where they agree, nothing changes', () => {
    const phases = [http('failed'), conformance];
    expect(compareJudges(phases)).toEqual(phases);
  });
});
