import { describe, expect, it } from 'vitest';
import { cleanBeside, mergeBeside, sideGroups, toConfirm, type DriverRun, type SidePhase } from '../../src/judge/side-by-side.js';
import type { PhaseName, PhaseResult, SubCheckResult, Verdict } from '../../src/results/types.js';

const check = (id: string, outcome: SubCheckResult['outcome'], level: SubCheckResult['level'] = 'require'): SubCheckResult => ({
  id,
  outcome,
  level,
  message: `${id} ${outcome}`,
});
const result = (phase: PhaseName, verdict: Verdict, extra: Partial<PhaseResult> = {}): PhaseResult =>
  ({ phase, verdict, durationMs: 100, ...extra }) as PhaseResult;
const leaks = (verdict: Verdict, servers: string[]): PhaseResult =>
  result('leaks', verdict, {
    durationMs: 10 * servers.length,
    checks: [check('shutdown', verdict === 'passed' ? 'passed' : 'failed'), check('temp-files', 'passed', 'warn')],
    details: { servers, escaped: [], driverHandles: [], graceMs: 10_000, tempFiles: [] },
    ...(verdict === 'passed' ? {} : { message: `leaked by ${servers.join(', ')}`, step: `${servers[0]} shutdown` }),
  });
/** One driver run of `phases`: each reported with `verdicts` (passed by default), every other phase skipped, and its leaks. */
function run(phases: SidePhase[], verdicts: Partial<Record<PhaseName, Verdict>> = {}, tools?: number): DriverRun {
  const all: SidePhase[] = ['stdio', 'http', 'bind', 'conformance'];
  return {
    phases,
    results: [
      ...all.map((p) =>
        phases.includes(p) ? result(p, verdicts[p] ?? 'passed', { message: `${p} in ${phases.join('+')}` }) : result(p, 'skipped'),
      ),
      leaks(verdicts.leaks ?? 'passed', phases),
    ],
    summary: {
      leakedHandles: verdicts.leaks === 'failed' ? [{ owner: `server:${phases[0]}`, type: 'process' }] : [],
      ...(tools ? { tools } : {}),
    },
  };
}

describe('the groups of phases run side by side', () => {
  it('stdio, http, and bind with conformance: only the phases measured, and no grouping for a single group', () => {
    expect(sideGroups(['stdio', 'http', 'bind', 'conformance'])).toEqual([['stdio'], ['http'], ['bind', 'conformance']]);
    expect(sideGroups(['stdio', 'conformance'])).toEqual([['stdio'], ['conformance']]);
    // bind alone is too short for a driver of its own: without conformance it follows http.
    expect(sideGroups(['stdio', 'http', 'bind'])).toEqual([['stdio'], ['http', 'bind']]);
    expect(sideGroups(['stdio', 'bind'])).toEqual([['stdio'], ['bind']]);
    expect(sideGroups(['bind', 'conformance'])).toEqual([]);
    expect(sideGroups(['stdio'])).toEqual([]);
  });
});

describe('what stands beside the others, and what is confirmed alone', () => {
  it('only a passed or skipped result with no check failed, not measured or contested at any level is clean', () => {
    expect(cleanBeside(result('stdio', 'passed', { checks: [check('session', 'passed'), check('x', 'skipped')] }))).toBe(true);
    expect(cleanBeside(result('bind', 'skipped'))).toBe(true);
    expect(cleanBeside(result('stdio', 'passed', { checks: [check('cancel', 'failed', 'warn')] }))).toBe(false);
    expect(cleanBeside(result('http', 'passed', { checks: [check('origin', 'contested', 'warn')] }))).toBe(false);
    for (const verdict of ['failed', 'not-measured'] as const) expect(cleanBeside(result('http', verdict))).toBe(false);
    expect(cleanBeside(undefined)).toBe(false);
  });

  it('every clean group: nothing to confirm', () => {
    expect(toConfirm([run(['stdio']), run(['http']), run(['bind', 'conformance'])])).toEqual([]);
  });

  it('a phase that did not pass, or that its driver never reported (a crash), is confirmed; its group-mates are not', () => {
    const crashed: DriverRun = { phases: ['http'], results: [result('stdio', 'skipped')] };
    expect(toConfirm([run(['stdio']), crashed, run(['bind', 'conformance'], { conformance: 'failed' })])).toEqual(['http', 'conformance']);
  });

  it('a group whose own leaks did not pass has every phase confirmed: the leak is one of theirs', () => {
    expect(toConfirm([run(['stdio']), run(['http']), run(['bind', 'conformance'], { leaks: 'failed' })])).toEqual(['bind', 'conformance']);
  });
});

