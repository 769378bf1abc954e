// defined() and withDetails(): optional fields left out (never a key holding undefined), in the order given.
import { describe, expect, it } from 'vitest';
import { defined, withDetails } from '../../src/contract/fields.js';
import type { PhaseResult } from '../../src/results/types.js';

describe('defined', () => {
  it('keeps every set value, falsy ones too, in order, and leaves an undefined one out', () => {
    const out = defined({ a: 1, b: undefined, c: '', d: 0, e: null, f: false });
    expect(out).toStrictEqual({ a: 1, c: '', d: 0, e: null, f: false });
    expect(Object.keys(out)).toEqual(['a', 'c', 'd', 'e', 'f']);
    expect('b' in out).toBe(false);
  });
});

describe('withDetails', () => {
  it('adds to the details in place of the key, keeping the others and the result as it was', () => {
    const r: PhaseResult = { phase: 'bind', verdict: 'passed', durationMs: 3, details: { port: 1, outcome: 'refused' }, message: 'm' };
    const out = withDetails(r, { measuredBy: 'v1' });
    expect(JSON.stringify(out)).toBe(
      '{"phase":"bind","verdict":"passed","durationMs":3,"details":{"port":1,"outcome":"refused","measuredBy":"v1"},"message":"m"}',
    );
    expect(r.details).toStrictEqual({ port: 1, outcome: 'refused' });
  });

  it('gives a result without details some', () => {
    expect(withDetails({ phase: 'stdio', verdict: 'failed', durationMs: 1 }, { serverRequests: [] })).toStrictEqual({
      phase: 'stdio',
      verdict: 'failed',
      durationMs: 1,
      details: { serverRequests: [] },
    });
  });
});
