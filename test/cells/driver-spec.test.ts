import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { baseEnv, driverBound, driverSpec, type SpecInput } from '../../src/cells/driver-spec.js';
import type { ConformanceSuite } from '../../src/cells/conformance/conformance-suite.js';
import type { PhaseResult } from '../../src/results/types.js';

const resolve = (config: MatrixConfig) => resolveConfig({ file: '/p/matrix.config.ts', dir: '/p', config }, {}, '/p');
const input = (config: MatrixConfig, more: Partial<SpecInput> = {}): SpecInput => ({
  config: resolve(config),
  packageName: 'srv',
  binFile: './bin/server.js',
  cell: { pin: 'latest@1', major: 1 },
  variant: { id: 'latest-1' },
  cellDir: '/cells/latest-1',
  probe: '/cells/latest-1/.mcp-matrix/driver/probe.cjs',
  ...more,
});

describe('the config → driver spec translation', () => {
  it("each configured phase runs the package's bin with its args; the rest are skipped with the config's reasons", () => {
    const spec = driverSpec(input({ cells: [{ pin: 'latest@1' }], stdio: { args: ['--stdio'] } }));
    expect(spec).toMatchObject({ cellDir: '/cells/latest-1', packageDir: '/cells/latest-1/node_modules/srv', major: 1 });
    expect(spec.phases.stdio && spec.phases.stdio.command).toMatchObject({
      bin: '/cells/latest-1/node_modules/srv/bin/server.js',
      args: ['--stdio'],
    });
    expect([spec.phases.http, spec.phases.bind, spec.phases.leaks]).toEqual([false, false, false]);
    expect(spec.skipped).toMatchObject({ http: 'not configured', bind: 'not configured' });
    expect(spec.baseEnv).toMatchObject({ MCP_MATRIX_CELL: 'latest-1', MCP_MATRIX_PIN: 'latest@1' });
    expect(spec.workDir).toBeUndefined();
  });

  it("a client variant runs its client's major; a bind measured by another variant is not run and says who measured it", () => {
    const measured: PhaseResult = { phase: 'bind', verdict: 'passed', durationMs: 0, details: { measuredBy: 'latest-1~client-2' } };
    const spec = driverSpec(
      input(
        { cells: [{ pin: 'latest@1' }], http: {}, bind: {} },
        {
          variant: { id: 'latest-1~client-2', client: { id: 'c', pin: '2', major: 2, version: '2.4.0', package: 'p', installSet: {} } },
          workDir: '/w',
          shared: { bind: measured },
        },
      ),
    );
    expect(spec).toMatchObject({ major: 2, clientVersion: '2.4.0', workDir: '/w' });
    expect(spec.phases.bind).toBe(false);
    expect(spec.skipped?.bind).toBe('measured by latest-1~client-2: bind is run once per cell and Node release');
  });

  it('conformance runs only with an installed suite; a suite that could not be installed leaves it off', () => {
    expect(driverSpec(input({ cells: [{ pin: 'latest@1' }], http: {} }, { conformance: false })).phases.conformance).toBe(false);
    expect(driverSpec(input({ cells: [{ pin: 'latest@1' }], http: {} })).phases.conformance).toBeUndefined();
  });

  it('the backstop is above the sum of every bound, plus 30 s', () => {
    const cfg = resolve({ cells: [{ pin: 'latest@1' }], stdio: { timeoutMs: 1000 }, leaks: { graceMs: 500 } });
    expect(driverBound(cfg, 0)).toBe(1000 * 6 + 500 + 30_000);
    // A conformance bound without http: nothing to run it against, nothing added.
    const alone = resolve({
      cells: [{ pin: 'latest@1' }],
      stdio: { timeoutMs: 1000 },
      conformance: { timeoutMs: 5000 },
      leaks: { graceMs: 500 },
    } as MatrixConfig);
    expect(driverBound(alone, 3)).toBe(1000 * 6 + 500 + 30_000);
  });

  it('the base environment keeps only what a server needs to run', () => {
    const env = baseEnv({ A: '1' });
    expect(env.A).toBe('1');
    expect(
      Object.keys(env).every((k) =>
        ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM', 'SystemRoot', 'MCP_MATRIX_RUN', 'A'].includes(k),
      ),
    ).toBe(true);
  });
});

