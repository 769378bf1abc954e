import { describe, expect, it } from 'vitest';
import type { MatrixConfig } from '../../src/config/define.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { validateConfig } from '../../src/config/schema.js';

const resolve = (config: MatrixConfig) => resolveConfig({ file: '/p/matrix.config.ts', dir: '/p', config }, {}, '/p');

describe('cells[].install and environment.checks', () => {
  it('a strict leg beside the npm cell of the same pin gets an id of its own; npm stays as before (no key)', () => {
    const cfg = resolve({
      cells: [
        { pin: 'latest@1' },
        { pin: 'latest@1', install: 'pnpm-strict' },
        { pin: 'latest@1', install: 'yarn-pnp' },
        { pin: 'latest@2', install: 'npm' },
      ],
    });
    expect(cfg.cells).toEqual([
      { pin: 'latest@1', id: 'latest-1', allowedToFail: false },
      { pin: 'latest@1', id: 'latest-1-pnpm-strict', allowedToFail: false, install: 'pnpm-strict' },
      { pin: 'latest@1', id: 'latest-1-yarn-pnp', allowedToFail: false, install: 'yarn-pnp' },
      { pin: 'latest@2', id: 'latest-2', allowedToFail: false },
    ]);
    expect(cfg.environment).toBeUndefined();
  });

  it('an unknown installer and a duplicate id are config errors; environment.checks names its checks', () => {
    const bad = validateConfig({
      cells: [
        { pin: 'latest@1', install: 'yarn' },
        { pin: 'latest@1', install: 'pnpm-strict', id: 'latest-1' },
      ],
      environment: { checks: { 'undeclared-imports': 'warn', nope: 'off' } },
    });
    expect(bad.ok).toBe(false);
    const problems = bad.ok ? [] : bad.problems.join('\n');
    expect(problems).toMatch(/cells\[0\]\.install/);
    const twice = validateConfig({ cells: [{ pin: 'latest@1' }, { pin: 'latest@1', install: 'pnpm-strict', id: 'latest-1' }] });
    expect(twice.ok ? [] : twice.problems).toEqual(['cells[1].id: duplicate cell id "latest-1" (also cells[0]); set a distinct id']);
    expect(problems).toMatch(/environment\.checks/);
    expect(resolve({ cells: [{ pin: 'latest@1' }], environment: { checks: { 'undeclared-imports': 'warn' } } }).environment).toEqual({
      checks: { 'undeclared-imports': 'warn', 'undeclared-dynamic-imports': 'warn' },
    });
  });
});
