import { describe, expect, it } from 'vitest';
import { StepTimeout } from '../../../src/driver/context.js';
import { failureText, ServerExited } from '../../../src/driver/phases/stdio-failure.js';

const EXIT = { code: 3, signal: null, at: 1 };
const KILLED = { code: null, signal: 'SIGKILL' as const, at: 1 };
const closed = Object.assign(new Error('MCP error -32000: Connection closed'), { code: -32000 });

describe('failureText', () => {
  // The two orders of one exit under a request: the client's error first, or the exit watcher first.
  it.each([
    ['the client first', closed, EXIT, 'the server exited with code 3 (see its stderr)'],
    ['the exit watcher first', new ServerExited(EXIT), EXIT, 'the server exited with code 3 (see its stderr)'],
    ['the client first, killed', closed, KILLED, 'the server exited with signal SIGKILL (see its stderr)'],
    ['the exit watcher first, killed', new ServerExited(KILLED), KILLED, 'the server exited with signal SIGKILL (see its stderr)'],
  ])('an exit that cut the connection reads the same, %s', (_, error, exit, text) => {
    expect(failureText(error, { exit, cutOff: true, bin: 'srv' })).toBe(text);
  });

  it('a write that failed (EPIPE) on a dead server: its exit', () => {
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(failureText(epipe, { exit: EXIT, cutOff: true, bin: 'srv' })).toBe('the server exited with code 3 (see its stderr)');
  });

  it("alive: the client's error alone", () => {
    expect(failureText(closed, { exit: null, cutOff: true, bin: 'srv' })).toBe('MCP error -32000: Connection closed');
  });

  it('an answer (the connection was not cut under it), then an exit: the answer, with the exit after it', () => {
    const answer = new Error('MCP error -32602: bad version');
    expect(failureText(answer, { exit: EXIT, cutOff: false, bin: 'srv' })).toBe(
      'MCP error -32602: bad version (the server exited with code 3; see its stderr)',
    );
  });

  it('a spawn that failed: "could not start", whichever error came first; a timeout: its own text', () => {
    const enoent = new Error('spawn srv ENOENT');
    const seen = { exit: { code: null, signal: null, at: 1 }, cutOff: true, bin: 'srv', spawnError: enoent };
    expect(failureText(closed, seen)).toBe('could not start srv: spawn srv ENOENT');
    expect(failureText(new ServerExited(seen.exit), seen)).toBe('could not start srv: spawn srv ENOENT');
    expect(failureText(new StepTimeout(10, 'initialize'), { exit: null, cutOff: false, bin: 'srv' })).toBe(
      'timed out after 10 ms waiting for initialize',
    );
  });
});
