// The README's quick start installs mcp-matrix from a git URL: npm clones the repository, installs every
// devDependency, runs prepare (the build), packs and installs the result; npx then finds the CLI. The suite's
// longest test (a whole devDependency install and a build), so it has a file of its own: the pool runs it beside
// the rest of the quick start (quickstart.test.ts) instead of after it.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { writeScratchServer } from './helpers/scratch-server.js';
import { sh as shell, type ShellOutcome } from './helpers/shell.js';

let work: string;

/** `timeoutMs` is a hang guard, not a speed check. */
const sh = (command: string, cwd: string, timeoutMs?: number): Promise<ShellOutcome> =>
  shell(command, cwd, path.join(work, 'tmp'), timeoutMs);

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'mm-quickstart-git-'));
  await mkdir(path.join(work, 'tmp'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the README's quick start", () => {
  test('installs from a git URL: the prepare script builds it there, and npx mcp-matrix runs it', { timeout: 1_260_000 }, async () => {
    // A bare clone of this repository's committed HEAD stands in for github:<owner>/mcp-matrix (same npm path: clone,
    // install its dependencies including devDependencies, run prepare, pack, install the packed result).
    const repo = path.join(work, 'mcp-matrix.git');
    expect((await sh(`git clone -q --bare --depth 1 ${JSON.stringify(`file://${ROOT}`)} ${JSON.stringify(repo)}`, work)).code).toBe(0);
    const app = await writeScratchServer(path.join(work, 'git'));
    // Every devDependency and a build: 80-320 s in the clean-clone CIs, 726 s in one at heavy load (session 10), and one
    // at load ~43 met the old 840 s bound. A hang guard, with the test's own bound above it.
    const installed = await sh(`npm install --save-dev --no-audit --no-fund git+file://${repo}`, app, 1_200_000);
    expect(installed.code, installed.stderr).toBe(0);
    const version = await sh('npx mcp-matrix --version', app);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^mcp-matrix\/\d+\.\d+\.\d+/);
    const help = await sh('npx mcp-matrix help init', app);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--http <args>');
  });
});