describe('the driver spec in full', () => {
  const suite = {
    package: '@modelcontextprotocol/conformance',
    version: '0.1.9',
    node: '/n/bin/node',
    nodeVersion: 'v22.0.0',
    cli: '/s/dist/index.js',
    catalogue: { run: ['server-initialize', 'tools-list'], excluded: [{ name: 'x', why: 'y' }] },
    source: 'run',
    cacheNotes: [],
  } as unknown as ConformanceSuite;
  const secrets = { env: (phase: string) => ({ [`S_${phase.toUpperCase()}`]: phase }) };
  const config: MatrixConfig = {
    cells: [{ pin: 'latest@1' }],
    env: { SHARED: '1' },
    stdio: { args: ['--stdio'], env: { A: 'a' }, steps: [{ tool: 'echo' }], timeoutMs: 1000 },
    http: { args: ['--http', '{port}'], env: { B: 'b' }, readyTimeoutMs: 2000, timeoutMs: 3000 },
    bind: { args: ['--bind'], env: { C: 'c' }, timeoutMs: 4000 },
    conformance: { timeoutMs: 5000 },
    leaks: { graceMs: 600 },
  } as MatrixConfig;

  it('a conformance run another variant measured on this Node is not run again and says who measured it; bind still runs', () => {
    const measured: PhaseResult = { phase: 'conformance', verdict: 'failed', durationMs: 0, details: { measuredBy: 'latest-1~client-1' } };
    const spec = driverSpec(input(config, { conformance: suite, shared: { conformance: measured } }));
    expect(spec.phases.conformance).toBe(false);
    expect(spec.skipped?.conformance).toBe('measured by latest-1~client-1: conformance is run once per cell and Node release');
    expect(spec.phases.bind).toMatchObject({ command: { args: ['--bind'] } });
    expect(spec.skipped?.bind).toBeUndefined();
  });

  it('every phase gets its command with its own secrets, its bounds and its checks; conformance runs the installed suite', () => {
    const spec = driverSpec(input(config, { conformance: suite, secrets: secrets as never }));
    const bin = '/cells/latest-1/node_modules/srv/bin/server.js';
    const r = resolve(config);
    expect(spec.phases).toEqual({
      stdio: {
        command: { bin, args: ['--stdio'], env: { A: 'a', S_STDIO: 'stdio' } },
        expect: r.stdio && r.stdio.expect,
        steps: [{ tool: 'echo' }],
        timeoutMs: 1000,
        checks: r.stdio && r.stdio.checks,
      },
      http: {
        command: { bin, args: ['--http', '{port}'], env: { B: 'b', S_HTTP: 'http' } },
        host: r.http && r.http.host,
        path: r.http && r.http.path,
        steps: [{ tool: 'echo' }],
        readyTimeoutMs: 2000,
        timeoutMs: 3000,
        auth: r.http && r.http.auth,
        checks: r.http && r.http.checks,
      },
      bind: {
        command: { bin, args: ['--bind'], env: { C: 'c', S_BIND: 'bind' } },
        dropEnv: r.bind && r.bind.dropEnv,
        timeoutMs: 4000,
        path: r.bind && r.bind.path,
      },
      conformance: {
        command: { bin, args: ['--http', '{port}'], env: { B: 'b', S_CONFORMANCE: 'conformance' } },
        host: r.http && r.http.host,
        path: r.http && r.http.path,
        readyTimeoutMs: 2000,
        timeoutMs: 5000,
        auth: r.http && r.http.auth,
        suite: { package: suite.package, version: '0.1.9', node: '/n/bin/node', nodeVersion: 'v22.0.0', cli: '/s/dist/index.js' },
        scenarios: ['server-initialize', 'tools-list'],
        excluded: [{ name: 'x', why: 'y' }],
      },
      leaks: r.leaks,
    });
    expect(spec.baseEnv).toMatchObject({ SHARED: '1' });
    // No secrets: each command has its own environment only.
    expect(driverSpec(input(config, { conformance: suite })).phases.bind).toMatchObject({ command: { env: { C: 'c' } } });
  });

  it('http without stdio has no steps; a bind path is passed on; an OAuth server is passed to http and to conformance', () => {
    const spec = driverSpec(
      input({ cells: [{ pin: 'latest@1' }], http: {}, bind: { path: '/mcp' } } as MatrixConfig, { conformance: suite }),
    );
    expect(spec.phases.http && spec.phases.http.steps).toEqual([]);
    expect(spec.phases.http).not.toHaveProperty('oauth');
    expect(spec.phases.bind && spec.phases.bind.path).toBe('/mcp');
    expect(spec.phases.conformance && spec.phases.conformance.timeoutMs).toBe(30_000);
    const oauth = { issuer: 'http://127.0.0.1:1' } as never;
    const guarded = driverSpec(
      input({ cells: [{ pin: 'latest@1' }], http: { auth: 'oauth' } } as MatrixConfig, { conformance: suite, oauth }),
    );
    expect(guarded.phases.http).toMatchObject({ oauth });
    // Issue 32 item 5: the suite runs through the proxy with a valid token from that server.
    expect(guarded.phases.conformance).toMatchObject({ auth: 'oauth', oauth });
  });

  it('results known before the driver starts stand in for their phases, which are not run; a gap on a phase that would not run changes nothing', () => {
    const gap = (phase: 'http' | 'bind' | 'conformance'): PhaseResult => ({
      phase,
      verdict: 'not-measured',
      durationMs: 0,
      message: `gap ${phase}`,
    });
    const missing: PhaseResult = { phase: 'conformance', verdict: 'not-measured', durationMs: 0, message: 'no suite' };
    const measured: PhaseResult = { phase: 'bind', verdict: 'passed', durationMs: 0, details: { measuredBy: 'latest-1~c' } };
    const gaps = new Map([
      ['http', gap('http')],
      ['bind', gap('bind')],
      ['conformance', gap('conformance')],
    ] as const);
    const spec = driverSpec(input(config, { conformance: false, suiteMissing: missing, shared: { bind: measured }, gaps }));
    expect([spec.phases.http, spec.phases.bind, spec.phases.conformance]).toEqual([false, false, false]);
    expect(spec.standIns).toEqual({ http: gap('http'), bind: measured, conformance: missing });
    expect(spec.phases.stdio).not.toBe(false);
    const plain = driverSpec(input(config, { conformance: suite }));
    expect(plain).not.toHaveProperty('standIns');
    expect(driverSpec(input(config, { conformance: suite, gaps: new Map([['conformance', gap('conformance')]]) })).standIns).toEqual({
      conformance: gap('conformance'),
    });
  });

  it('the backstop adds every phase: stdio per step, http twice its wait, bind, conformance per scenario, 30 s', () => {
    const r = resolve(config);
    expect(driverBound(r, 3)).toBe(1000 * (6 + 1) + 600 + (2 * 2000 + 3000 * 8 + 600) + 4000 + (2000 + 3000 + 5000 * 3) + 30_000);
    // Without leaks the grace is 10 s; conformance's default bound is 30 s a scenario.
    const bare = resolve({ cells: [{ pin: 'latest@1' }], http: { readyTimeoutMs: 2000, timeoutMs: 3000 }, leaks: false } as MatrixConfig);
    expect(driverBound(bare, 3)).toBe(2 * 2000 + 3000 * 8 + 10_000 + (2000 + 3000 + 30_000 * 3) + 30_000);
  });

  it('the base environment copies each kept variable that is set, and no other', () => {
    const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'USER', 'SHELL', 'TERM', 'SystemRoot', 'MCP_MATRIX_RUN'];
    const saved = { ...process.env };
    try {
      for (const k of Object.keys(process.env)) delete process.env[k];
      for (const k of keep) process.env[k] = `v-${k}`;
      process.env.OTHER = 'x';
      expect(baseEnv({ A: '1' })).toEqual({ ...Object.fromEntries(keep.map((k) => [k, `v-${k}`])), A: '1' });
      delete process.env.HOME;
      expect(baseEnv({})).not.toHaveProperty('HOME');
    } finally {
      for (const k of Object.keys(process.env)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
