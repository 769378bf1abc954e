// Usage and config errors through the real CLI: one line per problem, a did-you-mean, exit 2, and
// nothing installed or started (each command returns before the registry is needed).
import { readFile, rm } from 'node:fs/promises';
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
    // A run first sweeps what a dead run (any engineer's, on a shared machine) left behind, and may say so in one line.
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.includes('swept what a dead run left behind'));
    expect(lines).toEqual([
      'mcp-matrix: matrix.config.ts has 2 problems:',
      '  stdio.expect.tools: expected a number or a list, got string',
      '  stdio.timeout: unknown key (did you mean "timeoutMs"?)',
      '  every key is described in docs/config.md',
    ]);
    expect(r.stderr).not.toContain('Invalid input');
  });

  it('refuses a bad MCP_MATRIX_REUSE_WINDOW_MS with exit 2, naming it, before the registry is asked', async () => {
    const cfg = await configWith(`{ package: ${JSON.stringify(REF)}, cells: [{ pin: 'latest@1' }] }`);
    // A registry nobody listens on: reaching it would be exit 3, not 2.
    const r = await cli(['plan', '--config', cfg], {
      env: { MCP_MATRIX_REUSE_WINDOW_MS: 'week', npm_config_registry: 'http://127.0.0.1:9/' },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('MCP_MATRIX_REUSE_WINDOW_MS="week": not a whole number of milliseconds ≥ 0');
  });

  it('refuses `run --cell nope` with exit 2, naming the cells, before the registry is asked', async () => {
    const cfg = await configWith(`{ package: ${JSON.stringify(REF)}, cells: [{ pin: 'latest@1' }, { pin: 'floor@2' }] }`);
    // A registry nobody listens on: reaching it would be exit 3, not 2.
    const r = await cli(['run', '--config', cfg, '--cell', 'nope', '--progress', 'silent'], {
      env: { npm_config_registry: 'http://127.0.0.1:9/' },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--cell nope matches no cell; the config's cells: latest-1 (latest@1), floor-2 (floor@2)");
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
  it("help's exit codes say what the README's table says: every code, and every cause of exit 1", async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('Exit codes ('), readme.indexOf('### Known failures'));
    const rows = new Map([...table.matchAll(/^\| `(\d+)` \| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!]));
    expect([...rows.keys()]).toEqual(['0', '1', '2', '3', '130']);
    const help = (await cli(['help'])).stdout;
    const codes = help.slice(help.indexOf('Exit codes'));
    for (const code of rows.keys()) expect(codes, code).toMatch(new RegExp(`(^ {2}| · )${code} {1,2}\\S`, 'm'));
    // Each cause, in the words both texts use: a cause added to one and not the other fails here.
    const causes: Record<string, RegExp[]> = {
      '0': [/allowed failures/, /listed in the baseline/, /expected/],
      '1': [
        /baseline/,
        /stale allowance/,
        /stale baseline entry|baseline entry whose failure now passes/,
        /delete the named line|names the line to delete/,
        /lockstep: 'error'/,
        /surface difference/,
        /mcp-surface\.json/,
      ],
      '2': [/usage or config error/, /bad baseline file/],
      '3': [/not measured \(infrastructure\)/, /no failure/],
      '130': [/interrupted/],
    };
    for (const [code, words] of Object.entries(causes)) {
      const helpLines = (codes.split(/\n(?= {2}\d)/).find((l) => new RegExp(`^ {2}${code} `).test(l)) ?? codes).replace(/\s+/g, ' ');
      for (const w of words) {
        expect(rows.get(code), `README exit ${code}: ${w}`).toMatch(w);
        expect(helpLines, `help exit ${code}: ${w}`).toMatch(w);
      }
    }
  });
});
