import { describe, expect, it } from 'vitest';
import { BESIDE_PROOF_IDS, failedBesideProof } from '../../src/judge/beside-proof.js';
import { cleanBeside, toConfirm, type DriverRun, type SidePhase } from '../../src/judge/side-by-side.js';
import { CHECKS } from '../../src/contract/catalogue.js';
import { checkResult, type CheckFinding } from '../../src/contract/checks.js';
import { judgeHost, judgeOrigin } from '../../src/driver/http/spec-judges.js';
import { NoAnswer, type RawAnswer } from '../../src/driver/http/raw-http.js';
import { judgeScenario, outOfScope, scenarioCheck, type SuiteCheck } from '../../src/driver/phases/conformance-judging.js';
import type { PhaseResult, SubCheckResult } from '../../src/results/types.js';

const answer = (status: number): RawAnswer => ({ status, body: '' });
const timeout = (): NoAnswer => new NoAnswer('no answer within 5000 ms', 'ETIMEDOUT');
const warn = (id: string, finding: CheckFinding): SubCheckResult => checkResult(id, 'warn', finding);
const http = (checks: SubCheckResult[]): PhaseResult => ({ phase: 'http', verdict: 'passed', durationMs: 100, checks }) as PhaseResult;
const served = { status: 200, foreign: '200', loopback: '200' };
const SUITE = '@modelcontextprotocol/conformance@0.1.16';
/** The dns-rebinding scenario as the suite reports it (checks.json) and the harness judges it behind a token (warn). */
const rebinding = (...checks: SuiteCheck[]): SubCheckResult =>
  scenarioCheck(outOfScope(judgeScenario('dns-rebinding-protection', checks, 30)), SUITE);
const rejected = (status: SuiteCheck['status'], errorMessage?: string): SuiteCheck => ({
  id: 'localhost-host-rebinding-rejected',
  status,
  ...(errorMessage ? { errorMessage } : {}),
});
const accepted = (status: SuiteCheck['status'], errorMessage?: string): SuiteCheck => ({
  id: 'localhost-host-valid-accepted',
  status,
  ...(errorMessage ? { errorMessage } : {}),
});
const conformance = (checks: SubCheckResult[]): PhaseResult =>
  ({ phase: 'conformance', verdict: 'passed', durationMs: 100, checks }) as PhaseResult;

