import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellPlaceholders, makeScratchDir, scratchDir } from '../../../src/driver/client/placeholders.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import { withLevels } from '../helpers/levels.js';

function spec(cellDir: string): DriverSpec {
  const command = {
    bin: '/x/bin.js',
    args: ['--state', '{tmp}/state.json', '--root', '{cellDir}', '--port', '{port}'],
    env: { DATA: '{tmp}' },
  };
  return {
    cellDir,
    packageDir: join(cellDir, 'node_modules/p'),
    major: 1,
    probe: '/x/probe.js',
    baseEnv: { PATH: '/usr/bin', STATE: '{tmp}/shared.json' },
    client: { capabilities: { roots: {} }, roots: [{ uri: 'file://{tmp}', name: 'scratch' }], noArguments: 'empty' },
    phases: withLevels({
      stdio: { command, expect: {}, steps: [], timeoutMs: 1000 },
      http: {
        command: { ...command, env: { TOKEN: '{token}', HOME_DIR: '{cellDir}' } },
        host: '127.0.0.1',
        path: '/mcp',
        steps: [],
        readyTimeoutMs: 1,
        timeoutMs: 1,
      },
      bind: false,
      leaks: { graceMs: 1 },
    }),
  };
}

describe('cellPlaceholders', () => {
  it('puts {cellDir} and {tmp} into args, env, the base env and the roots; leaves {host}/{port}/{token} to the phases', () => {
    const out = cellPlaceholders(spec('/cells/a'));
    const tmp = scratchDir('/cells/a');
    expect(tmp).toBe('/cells/a/.mcp-matrix/tmp');
    expect(out.phases.stdio && out.phases.stdio.command).toEqual({
      bin: '/x/bin.js',
      args: ['--state', `${tmp}/state.json`, '--root', '/cells/a', '--port', '{port}'],
      env: { DATA: tmp },
    });
    expect(out.phases.http && out.phases.http.command.env).toEqual({ TOKEN: '{token}', HOME_DIR: '/cells/a' });
    expect(out.phases.bind).toBe(false);
    expect(out.baseEnv).toEqual({ PATH: '/usr/bin', STATE: `${tmp}/shared.json` });
    expect(out.client!.roots).toEqual([{ uri: `file://${tmp}`, name: 'scratch' }]);
  });

  it('gives two cells different values', () => {
    const a = cellPlaceholders(spec('/cells/a')).baseEnv.STATE;
    const b = cellPlaceholders(spec('/cells/b')).baseEnv.STATE;
    expect(a).not.toBe(b);
  });

  it('gives two variants of one cell (each with its work dir) different values', () => {
    const a = cellPlaceholders({ ...spec('/cells/a'), workDir: '/cells/a/.mcp-matrix/variants/a~client-1.0.0' }).baseEnv.STATE;
    const b = cellPlaceholders({ ...spec('/cells/a'), workDir: '/cells/a/.mcp-matrix/variants/a~client-latest-2' }).baseEnv.STATE;
    expect(a).toBe('/cells/a/.mcp-matrix/variants/a~client-1.0.0/tmp/shared.json');
    expect(b).toBe('/cells/a/.mcp-matrix/variants/a~client-latest-2/tmp/shared.json');
    expect(scratchDir('/cells/a')).toBe('/cells/a/.mcp-matrix/tmp');
  });

  it('makes the scratch directory fresh: whatever an earlier run left is gone', () => {
    const cell = mkdtempSync(join(tmpdir(), 'mm-placeholders-'));
    try {
      const dir = makeScratchDir(cell);
      writeFileSync(join(dir, 'old.json'), '{}');
      expect(makeScratchDir(cell)).toBe(dir);
      expect(existsSync(dir)).toBe(true);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(cell, { recursive: true, force: true });
    }
  });
});
