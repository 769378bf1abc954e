// A Node spec's form, its release among the published ones, and its variant id (src/plan/node-spec.ts).
import { describe, expect, test } from 'vitest';
import { nodeSpecProblem, nodeVariantId, pickNodeRelease } from '../../src/plan/node-spec.js';

const releases = (...vs: string[]) => Object.fromEntries(vs.map((v) => [v, {}]));
const LINUX = releases('18.20.8', '20.0.0', '20.19.0', '20.20.2', '21.7.3', '22.0.0', '22.11.0', '22.23.5', '24.1.0', '25.0.0-rc.1');

describe('pickNodeRelease', () => {
  test('a major is its newest stable release', () => {
    expect(pickNodeRelease(22, Object.keys(LINUX))).toEqual({ ok: true, value: '22.23.5' });
    expect(pickNodeRelease('20', Object.keys(LINUX))).toEqual({ ok: true, value: '20.20.2' });
  });
  test('an exact release is itself when published', () => {
    expect(pickNodeRelease('22.11.0', Object.keys(LINUX))).toEqual({ ok: true, value: '22.11.0' });
  });
  test('a prerelease never stands for a major', () => {
    const r = pickNodeRelease(25, Object.keys(LINUX));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe('node 25 matches no published Node release; published majors: 18, 20, 21, 22, 24');
  });
  test('an exact release that does not exist names the releases of its major', () => {
    const r = pickNodeRelease('22.11.7', Object.keys(LINUX));
    expect(r).toEqual({
      ok: false,
      error: { kind: 'usage', message: 'node 22.11.7 is not a published Node release (22.x: 22.0.0 … 22.23.5)' },
    });
  });
  test.each(['v22', '22.1', 'lts', '22.x', '', '>=20'])('spec %j is rejected by its form', (spec) => {
    expect(nodeSpecProblem(spec)).toBe(`node "${spec}" is neither a major (22) nor an exact release (22.11.0)`);
    expect(pickNodeRelease(spec, Object.keys(LINUX)).ok).toBe(false);
  });
});

describe('nodeVariantId', () => {
  test('the variant id is node-<spec>', () => {
    expect(nodeVariantId(22)).toBe('node-22');
    expect(nodeVariantId('22.11.0')).toBe('node-22.11.0');
  });
});
