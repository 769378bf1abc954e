// The strict leg's install that could not run: its message names pnpm and the strict leg, never npm or packing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installStrict } from '../../../src/cells/install/strict-install.js';
import { installFailure } from '../../../src/judge/not-measured.js';
import { removeDir, tempDir } from '../../driver/helpers/cell.js';

const work = tempDir('mm-strict-unit-');
afterAll(() => removeDir(work));

describe('a strict install that could not complete', () => {
  it('pnpm itself not installed: not measured, the cause said once, as the strict leg and pnpm', async () => {
    const cellDir = join(work, 'cell');
    mkdirSync(cellDir);
    const aborted = AbortSignal.abort();
    // No client cache: pnpm's own install runs in the run directory, and the aborted signal stops it at once.
    const env = { ...process.env, MCP_MATRIX_CLIENT_CACHE: 'off', MCP_MATRIX_PNPM_STORE: 'off' };
    const { install, source } = await installStrict(cellDir, { attempts: 2, timeoutMs: 10_000, runDir: work, signal: aborted, env });
    expect(install.kind).toBe('not-measured');
    expect(source).toMatchObject({ source: 'pnpm-strict' });
    if (install.kind !== 'not-measured') return;
    expect(install.cause).toMatch(/^pnpm is needed for this cell's strict install \(install: 'pnpm-strict'\), but pnpm@/);
    const env2 = installFailure(install, { primary: 'sdk', version: '1.0.0', packageName: 'srv' }, 'pnpm');
    expect(env2).toMatchObject({ verdict: 'not-measured', step: 'pnpm install', message: install.cause });
    expect(env2.message).not.toMatch(/to pack|\(npm:|npm install failed/);
  });
});
