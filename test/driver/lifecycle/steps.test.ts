// What the lifecycle checks share (lifecycle-steps.ts): the configured tool steps, the one marked slow, the
// call each makes, and whether an answer says the server is gone.
import { describe, expect, it } from 'vitest';
import { callParams, gone, slowStep, toolSteps } from '../../../src/driver/lifecycle/steps.js';
import type { Step } from '../../../src/contract/protocol.js';

const steps = [
  { resource: 'mem://a' },
  { tool: 'echo', arguments: { text: 'hi' } },
  { prompt: 'greet' },
  { tool: 'wait', slow: false },
  { tool: 'slow', slow: true },
  { tool: 'slower', slow: true },
] as unknown as Step[];

describe('lifecycle steps', () => {
  it('the tool steps, in order; the first marked slow (exactly true)', () => {
    expect(toolSteps(steps).map((s) => s.tool)).toEqual(['echo', 'wait', 'slow', 'slower']);
    expect(slowStep(steps)?.tool).toBe('slow');
    expect(slowStep(steps.slice(0, 4))).toBeUndefined();
    expect(toolSteps([])).toEqual([]);
  });

  it("a step's call: its tool and arguments, none as {}", () => {
    expect(callParams(toolSteps(steps)[0]!)).toEqual({ name: 'echo', arguments: { text: 'hi' } });
    expect(callParams(toolSteps(steps)[1]!)).toEqual({ name: 'wait', arguments: {} });
  });

  it('only a closed answer says the server is gone, and why', () => {
    expect(gone({ kind: 'closed', why: 'the server exited (code 1)' })).toBe('the server exited (code 1)');
    expect(gone({ kind: 'none', why: 'no answer within 5 ms' })).toBeUndefined();
    expect(gone({ kind: 'error', message: 'x' })).toBeUndefined();
    expect(gone({ kind: 'result', result: {} })).toBeUndefined();
  });
});
