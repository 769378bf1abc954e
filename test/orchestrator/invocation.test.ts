import { describe, expect, it } from 'vitest';
import { invocation, portablePath } from '../../src/orchestrator/invocation.js';

describe('invocation: repro commands start mcp-matrix the way the user did', () => {
  it('an installed copy (npx, an npm script, node_modules/.bin) is npx mcp-matrix', () => {
    expect(invocation('/home/u/app/node_modules/.bin/mcp-matrix', {}, '/home/u/app')).toBe('npx mcp-matrix');
    expect(invocation('/home/u/.npm/_npx/1a2b/node_modules/mcp-matrix/bin/mcp-matrix.js', {}, '/home/u/app')).toBe('npx mcp-matrix');
    expect(invocation('/somewhere/bin/mcp-matrix.js', { npm_command: 'exec' }, '/home/u/app')).toBe('npx mcp-matrix');
  });

  it('a checkout is node <bin>, relative to where the user stands: no absolute runner path', () => {
    expect(invocation('/home/runner/work/mcp-matrix/bin/mcp-matrix.js', {}, '/home/runner/work/mcp-matrix')).toBe('node bin/mcp-matrix.js');
    expect(invocation('/home/runner/work/mcp-matrix/bin/mcp-matrix.js', {}, '/home/runner/work/mcp-matrix/fixtures')).toBe(
      'node ../bin/mcp-matrix.js',
    );
  });

  it('paths in a repro line are relative', () => {
    expect(portablePath('/home/runner/work/x/package-tarball/x-1.0.0.tgz', '/home/runner/work/x')).toBe('package-tarball/x-1.0.0.tgz');
    expect(portablePath('/w', '/w')).toBe('.');
  });
});
