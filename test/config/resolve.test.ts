import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig, reuseWindowFor, windowFromEnv } from '../../src/config/resolve.js';

const resolve = (config: MatrixConfig) => resolveConfig({ file: '/p/matrix.config.ts', dir: '/p', config }, {}, '/p');

describe('resolveConfig: phases', () => {
  it('a phase left out of the config is skipped as "not configured": no default args that would time out', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], stdio: {} });
    expect(cfg.stdio).not.toBe(false);
    expect(cfg.http).toBe(false);
    expect(cfg.bind).toBe(false);
    expect(cfg.leaks).toBe(false);
    expect(cfg.skipped).toEqual({ http: 'not configured', bind: 'not configured', leaks: 'not configured', conformance: 'no http phase' });
    expect(cfg.conformance).toBe(false);
  });

  it('a phase set to false is skipped as "disabled"', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], stdio: false, http: false, bind: {}, leaks: { graceMs: 5 } });
    expect(cfg.skipped).toEqual({ stdio: 'disabled', http: 'disabled', conformance: 'no http phase' });
    expect(cfg.bind).not.toBe(false);
    expect(cfg.leaks).toEqual({ graceMs: 5, checks: { shutdown: 'require', 'temp-files': 'warn' } });
  });

  it('an empty object configures a phase with its documented defaults', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], http: {} });
    expect(cfg.http).toMatchObject({ path: '/mcp', host: '127.0.0.1', env: { MCP_SERVER_TOKEN: '{token}' } });
    expect(cfg.skipped.http).toBeUndefined();
  });

  it('conformance is on wherever http is, off with false or MCP_MATRIX_CONFORMANCE=off, each skip saying why', () => {
    const on = resolve({ cells: [{ pin: 'latest@1' }], http: {} });
    expect(on.conformance).toEqual({ timeoutMs: 30_000 });
    expect(on.skipped.conformance).toBeUndefined();
    expect(resolve({ cells: [{ pin: 'latest@1' }], http: {}, conformance: { timeoutMs: 5 } }).conformance).toEqual({ timeoutMs: 5 });
    const off = resolve({ cells: [{ pin: 'latest@1' }], http: {}, conformance: false });
    expect([off.conformance, off.skipped.conformance]).toEqual([false, 'disabled']);
    const env = resolveConfig(
      { file: '/p/m.ts', dir: '/p', config: { cells: [{ pin: 'latest@1' }], http: {} } },
      { conformanceOff: true },
      '/p',
    );
    expect([env.conformance, env.skipped.conformance]).toEqual([false, 'off: MCP_MATRIX_CONFORMANCE']);
  });
});

describe('resolveConfig: bind inherits http', () => {
  const cells = [{ pin: 'latest@1' }];

  it("takes http's args and env, with a loopback host swapped for {host} (filled with a non-loopback host)", () => {
    const cfg = resolve({
      cells,
      http: {
        args: ['serve', '--host', '127.0.0.1', '--listen=localhost', '--port', '{port}'],
        env: { PORT: '{port}', BIND: '::1', TOKEN: '{token}' },
        path: '/rpc',
      },
      bind: {},
    });
    expect(cfg.bind).toEqual({
      args: ['serve', '--host', '{host}', '--listen={host}', '--port', '{port}'],
      env: { PORT: '{port}', BIND: '{host}', TOKEN: '{token}' },
      timeoutMs: 10_000,
      dropEnv: ['TOKEN'],
      path: '/rpc',
    });
  });

  it('keeps {host} as it is, and its own args or env when it is given them', () => {
    const http = { args: ['--transport', 'http', '--host', '{host}'], env: { MCP_SERVER_TOKEN: '{token}', MODE: 'x' } };
    expect(resolve({ cells, http, bind: {} }).bind).toMatchObject({ args: http.args, env: http.env, dropEnv: ['MCP_SERVER_TOKEN'] });
    expect(resolve({ cells, http, bind: { args: ['--bind-all'] } }).bind).toMatchObject({ args: ['--bind-all'], env: http.env });
    expect(resolve({ cells, http, bind: { env: { A: '1' } } }).bind).toMatchObject({ args: http.args, env: { A: '1' } });
  });

  it("auth: 'oauth': bind drops the variables carrying the authorization server's coordinates; the tokens' defaults resolved", () => {
    const http = {
      auth: 'oauth' as const,
      env: { ISSUER: '{issuer}', JWKS: '{jwksUri}', AUD: '{audience}', MODE: 'x' },
    };
    const cfg = resolve({ cells, http, bind: {} });
    expect(cfg.bind).toMatchObject({ dropEnv: ['ISSUER', 'JWKS', 'AUD'] });
    expect(cfg.http).toMatchObject({ auth: 'oauth', oauth: { scopes: [] } });
    expect(cfg.http && cfg.http.oauth).not.toHaveProperty('audience');
    expect(resolve({ cells, http: { ...http, oauth: { audience: 'urn:a', scopes: ['s'] } } }).http).toMatchObject({
      oauth: { audience: 'urn:a', scopes: ['s'] },
    });
    // Not oauth: no oauth key (the config hash of every existing config is unchanged).
    expect(resolve({ cells, http: {} }).http).not.toHaveProperty('oauth');
    // Issue 32 item 5: conformance runs for an OAuth server too (a valid token through the proxy).
    expect([cfg.conformance, cfg.skipped.conformance]).toEqual([{ timeoutMs: 30_000 }, undefined]);
  });

  it('without http, bind uses its documented default args', () => {
    expect(resolve({ cells, http: false, bind: {} }).bind).toMatchObject({
      args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'],
      env: {},
    });
  });
});

