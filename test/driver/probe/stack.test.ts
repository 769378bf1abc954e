import { describe, expect, it } from 'vitest';
import { describeStack, parseStack } from '../../../src/driver/probe/stack.js';

const STACK = `Error
    at AsyncHook.init (/cell/.mcp-matrix/driver/probe.js:40:11)
    at emitInitNative (node:internal/async_hooks:202:43)
    at new Timeout (node:internal/timers:186:9)
    at setInterval (node:timers:227:20)
    at startTicker (file:///cell/node_modules/pkg/dist/ticker.js:42:5)
    at file:///cell/node_modules/pkg/dist/server.js:10:1
    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)`;

describe('stack attribution', () => {
  it('parses frames with and without function names, from file URLs', () => {
    const frames = parseStack(STACK);
    expect(frames[3]).toEqual({ fn: 'setInterval', file: 'node:timers', line: 227 });
    expect(frames[5]).toEqual({ file: '/cell/node_modules/pkg/dist/server.js', line: 10 });
  });

  it('names the innermost package frame, relative to the package, and the call above it', () => {
    const out = describeStack(STACK, { packageDir: '/cell/node_modules/pkg', cellDir: '/cell', self: '/cell/.mcp-matrix/driver/probe.js' });
    expect(out).toEqual({ location: 'dist/ticker.js:42', createdBy: 'setInterval', inPackage: true });
  });

  it('falls back to the first non-internal frame relative to the cell (not the package’s node_modules)', () => {
    const stack = `Error
    at AsyncHook.init (/cell/.mcp-matrix/driver/probe.js:40:11)
    at Server.listen (node:net:1900:3)
    at serve (/cell/node_modules/pkg/node_modules/dep/index.js:7:9)`;
    const out = describeStack(stack, { packageDir: '/cell/node_modules/pkg', cellDir: '/cell', self: '/cell/.mcp-matrix/driver/probe.js' });
    expect(out).toEqual({ location: 'node_modules/pkg/node_modules/dep/index.js:7', createdBy: 'Server.listen', inPackage: false });
  });

  it('returns nothing for a purely internal stack', () => {
    expect(describeStack('Error\n    at internalThing (node:internal/x:1:1)', {})).toEqual({ inPackage: false });
  });
});