describe('the runs merged into one row', () => {
  it('each phase from its group, leaks over every server, the summary from stdio first', () => {
    const { results, summary } = mergeBeside([run(['stdio'], {}, 7), run(['http'], {}, 9), run(['bind', 'conformance'])]);
    expect(results.map((r) => [r.phase, r.verdict, r.message])).toEqual([
      ['stdio', 'passed', 'stdio in stdio'],
      ['http', 'passed', 'http in http'],
      ['bind', 'passed', 'bind in bind+conformance'],
      ['conformance', 'passed', 'conformance in bind+conformance'],
      ['leaks', 'passed', undefined],
    ]);
    const merged = results.find((r) => r.phase === 'leaks')!;
    expect(merged.details).toMatchObject({ servers: ['stdio', 'http', 'bind', 'conformance'], graceMs: 10_000 });
    expect(merged.durationMs).toBe(20);
    expect(merged.checks?.map((c) => c.outcome)).toEqual(['passed', 'passed']);
    expect(summary).toEqual({ leakedHandles: [], tools: 7 });
  });

  it("a confirmed phase is the lone run's, saying so with what it was beside; leaks is the lone run's verdict", () => {
    const groups = [run(['stdio']), run(['http'], { http: 'failed' }), run(['bind', 'conformance'])];
    const lone = run(['http'], { leaks: 'failed' });
    const { results, summary } = mergeBeside(groups, lone);
    const http = results.find((r) => r.phase === 'http')!;
    expect(http).toMatchObject({ verdict: 'passed', message: 'http in http' });
    expect(http.details?.confirmedAlone).toEqual({
      why: expect.stringContaining('run again alone'),
      beside: { verdict: 'failed', message: 'http in http' },
    });
    expect(results.find((r) => r.phase === 'stdio')?.details).toBeUndefined();
    expect(results.find((r) => r.phase === 'leaks')).toMatchObject({ verdict: 'failed', message: 'leaked by http', step: 'http shutdown' });
    // Every clean group's servers and the lone run's: the side run of a group that leaked is the lone run's to judge.
    expect(results.find((r) => r.phase === 'leaks')?.details).toMatchObject({ servers: ['stdio', 'http', 'bind', 'conformance', 'http'] });
    expect(summary.leakedHandles).toEqual([{ owner: 'server:http', type: 'process' }]);
  });

  it('a group whose leaks failed side by side speaks through the lone run only', () => {
    const groups = [run(['stdio'], { leaks: 'failed' }), run(['http'])];
    const { results, summary } = mergeBeside(groups, run(['stdio']));
    expect(results.find((r) => r.phase === 'leaks')).toMatchObject({ verdict: 'passed', details: { servers: ['http', 'stdio'] } });
    expect(summary.leakedHandles).toEqual([]);
  });

  it('servers no leaks phase judged leave leaks unreported (not measured, as in turn after a crash), never passed', () => {
    // The lone run (confirming a group that leaked beside) stopped before its leaks phase: the clean group cannot speak for it.
    const stopped: DriverRun = { phases: ['stdio'], results: [result('stdio', 'failed')] };
    const leaked = [run(['stdio'], { leaks: 'failed' }), run(['http'])];
    expect(mergeBeside(leaked, stopped).results.map((r) => r.phase)).toEqual(['stdio', 'http', 'bind', 'conformance']);
    // The same when only a phase was confirmed: the lone run's servers went unjudged.
    const failedBeside = [run(['stdio'], { stdio: 'failed' }), run(['http'])];
    expect(mergeBeside(failedBeside, stopped).results.find((r) => r.phase === 'leaks')).toBeUndefined();
    // Interrupted before any lone run: a group that leaked beside is not hidden behind a clean one.
    expect(mergeBeside(leaked).results.find((r) => r.phase === 'leaks')).toBeUndefined();
  });

  it('a phase no group measured (stood in for, skipped) is reported as the groups report it', () => {
    const standIn = result('conformance', 'not-measured', { message: 'the suite could not be installed' });
    const with_ = (r: DriverRun): DriverRun => ({ ...r, results: r.results.map((x) => (x.phase === 'conformance' ? standIn : x)) });
    const { results } = mergeBeside([with_(run(['stdio'])), with_(run(['http']))]);
    expect(results.find((r) => r.phase === 'conformance')).toEqual(standIn);
    expect(results.find((r) => r.phase === 'bind')).toMatchObject({ verdict: 'skipped' });
  });

  it("total: no group gives the lone run's phases alone (never beside, so not confirmed) and its leaks; no run, no phase", () => {
    const { results, summary } = mergeBeside([], run(['stdio']));
    expect(results.map((r) => [r.phase, r.details?.confirmedAlone])).toEqual([
      ['stdio', undefined],
      ['leaks', undefined],
    ]);
    expect(summary).toEqual({ leakedHandles: [] });
    expect(mergeBeside([])).toEqual({ results: [], summary: { leakedHandles: null } });
  });

  it('a group that ran a phase and reported nothing for it (its driver crashed): confirmed, beside not reported', () => {
    const crashed: DriverRun = { phases: ['http'], results: [] };
    const { results } = mergeBeside([run(['stdio']), crashed], run(['http']));
    expect(results.map((r) => [r.phase, r.details?.confirmedAlone])).toEqual([
      ['stdio', undefined],
      ['http', { why: expect.any(String), beside: { verdict: 'not reported' } }],
      ['bind', undefined],
      ['conformance', undefined],
      ['leaks', undefined],
    ]);
  });
});
