import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/driver/redact.js';

describe('Redactor', () => {
  const token = 'a'.repeat(16) + '0123456789abcdef0123456789abcdef';

  it('masks every occurrence in strings, nested values and keys', () => {
    const r = new Redactor();
    r.add(token);
    const message = {
      type: 'phase-result',
      result: {
        message: `Bearer ${token} refused`,
        stderrTail: `token=${token}\nagain ${token}`,
        details: { [token]: [token, 1, null, true] },
      },
    };
    const out = r.deep(message);
    expect(JSON.stringify(out)).not.toContain(token);
    expect(out.result.message).toBe('Bearer *** refused');
    expect(out.result.stderrTail).toBe('token=***\nagain ***');
    expect(out.result.details).toEqual({ '***': ['***', 1, null, true] });
    expect(message.result.message).toContain(token);
  });

  it('ignores secrets too short to be tokens and survives cycles', () => {
    const r = new Redactor();
    r.add('ab');
    const cyclic: Record<string, unknown> = { a: 'ab' };
    cyclic.self = cyclic;
    expect(r.deep(cyclic)).toEqual({ a: 'ab', self: '[Circular]' });
  });
});
