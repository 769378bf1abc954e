import { describe, expect, it } from 'vitest';
import { closest, didYouMean, distance } from '../../src/util/did-you-mean.js';

describe('did-you-mean', () => {
  it('counts edits, a swap of two letters as one', () => {
    expect(distance('kitten', 'sitting')).toBe(3);
    expect(distance('tiemout', 'timeout')).toBe(1);
    expect(distance('Stdio', 'stdio')).toBe(0);
  });

  it('suggests the closest key, and a key that only lengthens the word', () => {
    expect(closest('stdoi', ['stdio', 'http', 'bind'])).toBe('stdio');
    expect(closest('timeout', ['args', 'env', 'timeoutMs'])).toBe('timeoutMs');
    expect(closest('tiemout', ['args', 'env', 'timeoutMs'])).toBe('timeoutMs');
    expect(closest('--concurency', ['--concurrency', '--config'])).toBe('--concurrency');
  });

  it('suggests nothing for a word far from every candidate', () => {
    expect(closest('colour', ['pin', 'role', 'id', 'allowedToFail'])).toBeUndefined();
    expect(closest('x', ['id', 'env'])).toBeUndefined();
    expect(didYouMean('banana', ['run', 'plan', 'report', 'merge', 'init', 'help'])).toBe('');
    expect(didYouMean('rnu', ['run', 'plan'])).toBe(' (did you mean "run"?)');
  });
});
