// The order the suite's files start in (test/helpers/sequencer.ts): longest first, one worker on unit files.
import { describe, expect, it } from 'vitest';
import { dealOut, type Timed } from './sequencer.js';

const e2e = (item: string, seconds: number): Timed<string> => ({ item, unit: false, seconds });
const unit = (item: string, seconds: number): Timed<string> => ({ item, unit: true, seconds });

describe('dealOut', () => {
  it('starts the longest e2e files first and keeps one worker on unit files while any are left', () => {
    const files = [e2e('e-short', 10), unit('u-short', 1), e2e('e-long', 300), unit('u-long', 50), e2e('e-mid', 100), e2e('e-mid2', 90)];
    // t=0: three e2e workers and the unit lane; u-long ends at 50 → u-short; e-mid2 ends at 90 → e-short.
    expect(dealOut(files, 4)).toEqual(['e-long', 'e-mid', 'e-mid2', 'u-long', 'u-short', 'e-short']);
  });

  it('gives every worker e2e files once the unit files are used up, and unit files once the e2e files are', () => {
    expect(dealOut([e2e('a', 5), e2e('b', 4), e2e('c', 3), e2e('d', 2), unit('u', 1)], 2)).toEqual(['a', 'u', 'b', 'c', 'd']);
    expect(dealOut([unit('u1', 3), unit('u2', 2), e2e('e', 1)], 2)).toEqual(['e', 'u1', 'u2']);
  });

  it('keeps every file exactly once', () => {
    const files = Array.from({ length: 40 }, (_, i) => (i % 3 ? e2e(`e${i}`, (i * 37) % 101) : unit(`u${i}`, (i * 13) % 17)));
    const order = dealOut(files, 4);
    expect([...order].sort()).toEqual(files.map((f) => f.item).sort());
  });
});
