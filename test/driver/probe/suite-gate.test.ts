// The suite gate's framing, on a real process: a scenario's stderr reaches the driver on stdout, before the frame
// that ends the scenario, so it can never be read as the next scenario's output (stderr is another pipe).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeDir, tempDir } from '../helpers/cell.js';

let dir = '';
beforeAll(async () => {
  dir = tempDir('mm-suite-gate-');
  await build({
    entryPoints: [join(ROOT, 'src/driver/probe/suite-gate.ts')],
    outdir: dir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  // A stand-in suite CLI: its arguments name what it prints and how it exits.
  writeFileSync(
    join(dir, 'cli.mjs'),
    'const [name] = process.argv.slice(2);\nconsole.error(`${name} err`);\nprocess.stderr.write(`${name} raw\\n`);\nconsole.log(`${name} out`);\nprocess.exit(3);\n',
  );
}, 60_000);
afterAll(() => removeDir(dir));

function gate(scenarios: string[][]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const frame = 'F0';
  const child = spawn(process.execPath, ['--import', join(dir, 'suite-gate.js'), join(dir, 'cli.mjs')], {
    env: { PATH: process.env.PATH, MCP_MATRIX_SUITE_FRAME: frame },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(scenarios.map((a) => `${JSON.stringify(a)}\n`).join(''));
  return new Promise((resolve) => child.on('close', (code) => resolve({ stdout, stderr, code })));
}

describe('the suite gate', () => {
  it("a scenario's stderr (console.error, process.stderr.write) is framed with its stdout, in order, before its exit", async () => {
    const { stdout, stderr } = await gate([['one'], ['two']]);
    expect(stderr).toBe('');
    expect(stdout).toBe('one err\none raw\none out\n\nF0 exit 3\n\nF0 next\ntwo err\ntwo raw\ntwo out\n\nF0 exit 3\n\nF0 next\n');
  }, 30_000);
});
