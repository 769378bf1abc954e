// The README's quick start, exactly as written, on a scratch stdio-only SDK 1.x server package: install
// (the packed harness stands in for the git URL), init, run. The first run must pass every configured
// phase, and nothing may wait for a timeout. Then the same with a server that has an HTTP transport. The install from
// a git URL is quickstart-git.test.ts: the suite's longest test, in a file of its own so that the pool runs it beside
// these instead of after them.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { ROOT } from './helpers/cli.js';
import { harnessTarball } from './helpers/harness-tarball.js';
import { writeScratchServer } from './helpers/scratch-server.js';
import { sh as shell, type ShellOutcome } from './helpers/shell.js';
import { conformanceWarm } from '../helpers/warm-up.js';

let work: string;
let tarball: string;

/** A quick start's test (an install, init's cells and a run: ~75-195 s at load 20-40): a hang guard, not a speed check. */
const GUARD = { timeout: 600_000 };

/**
 * As on the laptop the README speaks to: no CI in the environment, so `run` takes the resolution `init` made minutes
 * before (the reuse window). `timeoutMs` is a hang guard, not a speed check.
 */
const sh = (command: string, cwd: string, timeoutMs?: number): Promise<ShellOutcome> =>
  shell(command, cwd, path.join(work, 'tmp'), timeoutMs, { CI: undefined });

/** The commands of the README's quick start block, comments dropped. */
async function quickStart(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'mm-quickstart-'));
  await mkdir(path.join(work, 'tmp'));
  // `npm test` has just built dist: packed without running prepare again, once per run (helpers/harness-tarball.ts).
  tarball = (await harnessTarball(work)).tarball;
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function phases(run: RunResult): string[] {
  return run.cells.flatMap((c) =>
    c.phases.map((p) => `${c.id} ${p.phase}: ${p.verdict}${p.verdict === 'skipped' ? ` (${p.message})` : ''}`),
  );
}

describe("the README's quick start", () => {
  test('is three commands: install, init, run', async () => {
    const steps = await quickStart();
    expect(steps).toHaveLength(3);
    expect(steps[0]).toMatch(/^npm install --save-dev github:<owner>\/mcp-matrix$/);
    expect(steps[1]).toBe('npx mcp-matrix init');
    expect(steps[2]).toBe('npx mcp-matrix run');
  });

  test('on a stdio-only server package: the first run passes every configured phase, no timeout', GUARD, async () => {
    const pkg = await writeScratchServer(path.join(work, 'stdio'));
    const [install, init, run] = (await quickStart()).map((s) => s.replace('github:<owner>/mcp-matrix', JSON.stringify(tarball)));

    const installed = await sh(install!, pkg);
    expect(installed.code, installed.stderr).toBe(0);

    const inited = await sh(init!, pkg);
    expect(inited.code, inited.stderr).toBe(0);
    expect(inited.stdout).toContain('  tools: (2) shout, count_notes');
    expect(inited.stdout).toContain('  resource templates: (1) note');
    expect(inited.stdout).toContain('  prompts: (1) summarize');
    expect(inited.stdout).toContain('cells: floor@1 → 1.23.0 (lower supported boundary (1.x)), latest@1 →');
    const config = await readFile(path.join(pkg, 'matrix.config.ts'), 'utf8');
    expect(config).toContain("tools: ['shout', 'count_notes'],");
    expect(config).toContain("// { tool: 'shout', arguments: { text: 'example' }, expect: { text: 'TODO: a part of the answer' } },");
    expect(config).toContain(
      "// { resource: 'scratch://notes/example', expect: { text: 'TODO: a part of the contents' } },  // from scratch://notes/{id}",
    );
    expect(config).toContain("// { prompt: 'summarize', arguments: { id: 'example' }, expect: { messages: 1 } },");
    expect(config).toContain('  http: false,\n  bind: false,');

    const first = await sh(run!, pkg);
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const results = JSON.parse(await readFile(path.join(pkg, 'matrix-results/results.json'), 'utf8')) as RunResult;
    expect(results.verdict).toBe('passed');
    expect(phases(results)).toEqual(
      ['floor-1', 'latest-1'].flatMap((id) => [
        `${id} environment: passed`,
        `${id} stdio: passed`,
        `${id} http: skipped (disabled)`,
        `${id} bind: skipped (disabled)`,
        `${id} conformance: skipped (no http phase)`,
        `${id} leaks: passed`,
      ]),
    );
    expect(`${first.stdout}${first.stderr}`).not.toMatch(/timed out|still running/);
    // Printed commands start mcp-matrix the way the user did.
    expect(results.cells.map((c) => c.repro)).toEqual(['npx mcp-matrix run --cell floor-1', 'npx mcp-matrix run --cell latest-1']);
    // A second init refuses to overwrite.
    const again = await sh(init!, pkg);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('refusing to overwrite matrix.config.ts and .github/workflows/mcp-matrix.yml');
  });

  test('on a server with an HTTP transport, given its invocation: http, bind and conformance pass too', GUARD, async () => {
    const pkg = await writeScratchServer(path.join(work, 'http'), { http: true });
    const [install, , run] = (await quickStart()).map((s) => s.replace('github:<owner>/mcp-matrix', JSON.stringify(tarball)));
    expect((await sh(install!, pkg)).code).toBe(0);
    const inited = await sh(
      `npx mcp-matrix init --http "--transport web --listen {host} --port {port}" --http-env NOTES_TOKEN={token}`,
      pkg,
    );
    expect(inited.code, inited.stderr).toBe(0);
    expect(inited.stdout).toContain('  http: 401 without and with a wrong token, a full round trip with it');
    // Its conformance phase (on by default) takes the suite the run's warm-up may be installing (test/helpers/warm-up.ts).
    await conformanceWarm();
    const first = await sh(`${run!} --cell latest-1`, pkg);
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const results = JSON.parse(await readFile(path.join(pkg, 'matrix-results/results.json'), 'utf8')) as RunResult;
    expect(phases(results)).toEqual([
      'latest-1 environment: passed',
      'latest-1 stdio: passed',
      'latest-1 http: passed',
      'latest-1 bind: passed',
      // The official conformance suite, on by default with http (the quick start's own conditions).
      'latest-1 conformance: passed',
      'latest-1 leaks: passed',
    ]);
  });
});
