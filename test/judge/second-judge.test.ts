// Two judges of one requirement: the suite's check and ours, compared per variant.
import { describe, expect, it } from 'vitest';
import { compareJudges } from '../../src/judge/second-judge.js';
import type { PhaseResult } from '../../src/results/types.js';
import { malformed } from '../helpers/malformed.js';

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

describe('two judges: what is compared', () => {
  const phase = (name: PhaseResult['phase'], checks: PhaseResult['checks'], extra: Partial<PhaseResult> = {}): PhaseResult =>
    ({
      phase: name,
      verdict: 'passed',
      durationMs: 1,
      checks,
      ...extra,
    }) as PhaseResult;
  const ours = (id: string, outcome: 'passed' | 'failed' | 'skipped' | 'not-measured') => ({
    id,
    outcome,
    level: 'warn' as const,
    message: `${id} ${outcome}`,
  });
  const theirs = (id: string, outcome: 'passed' | 'failed' | 'skipped' | 'not-measured', sameAs?: string) => ({
    id,
    outcome,
    level: 'require' as const,
    message: `${id} ${outcome}`,
    judge: 'suite',
    ...(sameAs ? { sameAs } : {}),
  });

  it('only a judged outcome on both sides is compared; a suite check without sameAs, or naming another suite check, stands alone', () => {
    for (const [a, b] of [
      ['skipped', 'failed'],
      ['passed', 'not-measured'],
      ['not-measured', 'passed'],
      ['failed', 'skipped'],
    ] as const) {
      const phases = [phase('http', [ours('origin', a)]), phase('conformance', [theirs('dns', b, 'origin')])];
      expect(compareJudges(phases)).toEqual(phases);
    }
    const loose = [phase('http', [ours('origin', 'passed')]), phase('conformance', [theirs('dns', 'failed')])];
    expect(compareJudges(loose)).toEqual(loose);
    const suiteOnly = [phase('conformance', [theirs('a', 'passed'), theirs('b', 'failed', 'a')])];
    expect(compareJudges(suiteOnly)).toEqual(suiteOnly);
    expect(compareJudges([phase('stdio', undefined)])).toEqual([phase('stdio', undefined)]);
  });

  it('every disagreement of a phase is named, in order; a phase without a message gets the note alone; its details are kept', () => {
    const [, c] = compareJudges([
      phase('http', [ours('origin', 'passed'), ours('host', 'failed'), ours('auth', 'passed')]),
      phase('conformance', [theirs('dns', 'failed', 'origin'), theirs('host-check', 'passed', 'host'), theirs('auth', 'passed', 'auth')], {
        details: { suite: malformed('0.1.0') },
      }),
    ]);
    expect(c!.message).toBe(
      'judged differently: conformance › dns failed, http › origin passed; conformance › host-check passed, http › host failed',
    );
    expect(c!.details).toEqual({
      suite: '0.1.0',
      disagreements: [
        { theirs: 'conformance › dns', theirOutcome: 'failed', ours: 'http › origin', ourOutcome: 'passed' },
        { theirs: 'conformance › host-check', theirOutcome: 'passed', ours: 'http › host', ourOutcome: 'failed' },
      ],
    });
    expect(c!.checks!.map((k) => k.message)).toEqual([
      "dns failed; the judges differ: mcp-matrix's own http › origin passed",
      "host-check passed; the judges differ: mcp-matrix's own http › host failed",
      'auth passed',
    ]);
  });

  it('only a second judge’s check is compared: one of our own naming another of ours stands as it is', () => {
    const own = [phase('http', [ours('origin', 'passed'), { ...ours('host', 'failed'), sameAs: 'origin' }])];
    expect(compareJudges(own)).toEqual(own);
  });
});
