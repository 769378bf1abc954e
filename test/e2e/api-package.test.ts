// The typed API as a user meets it: this repository packed (`npm pack`), the tarball installed into a fresh
// directory from the registry, and the README's example (between its api-example markers) run exactly as
// written, against a server package at ./my-server (fixtures/broken/_base: a correct server). The test reads
// the example's exported result; TypeScript compiles a user's file against the installed package's types.
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './helpers/cli.js';
import { harnessTarball } from './helpers/harness-tarball.js';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', CI: 'true' },
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** The README's example, as written. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- api-example:begin -->\n```js\n([\s\S]*?)```\n<!-- api-example:end -->/.exec(readme);
  if (!block) throw new Error('README.md has no api-example block');
  return block[1]!;
}

let dir: string;
let app: string;
let example: Ran;

beforeAll(async () => {
  dir = await tempDir('mm-api-package-');
  app = path.join(dir, 'app');
  await mkdir(app);
  // The built package (npm test builds first): packed without running prepare again, once per run.
  const { tarball } = await harnessTarball(dir);
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'api-user', private: true, type: 'module' }));
  const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
  expect(installed.code, installed.stderr).toBe(0);
  const server = path.join(ROOT, 'fixtures/broken/_base');
  await mkdir(path.join(app, 'my-server'));
  for (const f of ['package.json', 'bin']) await cp(path.join(server, f), path.join(app, 'my-server', f), { recursive: true });
  await writeFile(path.join(app, 'example.mjs'), await readmeExample());
  // The user's script: the example's exported result, as JSON.
  await writeFile(
    path.join(app, 'check.mjs'),
    "const { result } = await import('./example.mjs');\nconsole.log(`RESULT ${JSON.stringify(result)}`);\n",
  );
  example = await run(process.execPath, ['check.mjs'], app);
}, 600_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the package as a user installs it', () => {
  it("the README's example runs as written: one cell on a real server, a typed passing run and the reports", async () => {
    expect(example.code, example.stderr).toBe(0);
    const line = example.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    expect(line, example.stdout + example.stderr).toBeDefined();
    const result = JSON.parse(line!.slice('RESULT '.length)) as {
      ok: boolean;
      exitCode: number;
      files: string[];
      run: { verdict: string; cells: { id: string; verdict: string; phases: { phase: string; verdict: string }[]; repro: string }[] };
    };
    expect(result.ok).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(result.run.verdict).toBe('passed');
    expect(result.run.cells.map((c) => [c.id, c.verdict, c.phases.map((p) => `${p.phase}:${p.verdict}`)])).toEqual([
      ['latest-1', 'passed', ['environment:passed', 'stdio:passed', 'http:skipped', 'bind:skipped', 'conformance:skipped', 'leaks:passed']],
    ]);
    // A repro line is the CLI's, not the user's script.
    expect(result.run.cells[0]!.repro).toMatch(/^npx mcp-matrix run --cell latest-1/);
    expect(result.files.map((f) => path.relative(app, f))).toEqual(
      ['results.json', 'matrix.md', 'matrix.html', 'matrix.sarif', 'junit.xml'].map((f) => path.join('matrix-results', f)),
    );
    // What the example printed: the cell, the files, and the stored run's SARIF rendered.
    expect(example.stdout).toMatch(/^latest-1 1\.\d+\.\d+ passed environment:passed stdio:passed http:skipped/m);
    expect(example.stdout).toMatch(/^true$/m);
    // The API printed nothing of its own: no progress, no table.
    expect(example.stdout).not.toMatch(/PASSED|\| Pin/);
    expect(example.stderr).toBe('');
    expect((await readdir(path.join(app, 'matrix-results'))).sort()).toEqual([
      'attestation.intoto.json',
      'junit.xml',
      'matrix.html',
      'matrix.md',
      'matrix.sarif',
      'results.json',
    ]);
  });

  it("TypeScript: a user's file type-checks against the installed package's types (and a wrong use does not)", async () => {
    await writeFile(
      path.join(app, 'typed.ts'),
      `import { loadResults, renderReport, runMatrix, type RunMatrixOutcome, type RunResult, type Verdict } from 'mcp-matrix';

const outcome: RunMatrixOutcome = await runMatrix({ config: { cells: [{ pin: 'latest@1' }], stdio: {} }, cells: ['latest-1'] });
if (outcome.ok) {
  const run: RunResult = outcome.run;
  const verdict: Verdict = run.cells[0]!.verdict;
  console.log(verdict, outcome.exitCode satisfies 0 | 1 | 2 | 3 | 130);
} else {
  const kind: 'usage' | 'infrastructure' = outcome.error.kind;
  console.log(kind, outcome.exitCode satisfies 2 | 3 | 130);
}
const loaded = await loadResults('matrix-results/results.json');
if (loaded.ok) console.log(await renderReport(loaded.run, 'sarif'));
// @ts-expect-error: not a report format
await renderReport({} as RunResult, 'pdf');
// @ts-expect-error: not an option
await runMatrix({ cell: 'latest-1' });
`,
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    const types = ['--typeRoots', path.join(ROOT, 'node_modules/@types'), '--types', 'node', '--skipLibCheck', 'false'];
    const checked = await run(process.execPath, [tsc, ...args, ...types, 'typed.ts'], app);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });
});