describe('a failed warn check stands beside the others only when the server served what it should refuse', () => {
  it('Host: a foreign Host served stands; no answer, or a 5xx, is confirmed alone', () => {
    expect(cleanBeside(http([warn('host', judgeHost(answer(200), 4000))]))).toBe(true);
    expect(cleanBeside(http([warn('host', judgeHost(timeout(), 4000))]))).toBe(false);
    expect(cleanBeside(http([warn('host', judgeHost(answer(503), 4000))]))).toBe(false);
    // The control refused too: not measured, whatever the foreign Host got.
    expect(cleanBeside(http([warn('host', judgeHost(answer(403), 4000, { host: '127.0.0.1:4000', answer: timeout() }))]))).toBe(false);
  });

  it('Origin: a foreign Origin served beside a loopback one served stands; anything resting on a lost answer is confirmed', () => {
    expect(cleanBeside(http([warn('origin', judgeOrigin(answer(200), answer(200), 'http://localhost:4000'))]))).toBe(true);
    // The loopback answer picks the rule the message names: lost, the message is not the one in turn.
    expect(cleanBeside(http([warn('origin', judgeOrigin(answer(200), timeout(), 'http://localhost:4000'))]))).toBe(false);
    expect(cleanBeside(http([warn('origin', judgeOrigin(timeout(), answer(200), 'http://localhost:4000'))]))).toBe(false);
    expect(cleanBeside(http([warn('origin', judgeOrigin(answer(500), answer(200), 'http://localhost:4000'))]))).toBe(false);
    // Refused, but the loopback Origin lost: failed on a lost answer.
    expect(cleanBeside(http([warn('origin', judgeOrigin(answer(403), timeout(), 'http://localhost:4000'))]))).toBe(false);
  });

  it('dns-rebinding-protection (the suite): the foreign Host/Origin served beside the localhost one stands; a failed request does not', () => {
    expect(
      cleanBeside(
        conformance([rebinding(rejected('FAILURE', 'Expected HTTP 4xx for invalid Host/Origin headers, got 200'), accepted('SUCCESS'))]),
      ),
    ).toBe(true);
    const lost = 'Request failed: fetch failed';
    expect(cleanBeside(conformance([rebinding(rejected('FAILURE', lost), accepted('SUCCESS'))]))).toBe(false);
    expect(
      cleanBeside(
        conformance([rebinding(rejected('FAILURE', 'Expected HTTP 4xx for invalid Host/Origin headers, got 503'), accepted('SUCCESS'))]),
      ),
    ).toBe(false);
    expect(
      cleanBeside(
        conformance([
          rebinding(rejected('FAILURE', 'Expected HTTP 4xx for invalid Host/Origin headers, got 200'), accepted('FAILURE', lost)),
        ]),
      ),
    ).toBe(false);
    expect(
      cleanBeside(
        conformance([
          rebinding(rejected('SUCCESS'), accepted('FAILURE', 'Expected HTTP 2xx for valid localhost Host/Origin headers, got 403')),
        ]),
      ),
    ).toBe(false);
    // The same words from another judge, or a check of the harness's own named alike, prove nothing.
    const served = rebinding(rejected('FAILURE', 'Expected HTTP 4xx for invalid Host/Origin headers, got 200'), accepted('SUCCESS'));
    expect(failedBesideProof('conformance', { ...served, judge: 'another-suite@1.0.0' })).toBe(false);
    expect(failedBesideProof('conformance', { ...served, judge: undefined } as SubCheckResult)).toBe(false);
    expect(failedBesideProof('http', served)).toBe(false);
  });

  it('every other check of the catalogue, failed at warn with served evidence, is confirmed alone in every phase', () => {
    // A new entry in BESIDE_PROOF_IDS needs its justification in docs/phases.md ("A variant's phases side by side").
    expect(BESIDE_PROOF_IDS).toEqual({ http: ['host', 'origin'], conformance: ['dns-rebinding-protection'] });
    const phases: SidePhase[] = ['stdio', 'http', 'bind', 'conformance'];
    for (const def of CHECKS)
      for (const phase of phases) {
        const failed: SubCheckResult = { id: def.id, outcome: 'failed', level: 'warn', message: 'failed', evidence: served };
        const stands = phase === 'http' && ['host', 'origin'].includes(def.id);
        expect(failedBesideProof(phase, failed), `${phase} ${def.id}`).toBe(stands);
        const result = { phase, verdict: 'passed', durationMs: 1, checks: [failed] } as PhaseResult;
        expect(cleanBeside(result), `${phase} ${def.id}`).toBe(stands);
      }
  });

  it('only failed at warn by the harness: required, not measured, contested or a second judge’s is confirmed', () => {
    const host = warn('host', judgeHost(answer(200), 4000));
    expect(failedBesideProof('http', host)).toBe(true);
    expect(failedBesideProof('http', { ...host, level: 'require' })).toBe(false);
    for (const outcome of ['not-measured', 'contested'] as const) expect(cleanBeside(http([{ ...host, outcome }]))).toBe(false);
    expect(failedBesideProof('http', { ...host, judge: '@modelcontextprotocol/conformance@0.1.16' })).toBe(false);
    // A phase that failed is confirmed whatever its checks.
    expect(cleanBeside({ ...http([host]), verdict: 'failed' } as PhaseResult)).toBe(false);
  });

  it('toConfirm: http with Host and Origin served and the suite’s rebinding scenario served are not run again; another warn scenario is', () => {
    const checks = [
      warn('host', judgeHost(answer(200), 4000)),
      warn('origin', judgeOrigin(answer(200), answer(200), 'http://localhost:4000')),
    ];
    const leaks = { phase: 'leaks', verdict: 'passed', durationMs: 1 } as PhaseResult;
    const scenario = rebinding(rejected('FAILURE', 'Expected HTTP 4xx for invalid Host/Origin headers, got 200'), accepted('SUCCESS'));
    const other: SubCheckResult = { ...scenario, id: 'server-sse-multiple-streams' };
    const runs: DriverRun[] = [
      { phases: ['stdio'], results: [{ phase: 'stdio', verdict: 'passed', durationMs: 1 } as PhaseResult, leaks] },
      { phases: ['http'], results: [http(checks), leaks] },
      {
        phases: ['bind', 'conformance'],
        results: [
          { phase: 'bind', verdict: 'passed', durationMs: 1 } as PhaseResult,
          { phase: 'conformance', verdict: 'passed', durationMs: 1, checks: [scenario] } as PhaseResult,
          leaks,
        ],
      },
    ];
    expect(toConfirm(runs)).toEqual([]);
    const withOther = runs.map((r) =>
      r.phases.includes('conformance')
        ? { ...r, results: r.results.map((p) => (p.phase === 'conformance' ? { ...p, checks: [scenario, other] } : p)) }
        : r,
    );
    expect(toConfirm(withOther)).toEqual(['conformance']);
  });
});
