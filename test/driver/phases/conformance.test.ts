// The conformance phase's verdict rules: the suite's checks.json → a scenario → a sub-check → the phase.
import { describe, expect, it } from 'vitest';
import { judgeScenario, outOfScope, scenarioCheck, summarize } from '../../../src/driver/phases/conformance.js';

describe('conformance verdicts from the suite checks', () => {
  it('a FAILURE check fails the scenario with its id and message; WARNING passes, named; INFO alone is not measured', () => {
    const failed = judgeScenario(
      'ping',
      [
        { id: 'ping', status: 'FAILURE', errorMessage: 'bad answer' },
        { id: 'x', status: 'SUCCESS' },
      ],
      5,
    );
    expect([failed.verdict, failed.message]).toEqual(['failed', 'ping: bad answer']);
    const warned = judgeScenario('s', [{ id: 'w', status: 'WARNING', errorMessage: 'no session' }], 5);
    expect([warned.verdict, warned.message]).toEqual(['passed', 'warning: w: no session']);
    expect(judgeScenario('s', [{ id: 'i', status: 'INFO' }], 5).verdict).toBe('not-measured');
  });

  it('the phase fails on any failed scenario (named), is not measured when one could not run, passes otherwise', () => {
    const ok = judgeScenario('ping', [{ id: 'ping', status: 'SUCCESS' }], 1);
    const bad = judgeScenario('dns', [{ id: 'r', status: 'FAILURE', errorMessage: 'got 200' }], 1);
    const lost = {
      name: 'tools-list',
      verdict: 'not-measured' as const,
      message: 'timed out',
      checks: [],
      durationMs: 1,
      level: 'require' as const,
      specUrls: [],
    };
    expect(summarize([ok, bad, lost])).toEqual({
      verdict: 'failed',
      step: 'dns',
      message: '1 of 3 scenario(s) failed: dns (r: got 200); not measured: tools-list (timed out)',
    });
    expect(summarize([ok, lost])).toMatchObject({ verdict: 'not-measured', step: 'tools-list' });
    expect(summarize([ok])).toEqual({ verdict: 'passed', message: '1/1 scenarios passed: ping' });
    expect(summarize([]).verdict).toBe('not-measured');
    // Out of the scenario's scope (behind a token): its failure is a warning, never the verdict.
    const shown = outOfScope(bad);
    expect([shown.verdict, shown.level]).toEqual(['failed', 'warn']);
    expect(shown.message).toMatch(/^r: got 200 \(level warn: .*requires a bearer token\)$/);
    expect(summarize([ok, shown])).toEqual({
      verdict: 'passed',
      message: `1/2 scenarios passed: ping, dns; warn: dns (${shown.message})`,
    });
  });

  it('a scenario is a sub-check judged by the suite, sameAs our check of the spec section it cites', () => {
    const dns = judgeScenario(
      'dns-rebinding-protection',
      [
        {
          id: 'rebinding',
          status: 'FAILURE',
          errorMessage: 'got 200',
          specReferences: [{ url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning' }],
        },
      ],
      3,
    );
    const check = scenarioCheck(dns, '@modelcontextprotocol/conformance@0.1.16');
    expect(check).toMatchObject({
      id: 'dns-rebinding-protection',
      outcome: 'failed',
      level: 'require',
      judge: '@modelcontextprotocol/conformance@0.1.16',
      sameAs: 'origin',
      step: 'dns-rebinding-protection',
    });
    expect(check.evidence!.sameAs).toEqual(['origin', 'host']);
    expect(scenarioCheck(judgeScenario('ping', [{ id: 'ping', status: 'SUCCESS' }], 1), 'x').sameAs).toBeUndefined();
  });
});
