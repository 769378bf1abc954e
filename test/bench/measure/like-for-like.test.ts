// The yardsticks' like-for-like reading (bench/measure/like-for-like.ts, bench/render/yardsticks-report.ts): the config it runs
// is a valid config with exactly the checks the naive loop does not make turned off, and the targets are judged
// on that reading with the all-checks figure printed beside it, never instead of it.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../bench/measure/harness.js';
import { likeForLike, likeForLikeOff } from '../../../bench/measure/like-for-like.js';
import type { Rep } from '../../../bench/sections/rep.js';
import { renderYardsticks, summarizeYardsticks } from '../../../bench/render/yardsticks-report.js';
import type { Reading } from '../../../bench/sections/yardsticks.js';
import { checkIds } from '../../../src/contract/checks.js';
import { validateConfig } from '../../../src/config/schema.js';
import project from '../../../matrix.config.js';

describe('likeForLike', () => {
  const catalogue = { stdio: checkIds('stdio'), http: checkIds('http') };
  const shaped = likeForLike(catalogue)(project);

  it('turns off conformance and every sub-check but the session, the bearer 401s and the round trip', () => {
    expect(shaped.conformance).toBe(false);
    const stdio = shaped.stdio && shaped.stdio.checks;
    const http = shaped.http && shaped.http.checks;
    expect(stdio).toEqual({
      'unknown-method': 'off',
      'unknown-tool': 'off',
      'invalid-arguments': 'off',
      'repeated-initialize': 'off',
      cancellation: 'off',
    });
    expect(Object.keys(http ?? {})).toContain('origin');
    expect(Object.keys(http ?? {})).toContain('oauth-discovery');
    for (const kept of ['no-token-401', 'www-authenticate', 'wrong-token-401', 'round-trip']) expect(http).not.toHaveProperty(kept);
    expect(Object.values(http ?? {}).every((l) => l === 'off')).toBe(true);
  });

  it('is a config the harness accepts, and leaves everything else as the project has it', () => {
    const checked = validateConfig(shaped);
    expect(checked.ok, checked.ok ? '' : checked.problems.join('\n')).toBe(true);
    expect(shaped.cells).toEqual(project.cells);
    expect(shaped.stdio && shaped.stdio.steps).toEqual(project.stdio && project.stdio.steps);
    expect(project.conformance).toBeUndefined();
  });
});

const run = (label: string, wallMs: number, cpuMs: number): Run =>
  ({ label, wallMs, cpuMs, verdict: 'passed', cells: ['a', 'b', 'c', 'd'].map((cell) => ({ cell, phases: {} })) }) as unknown as Run;
const reading = (tag: string, cold: number, warm: number, edit: number, ref: number): Reading => ({
  cold: run(`${tag}-cold`, cold, cold),
  warm: run(`${tag}-warm`, warm, warm),
  edit: { cell: 'latest-1', warm: run(`${tag}-edit`, edit, edit), reference: run(`${tag}-ref`, ref, ref), referenceBy: '--fresh' },
});

describe('the yardstick targets', () => {
  const catalogue = { stdio: checkIds('stdio'), http: checkIds('http') };
  const naive = { wallMs: 20_000, cpuMs: 20_000, pins: [], verdicts: { a: 'PASS' }, code: 0 };

  it('are judged on the loop-checks reading, with the all-checks figure beside', () => {
    const reps = [
      {
        rep: 1,
        yardsticks: {
          naive,
          ...reading('all', 40_000, 30_000, 12_000, 13_000),
          like: { ...reading('lfl', 12_000, 6_000, 3_500, 9_000), off: likeForLikeOff(catalogue) },
        },
      },
    ] as Rep[];
    const y = summarizeYardsticks(reps)!;
    const [cold, warm, edit, passed] = y.targets;
    expect(cold).toMatchObject({ value: 0.6, pass: true, shown: '0.60x (all checks: 2.00x)' });
    expect(warm).toMatchObject({ value: 0.3, pass: true, shown: '0.30x (all checks: 1.50x)' });
    expect(edit).toMatchObject({ value: 3500, pass: true });
    expect(edit!.shown).toContain('all checks: 12.0 s');
    expect(passed!.pass).toBe(true);
    const text = renderYardsticks(y);
    expect(text).toContain("the loop's checks only, warm re-run");
    expect(text).toContain('all checks, warm re-run');
    expect(text).toContain('cancellation');
  });

  it('miss when the loop-checks reading misses, and fall back to all checks for results without it', () => {
    const miss = [
      {
        rep: 1,
        yardsticks: {
          naive,
          ...reading('all', 10_000, 5_000, 3_000, 9_000),
          like: { ...reading('lfl', 14_000, 8_000, 5_000, 9_000), off: '' },
        },
      },
    ] as Rep[];
    expect(
      summarizeYardsticks(miss)!
        .targets.slice(0, 3)
        .map((t) => t.pass),
    ).toEqual([false, false, false]);
    const old = [{ rep: 1, yardsticks: { naive, ...reading('all', 10_000, 5_000, 3_000, 9_000) } }] as Rep[];
    const t = summarizeYardsticks(old)!.targets;
    expect(t.slice(0, 3).map((x) => x.pass)).toEqual([true, true, true]);
    expect(t[0]!.shown).toBe('0.50x');
  });

  it('name a like-for-like run that did not pass', () => {
    const lfl = reading('lfl', 12_000, 6_000, 3_500, 9_000);
    lfl.warm = { ...lfl.warm, verdict: 'failed' };
    const reps = [{ rep: 1, yardsticks: { naive, ...reading('all', 40_000, 30_000, 12_000, 13_000), like: { ...lfl, off: '' } } }] as Rep[];
    expect(summarizeYardsticks(reps)!.targets[3]).toMatchObject({ pass: false, shown: 'not passed: lfl-warm' });
  });
});
