import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';

const resolve = (config: MatrixConfig) => resolveConfig({ file: '/p/matrix.config.ts', dir: '/p', config }, {}, '/p');

describe('resolveConfig: phases', () => {
  it('a phase left out of the config is skipped as "not configured": no default args that would time out', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], stdio: {} });
    expect(cfg.stdio).not.toBe(false);
    expect(cfg.http).toBe(false);
    expect(cfg.bind).toBe(false);
    expect(cfg.leaks).toBe(false);
    expect(cfg.skipped).toEqual({ http: 'not configured', bind: 'not configured', leaks: 'not configured' });
  });

  it('a phase set to false is skipped as "disabled"', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], stdio: false, http: false, bind: {}, leaks: { graceMs: 5 } });
    expect(cfg.skipped).toEqual({ stdio: 'disabled', http: 'disabled' });
    expect(cfg.bind).not.toBe(false);
    expect(cfg.leaks).toEqual({ graceMs: 5 });
  });

  it('an empty object configures a phase with its documented defaults', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], http: {} });
    expect(cfg.http).toMatchObject({ path: '/mcp', host: '127.0.0.1', env: { MCP_SERVER_TOKEN: '{token}' } });
    expect(cfg.skipped.http).toBeUndefined();
  });
});
