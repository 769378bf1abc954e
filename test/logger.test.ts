import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

describe('createLogger', () => {
  it('treats a closed pipe (EPIPE) as the end of output, and rethrows anything else', () => {
    const out = new PassThrough();
    const err = new PassThrough();
    createLogger(out, err);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(() => out.emit('error', epipe)).not.toThrow();
    const other = Object.assign(new Error('boom'), { code: 'EIO' });
    expect(() => err.emit('error', other)).toThrow('boom');
  });
});
