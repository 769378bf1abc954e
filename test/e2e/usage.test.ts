// Usage and config errors through the real CLI: one line per problem, a did-you-mean, exit 2, and
// nothing installed or started (each command returns before the registry is needed).
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, ROOT, tempDir, writeConfig } from './helpers/cli.js';

const REF = path.join(ROOT, 'fixtures/reference-server');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function configWith(body: string): Promise<string> {
  const d = await tempDir();
  dirs.push(d);
  return writeConfig(d, body);
}

describe('config errors', () => {
  it('reports every leaf problem under a phase with its path, and links the reference', async () => {
    const cfg = await configWith(
      `{ package: ${JSON.stringify(REF)}, cells: [{ pin: 'latest@1' }], stdio: { expect: { tools: 'five' }, timeout: 5 } } as never`,
    );
    const r = await cli(['run', '--config', cfg, '--progress', 'silent']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      'mcp-matrix: matrix.config.ts has 2 problems:',
      '  stdio.expect.tools: expected a number or a list, got string',
      '  stdio.timeout: unknown key (did you mean "timeoutMs"?)',
      '  every key is described in docs/config.md',
    ]);
    expect(r.stderr).not.toContain('Invalid input');
  });

  it('refuses a pin of an unknown SDK major at validation, before the registry is asked', async () => {
    const cfg = await configWith(`{ package: ${JSON.stringify(REF)}, cells: [{ pin: '9.9.9' }] }`);
    // A registry nobody listens on: reaching it would be exit 3, not 2.
    const r = await cli(['plan', '--config', cfg], { env: { npm_config_registry: 'http://127.0.0.1:9/' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cells[0].pin: no install recipe for SDK major 9 (known: 1, 2)');
  });
});

describe('commands and flags', () => {
  it('suggests the command meant, exit 2', async () => {
    const r = await cli(['rnu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "rnu" (did you mean "run"?)');
  });

  it('suggests the flag meant, exit 2', async () => {
    const r = await cli(['run', '--concurency', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('mcp-matrix: run has no option --concurency (did you mean "--concurrency"?) (mcp-matrix help run)');
  });

  it('has a help verb: the overview, one command, or a did-you-mean', async () => {
    const all = await cli(['help']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/Commands:[\s\S]*\binit\b[\s\S]*Exit codes/);
    const plan = await cli(['help', 'plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('$ mcp-matrix plan');
    expect(plan.stdout).toContain('--json');
    const typo = await cli(['help', 'iint']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no command "iint" (did you mean "init"?)');
  });
});
