// `mcp-matrix plan` against the real registry: the declared SDK ranges and the cells must move together.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exec } from './helpers/shell.js';
import { cli, CONFIG_WINDOW, readResults, writeConfig } from './helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/mcp-matrix.js');

const plan = (args: string[], cwd = ROOT) => exec(process.execPath, [BIN, 'plan', ...args], cwd, {}, 120_000);

/** How many times `needle` occurs in `text`. */
const count = (text: string, needle: string): number => text.split(needle).length - 1;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-lockstep-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function config(name: string, cells: string, extra = ''): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    `import { defineConfig } from ${JSON.stringify(path.join(ROOT, 'src/index.ts'))};
export default defineConfig({ package: ${JSON.stringify(path.join(ROOT, 'fixtures/reference-server'))}, cells: ${cells}${extra} });
`,
  );
  return file;
}

describe('mcp-matrix plan: lockstep', () => {
  test('a floor cell above the declared floor: exit 1, the message names the declared floor', async () => {
    const file = await config('floor.config.ts', `[{ pin: '1.24.0' }, { pin: 'latest@1' }, { pin: 'floor@2' }, { pin: 'latest@2' }]`);
    const r = await plan(['--config', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'lockstep error: the declared range ">=1.23.0 <2" admits @modelcontextprotocol/sdk@1.23.0, but no cell pins it (lowest cell: 1.24.0); add a floor@1 cell or raise the range',
    );
    // Once (issue 10: "plan errors are printed twice").
    expect(count(r.stdout + r.stderr, 'admits @modelcontextprotocol/sdk@1.23.0')).toBe(1);
  });

  test('no cell for a declared major: exit 1, the message names the major', async () => {
    const file = await config('major.config.ts', `[{ pin: 'floor@1' }, { pin: 'latest@1' }]`);
    const r = await plan(['--config', file, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /lockstep error: the declared range ">=2\.0\.0 <3" on @modelcontextprotocol\/server admits major 2 \(2\.0\.0 … [\d.]+\), but no cell covers it; add cells floor@2 and latest@2/,
    );
  });

  test("the project's own config: exit 0, no lockstep finding", async () => {
    const r = await plan([]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('lockstep');
    expect(r.stdout).toContain('4 cell(s)');
  });

  const FOUR = `[{ pin: 'floor@1' }, { pin: 'latest@1' }, { pin: 'floor@2' }, { pin: 'latest@2' }]`;

  test('engines.node against the Node axis: the floor release not run and uncovered majors named, exit 1', async () => {
    // The reference server declares engines.node ">=20.19".
    const file = await config('node.config.ts', FOUR, ', node: [20, 22]');
    const r = await plan(['--config', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /lockstep error: engines\.node ">=20\.19" admits Node 20\.19\.0, but no variant runs it \(lowest: 20\.\d+\.\d+\); add node '20\.19\.0' or raise engines\.node/,
    );
    expect(r.stderr).toMatch(
      /lockstep error: engines\.node ">=20\.19" admits Node 24, 26(, \d+)*, but no variant runs them; add 24, 26(, \d+)* to "node"/,
    );
  });

  test('the floor release and every admitted even major: no engines finding', async () => {
    const file = await config('node-full.config.ts', FOUR, ", node: ['20.19.0', 22, 24, 26]");
    const r = await plan(['--config', file]);
    expect(r.stderr).not.toContain('engines.node');
    expect(r.code).toBe(0);
  });
});

describe('mcp-matrix run: lockstep', () => {
  // Issue 10: "plan errors are printed twice": once when the plan resolved, again among the run's warnings at the end.
  test('a lockstep error is printed once, kept in results.json, and fails the run (exit 1)', async () => {
    const out = path.join(dir, 'run-out');
    const file = await writeConfig(
      dir,
      `{ package: ${JSON.stringify(path.join(ROOT, 'fixtures/broken/_base'))}, cells: [{ pin: 'latest@1' }], stdio: {}, http: false, bind: false, leaks: { graceMs: 3000 } }`,
    );
    // The registry's versions are the subject: the config's own reuse window, not the suite's week.
    const r = await cli(['run', '--config', file, '--out', out, '--progress', 'simple'], { env: CONFIG_WINDOW, timeoutMs: 240_000 });
    const finding = 'admits @modelcontextprotocol/sdk@1.23.0, but no cell pins it (lowest cell: ';
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(count(r.stdout + r.stderr, finding), r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^lockstep error: the declared range ">=1\.23\.0 <2" admits/m);
    const results = await readResults(out);
    expect(results.verdict).toBe('failed');
    expect(results.cells.map((c) => c.verdict)).toEqual(['passed']);
    expect(results.lockstepErrors?.map((e) => e.includes(finding))).toEqual([true]);
  }, 300_000);
});