describe('resolveConfig: the axes', () => {
  it('a config without axes resolves its cells exactly as before (no axis keys, so the config hash is unchanged)', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }, { pin: '2.0.0', role: 'r' }] });
    expect(cfg.cells).toEqual([
      { pin: 'latest@1', id: 'latest-1', allowedToFail: false },
      { pin: '2.0.0', role: 'r', id: '2.0.0', allowedToFail: false },
    ]);
  });

  it('top-level axes cross every cell; a cell’s own list replaces them; [] turns an axis off for that cell', () => {
    const cfg = resolve({
      cells: [{ pin: 'latest@1' }, { pin: 'latest@2', clients: ['latest@2'] }, { pin: '2.0.0', clients: [], node: [] }],
      clients: ['1.0.0', 'latest@2'],
      node: [22, '24.1.0'],
    });
    expect(cfg.cells.map((c) => [c.id, c.clients, c.node])).toEqual([
      ['latest-1', ['1.0.0', 'latest@2'], ['22', '24.1.0']],
      ['latest-2', ['latest@2'], ['22', '24.1.0']],
      ['2.0.0', undefined, undefined],
    ]);
  });
});

describe('resolveConfig: the package source', () => {
  it("--tarball stands in for the config's package directory, which is kept for the reports' locations (matrix.sarif)", () => {
    const loaded = { file: '/p/matrix.config.ts', dir: '/p', config: { package: './server', cells: [{ pin: 'latest@1' }] } };
    expect(resolveConfig(loaded, {}, '/p').source).toEqual({ kind: 'directory', dir: '/p/server' });
    expect(resolveConfig(loaded, { tarball: 'out/x.tgz' }, '/w').source).toEqual({
      kind: 'tarball',
      file: '/w/out/x.tgz',
      packageDir: '/p/server',
    });
    // A config that names a tarball has no package directory to point at.
    const tarball = { ...loaded, config: { tarball: 'x.tgz', cells: [{ pin: 'latest@1' }] } };
    expect(resolveConfig(tarball, { tarball: 'y.tgz' }, '/w').source).toEqual({ kind: 'tarball', file: '/w/y.tgz' });
  });
});

describe("reuseWindowFor: the run's reuse window", () => {
  const WEEK = { MCP_MATRIX_REUSE_WINDOW_MS: '604800000' };
  const cfg = resolve({ cells: [{ pin: 'latest@1' }], stdio: {} });
  const own = resolve({ cells: [{ pin: 'latest@1' }], stdio: {}, install: { reuseWindowMs: 5 } });

  it("is the config's, or MCP_MATRIX_REUSE_WINDOW_MS's (an integer ≥ 0) for the run; 0 is none", () => {
    expect(reuseWindowFor(cfg, {}, {})).toBe(600_000);
    expect(reuseWindowFor(own, {}, {})).toBe(5);
    expect(reuseWindowFor(own, {}, WEEK)).toBe(604_800_000);
    expect(reuseWindowFor(cfg, {}, { MCP_MATRIX_REUSE_WINDOW_MS: ' 0 ' })).toBeUndefined();
    expect(reuseWindowFor(own, {}, { MCP_MATRIX_REUSE_WINDOW_MS: '' })).toBe(5);
  });

  it('a value that is not an integer ≥ 0 is a usage error naming the variable and the value', () => {
    expect(windowFromEnv({})).toEqual({ ok: true, value: undefined });
    expect(windowFromEnv({ MCP_MATRIX_REUSE_WINDOW_MS: ' 5 ' })).toEqual({ ok: true, value: 5 });
    for (const bad of ['week', '-1', '1.5', '1e3', '99999999999999999999']) {
      const r = windowFromEnv({ MCP_MATRIX_REUSE_WINDOW_MS: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok)
        expect(r.error).toMatchObject({
          kind: 'usage',
          message: expect.stringContaining(`MCP_MATRIX_REUSE_WINDOW_MS="${bad}": not a whole number`),
        });
    }
  });

  it('never widens a run that resolves now: CI set, --fresh, a frozen plan (run --plan), install.reuse false', () => {
    expect(reuseWindowFor(cfg, {}, { ...WEEK, CI: 'true' })).toBeUndefined();
    expect(reuseWindowFor(cfg, { fresh: true }, WEEK)).toBeUndefined();
    expect(reuseWindowFor(cfg, { frozen: { hash: 'x' } }, WEEK)).toBeUndefined();
    const off = resolve({ cells: [{ pin: 'latest@1' }], stdio: {}, install: { reuse: false } });
    expect(reuseWindowFor(off, {}, WEEK)).toBeUndefined();
  });
});
