// Where a harness cache lives: the per-user folder every cache shares, and the `off` its variable may say.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { turnedOff, userCacheDir } from '../../src/cache/location.js';

describe('userCacheDir', () => {
  it('is XDG_CACHE_HOME, else ~/.cache, on every platform but Windows with LOCALAPPDATA', () => {
    expect(userCacheDir('trees', { XDG_CACHE_HOME: '/c' }, 'linux')).toBe('/c/mcp-matrix/trees');
    expect(userCacheDir('node', {}, 'linux')).toBe(path.join(os.homedir(), '.cache', 'mcp-matrix', 'node'));
    expect(userCacheDir('clients', { LOCALAPPDATA: '/l', XDG_CACHE_HOME: '/c' }, 'linux')).toBe('/c/mcp-matrix/clients');
    expect(userCacheDir('clients', { LOCALAPPDATA: 'C:\\L', XDG_CACHE_HOME: '/c' }, 'win32')).toBe(
      path.join('C:\\L', 'mcp-matrix', 'clients'),
    );
    expect(userCacheDir('clients', { XDG_CACHE_HOME: '/c' }, 'win32')).toBe(path.join('/c', 'mcp-matrix', 'clients'));
  });
});

describe('turnedOff', () => {
  it('is `off` in any case, with spaces around it; nothing else', () => {
    expect(turnedOff('off')).toBe(true);
    expect(turnedOff(' OFF ')).toBe(true);
    expect(turnedOff(undefined)).toBe(false);
    expect(turnedOff('')).toBe(false);
    expect(turnedOff('/off')).toBe(false);
  });
});
