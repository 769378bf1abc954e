import { describe, expect, it } from 'vitest';
import {
  driverStopped,
  harnessError,
  installFailure,
  instrumentMissing,
  nextPhase,
  notRun,
  suiteMissing,
  unmeasured,
} from '../../src/judge/not-measured.js';
import { PHASES, type PhaseName, type PhaseResult } from '../../src/results/types.js';

const pin = { primary: '@modelcontextprotocol/sdk', version: '1.32.2', packageName: 'srv', range: '>=1.23.0 <1.25.0' };
const results = (...phases: PhaseResult[]) => new Map<PhaseName, PhaseResult>(phases.map((p) => [p.phase, p]));

describe('an install that did not complete', () => {
  it("npm's refusal fails environment, naming a pin outside the declared range first", () => {
    const r = installFailure({ kind: 'failed', attempts: 1, durationMs: 900, code: 'ERESOLVE', message: 'x' }, pin);
    expect(r).toEqual({
      phase: 'environment',
      verdict: 'failed',
      durationMs: 900,
      step: 'npm install',
      message:
        'pin @modelcontextprotocol/sdk@1.32.2 is outside the range ">=1.23.0 <1.25.0" that srv declares; npm install failed (ERESOLVE): x',
      details: { attempts: 1, code: 'ERESOLVE' },
    });
    expect(
      installFailure({ kind: 'failed', attempts: 1, durationMs: 1, code: 'E404', message: 'y' }, { ...pin, range: '^1' }).message,
    ).toBe('npm install failed (E404): y');
  });

  it('the registry or the machine: not measured, with the attempts or the cause', () => {
    const flaky = { kind: 'not-measured' as const, attempts: 3, durationMs: 5, code: 'E503', message: 'down' };
    expect(installFailure(flaky, pin)).toMatchObject({
      verdict: 'not-measured',
      message: 'npm install could not complete after 3 attempt(s) (E503): down',
    });
    expect(installFailure({ ...flaky, cause: 'the disk is full' }, pin).message).toBe('the disk is full (npm: down)');
  });

  it("a strict leg's install names pnpm, in its step and its message; a cause that is the message is said once", () => {
    const refused = { kind: 'failed' as const, attempts: 1, durationMs: 1, code: 'ERR_PNPM_NO_MATCHING_VERSION', message: 'x' };
    expect(installFailure(refused, { ...pin, range: '^1' }, 'pnpm')).toMatchObject({
      step: 'pnpm install',
      message: 'pnpm install failed (ERR_PNPM_NO_MATCHING_VERSION): x',
    });
    const flaky = { kind: 'not-measured' as const, attempts: 2, durationMs: 5, code: 'ETIMEDOUT', message: 'slow' };
    expect(installFailure(flaky, pin, 'pnpm').message).toBe('pnpm install could not complete after 2 attempt(s) (ETIMEDOUT): slow');
    expect(installFailure({ ...flaky, cause: 'slow' }, pin, 'pnpm').message).toBe('slow');
  });
});

describe("the harness's own stops", () => {
  it('a harness error is not measured in environment, or the phase it names; an interrupt says so', () => {
    expect(harnessError(new Error('boom'), false)).toEqual({
      phase: 'environment',
      verdict: 'not-measured',
      durationMs: 0,
      message: 'harness error: boom',
    });
    expect(harnessError(new Error('boom'), true, 'http')).toMatchObject({ phase: 'http', message: 'interrupted' });
  });

  it('the next phase is the first without a result', () => {
    const passed = (phase: PhaseName): PhaseResult => ({ phase, verdict: 'passed', durationMs: 1 });
    expect(nextPhase(results())).toBe('environment');
    expect(nextPhase(results(passed('environment'), passed('stdio')))).toBe('http');
  });

  it('a phase not run says why: interrupted, the stop, an install that failed, or the harness', () => {
    const installFailed: PhaseResult = { phase: 'environment', verdict: 'failed', durationMs: 1, step: 'npm install' };
    expect(notRun('stdio', results(), true).message).toBe('interrupted before this phase ran');
    expect(notRun('stdio', results(), false, "the variant's client could not be installed").message).toBe(
      "not run: the variant's client could not be installed",
    );
    expect(notRun('stdio', results(installFailed), false)).toEqual({
      phase: 'stdio',
      verdict: 'not-measured',
      durationMs: 0,
      message: 'not run: the cell could not be installed',
    });
    expect(notRun('stdio', results({ ...installFailed, step: 'pnpm install' }), false).message).toBe(
      'not run: the cell could not be installed',
    );
    expect(notRun('stdio', results({ ...installFailed, step: 'yarn install' }), false).message).toBe(
      'not run: the cell could not be installed',
    );
    expect(notRun('stdio', results({ ...installFailed, step: 'verify' }), false).message).toBe(
      'not run: the harness stopped before this phase',
    );
  });
});

