// The frozen plan's file: a plan.json without one, or of another version, is bad input naming its command.
import { describe, expect, it } from 'vitest';
import { parseFrozenPlan } from '../../src/plan/frozen.js';

describe('frozen plan', () => {
  it('a plan.json without a frozen plan, or of another version, is bad input naming the command that writes it', () => {
    for (const json of [{}, { frozen: { version: 9 } }, { frozen: { version: 1, hash: 'h', shape: 's', cells: [] } }]) {
      const r = parseFrozenPlan(json, 'plan.json');
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/^--plan plan\.json: .*mcp-matrix plan --json > plan\.json/);
    }
  });
});
