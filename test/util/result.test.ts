// Failures as values: every problem at once, one failure under a heading, infrastructure when any is.
import { describe, expect, it } from 'vitest';
import { allProblems, type Failure } from '../../src/util/result.js';

const usage: Failure = { kind: 'usage', message: 'a pin that does not exist' };
const infra: Failure = { kind: 'infrastructure', message: 'the registry did not answer' };

describe('allProblems', () => {
  it('none is no failure; one is itself, details and all', () => {
    expect(allProblems([], 'the plan has problems:')).toBeUndefined();
    const one = { ...usage, details: ['x'] };
    expect(allProblems([one], 'the plan has problems:')).toEqual({ ok: false, error: one });
  });
  it('more are one failure listing each under the heading: usage, unless any is infrastructure', () => {
    expect(allProblems([usage, usage], 'h:')).toEqual({
      ok: false,
      error: { kind: 'usage', message: 'h:', details: [usage.message, usage.message] },
    });
    expect(allProblems([usage, infra], 'h:')?.error.kind).toBe('infrastructure');
    expect(allProblems([infra, usage], 'h:')?.error.details).toEqual([infra.message, usage.message]);
  });
});