describe('what the harness could not measure', () => {
  it("a variant's missing instrument keeps the environment's evidence, not measured with the step", () => {
    const env: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 3, details: { sdk: ['x'] } };
    expect(instrumentMissing(env, { step: 'client install', message: 'gone' })).toEqual({
      ...env,
      verdict: 'not-measured',
      step: 'client install',
      message: 'gone',
    });
  });

  it('a suite that could not be installed: conformance not measured', () => {
    expect(suiteMissing('no cache')).toEqual({
      phase: 'conformance',
      verdict: 'not-measured',
      durationMs: 0,
      step: 'suite install',
      message: 'no cache',
    });
  });

  it('a stopped driver: the phase it was in is not measured, unless it reported it', () => {
    const crash = { results: [] as PhaseResult[], current: 'http' as const, message: 'the driver crashed: x' };
    expect(driverStopped(crash, false)).toEqual({
      phase: 'http',
      verdict: 'not-measured',
      durationMs: 0,
      message: 'the driver crashed: x; the harness could not measure this phase (not a verdict on the server)',
    });
    expect(driverStopped({ results: [], message: 'gone' }, true)).toMatchObject({ phase: 'stdio', message: 'interrupted' });
    expect(driverStopped({ ...crash, results: [{ phase: 'http', verdict: 'failed', durationMs: 1 }] }, false)).toBeUndefined();
  });
});

describe('not measured: edges', () => {
  it("npm's refusal is the server's verdict even when a cause came with it: the refusal is named, not the cause", () => {
    const refused = { kind: 'failed' as const, attempts: 1, durationMs: 1, code: 'ERESOLVE', message: 'x', cause: 'the disk is full' };
    expect(installFailure(refused, { ...pin, range: undefined }).message).toBe('npm install failed (ERESOLVE): x');
  });

  it('with every phase reported, the harness stopped in the last one', () => {
    const all = results(...PHASES.map((phase): PhaseResult => ({ phase, verdict: 'passed', durationMs: 1 })));
    expect(nextPhase(all)).toBe('leaks');
  });

  it('a phase not run without an environment result, or after an install that passed, is the harness stopping', () => {
    expect(notRun('http', results(), false).message).toBe('not run: the harness stopped before this phase');
    const installed: PhaseResult = { phase: 'environment', verdict: 'passed', durationMs: 1, step: 'npm install' };
    expect(notRun('http', results(installed), false).message).toBe('not run: the harness stopped before this phase');
  });

  it('a stopped driver: the results of other phases do not stand for the one it was in', () => {
    const crash = {
      results: [{ phase: 'stdio', verdict: 'passed', durationMs: 1 }] as PhaseResult[],
      current: 'http' as const,
      message: 'killed',
    };
    expect(driverStopped(crash, false)).toMatchObject({ phase: 'http', verdict: 'not-measured' });
  });
});

describe('unmeasured', () => {
  it('its passed and failed sub-checks become not measured, naming what they saw; the others stay', () => {
    const checks = [
      { id: 'a', outcome: 'passed' as const, level: 'require' as const, message: 'ok' },
      { id: 'b', outcome: 'failed' as const, level: 'require' as const, message: 'imports zod' },
      { id: 'c', outcome: 'skipped' as const, level: 'off' as const, message: 'off in the config (not run)' },
    ];
    const phase: PhaseResult = { phase: 'environment', verdict: 'failed', durationMs: 2, message: 'x', checks };
    expect(unmeasured(phase, 'the install changed')).toEqual({
      ...phase,
      verdict: 'not-measured',
      checks: [
        { ...checks[0], outcome: 'not-measured', message: 'the install changed (it saw: ok)' },
        { ...checks[1], outcome: 'not-measured', message: 'the install changed (it saw: imports zod)' },
        checks[2],
      ],
    });
    const bare: PhaseResult = { phase: 'stdio', verdict: 'passed', durationMs: 1 };
    expect(unmeasured(bare, 'why')).toStrictEqual({ phase: 'stdio', verdict: 'not-measured', durationMs: 1 });
  });
});
