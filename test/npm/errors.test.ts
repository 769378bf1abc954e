import { describe, expect, it } from 'vitest';
import { classifyNpmError, npmJsonError } from '../../src/npm/errors.js';

describe('classifyNpmError', () => {
  it.each([
    ['npm error code ETIMEDOUT\nnpm error network request to https://registry.npmjs.org/x failed', 'ETIMEDOUT', true],
    ['npm error code ECONNRESET\nnpm error network aborted', 'ECONNRESET', true],
    ['npm error code E503\nnpm error 503 Service Unavailable', 'E503', true],
    ['npm error code ETARGET\nnpm error notarget No matching version found for @modelcontextprotocol/sdk@1.99.0.', 'ETARGET', false],
    ['npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree', 'ERESOLVE', false],
    ['npm error code EINTEGRITY\nnpm error sha512 integrity checksum failed', 'EINTEGRITY', false],
    ['npm error code E404\nnpm error 404 Not Found', 'E404', false],
  ])('%s → %s (network: %s)', (stderr, code, network) => {
    const c = classifyNpmError(stderr);
    expect(c.code).toBe(code);
    expect(c.network).toBe(network);
    expect(c.message).not.toMatch(/^code /);
  });
});

describe('npm --json errors', () => {
  it('reads the structured code first', () => {
    const stdout = '{\n  "error": {\n    "code": "ENOSPC",\n    "summary": "ENOSPC: no space left on device, write"\n  }\n}\n';
    expect(npmJsonError(stdout)).toEqual({ code: 'ENOSPC', summary: 'ENOSPC: no space left on device, write' });
    expect(classifyNpmError('npm error something odd', stdout).code).toBe('ENOSPC');
    expect(npmJsonError('not json')).toBeUndefined();
  });
});
