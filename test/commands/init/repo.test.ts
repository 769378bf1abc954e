// Where init's workflow goes and how it installs: git root, lockfile, package manager, engines.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectRepo, gitRoot, workflowFileFor } from '../../../src/commands/init/repo.js';
import { actionlint } from '../../helpers/actionlint.js';
import { renderWorkflow } from '../../../src/commands/init/workflow-template.js';
import { ACTIONS } from '../../../src/commands/init/actions.js';
import { PNPM_VERSION } from '../../../src/pack/pm-tool.js';

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

  it('a packageManager field: its version and the package.json holding it (pnpm/action-setup reads that file)', () => {
    const root = tree({
      '.git/': '',
      'pnpm-lock.yaml': '',
      'package.json': '{"packageManager":"pnpm@9.15.0+sha512.abc"}',
      'packages/server/package.json': '{}',
    });
    expect(repoOf(path.join(root, 'packages/server'), false)).toMatchObject({ pm: 'pnpm', pmVersion: '9.15.0', pmField: 'package.json' });
  });

  it('yarn 2+ (a .yarnrc.yml beside yarn.lock); a worktree (.git is a file); no lockfile: npm install', () => {
    const berry = tree({ '.git': 'gitdir: /elsewhere', 'yarn.lock': '', '.yarnrc.yml': '', 'package.json': '{}' });
    expect(repoOf(berry, false)).toMatchObject({ pm: 'yarn', yarnBerry: true, pnp: true, lockfile: 'yarn.lock' });
    const linked = tree({ '.git/': '', 'yarn.lock': '', '.yarnrc.yml': 'nodeLinker: node-modules\n', 'package.json': '{}' });
    expect(repoOf(linked, false)).not.toHaveProperty('pnp');
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
    expect(await actionlint(yaml, 'mcp-matrix.yml')).toEqual([]);
  });

  it('installs with the lockfile’s package manager, where the lockfile is; pnpm’s version; builds and packs by it; Node from engines’ floor', () => {
    const pnpm = renderWorkflow(shapes['pnpm monorepo member']);
    // No packageManager field: init's pin, said so; detect is told the same version.
    expect(pnpm).toContain(
      `      - uses: ${ACTIONS.pnpm}\n        with:\n          version: ${PNPM_VERSION}\n      - uses: ${ACTIONS.setupNode}\n`,
    );
    expect(pnpm).toContain(`pnpm exec mcp-matrix detect --pnpm-version ${PNPM_VERSION})`);
    expect(pnpm).toContain('      - run: pnpm install --frozen-lockfile\n        working-directory: .\n');
    expect(pnpm).toContain('          node-version: ${{ matrix.node || needs.plan.outputs.node-version }}\n          cache: pnpm\n');
    expect(pnpm).toContain('then pnpm run build; fi');
    expect(pnpm).toContain('      - run: pnpm exec mcp-matrix pack --plan plan.json --out package-tarball\n');
    // The field's file named (a subpackage's field counts), no version beside it.
    const field = renderWorkflow({ ...shapes['pnpm monorepo member'], pmVersion: '9.15.0', pmField: 'packages/server/package.json' });
    expect(field).toContain(`      - uses: ${ACTIONS.pnpm}\n        with:\n          package_json_file: packages/server/package.json\n`);
    expect(field).not.toContain('          version:');
    expect(field).toContain('found="$(pnpm exec mcp-matrix detect)"');
    expect(pnpm).toContain('path: packages/server/cell-results/\n');
    const berry = renderWorkflow(shapes['yarn berry in a subdirectory']);
    expect(berry).toContain('      - run: corepack enable\n');
    expect(berry).toContain('          cache: yarn\n          cache-dependency-path: mcp/yarn.lock\n');
    expect(berry).toContain('yarn install --immutable');
    expect(berry).toContain('yarn mcp-matrix pack --plan plan.json');
    expect(berry).toContain('then yarn run build; fi');
    expect(berry).toContain('yarn mcp-matrix run --plan plan.json');
    const bare = renderWorkflow(shapes['npm, no lockfile, engines']);
    expect(bare).toContain('      - run: npm install\n');
    // No lockfile: none demanded (pnpm and Yarn 2+ refuse a frozen install without one in CI).
    const { lockfile: _pnpmLock, ...pnpmBare } = shapes['pnpm monorepo member'];
    expect(renderWorkflow(pnpmBare)).toContain('      - run: pnpm install --no-frozen-lockfile\n');
    const { lockfile: _berryLock, ...berryBare } = shapes['yarn berry in a subdirectory'];
    expect(renderWorkflow(berryBare)).toContain('      - run: yarn install --no-immutable\n');
    expect(bare).not.toContain('cache: npm');
    expect(renderWorkflow()).toContain('          node-version: lts/*\n          cache: npm\n');
    expect(renderWorkflow()).toContain('          node-version: ${{ needs.plan.outputs.node-version }}\n          cache: npm\n');
  });
});
