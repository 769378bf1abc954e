import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { baseEnv, driverBound, driverSpec, type SpecInput } from '../../src/cells/driver-spec.js';
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
          sharedBind: measured,
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
