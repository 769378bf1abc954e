// Where init's workflow goes and how it installs: GitHub reads workflows only from the git root's
// .github/workflows, so a package in a monorepo gets its workflow there with a working directory; the
// package manager comes from the lockfile nearest the package (up to the git root); the Node version
// from the package's `engines.node` when it declares one.
import { existsSync } from 'node:fs';
import path from 'node:path';

export type PackageManager = 'npm' | 'pnpm' | 'yarn';

export interface WorkflowRepo {
  /** The package's directory relative to the git root, POSIX separators; `.` at the root. */
  workingDirectory: string;
  pm: PackageManager;
  /** Yarn 2+ (a .yarnrc.yml beside the lockfile): `--immutable`, and `yarn pack --out`. */
  yarnBerry: boolean;
  /** The lockfile relative to the git root (for the cache key); absent without one (npm install, not ci). */
  lockfile?: string;
  /** The package declares engines.node: setup-node reads it (node-version-file: package.json). */
  engines: boolean;
}

const LOCKFILES: [string, PackageManager][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

/** The nearest directory holding `.git` (a directory, or a file in a worktree); `cwd` itself without one. */
export function gitRoot(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(cwd);
  }
}

export function detectRepo(cwd: string, engines: boolean): { root: string; repo: WorkflowRepo } {
  const root = gitRoot(cwd);
  const posix = (p: string) => p.split(path.sep).join('/');
  const workingDirectory = posix(path.relative(root, path.resolve(cwd))) || '.';
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const found = LOCKFILES.find(([file]) => existsSync(path.join(dir, file)));
    if (found) {
      const lockfile = posix(path.relative(root, path.join(dir, found[0])));
      const yarnBerry = found[1] === 'yarn' && existsSync(path.join(dir, '.yarnrc.yml'));
      return { root, repo: { workingDirectory, pm: found[1], yarnBerry, lockfile, engines } };
    }
    if (dir === root || path.dirname(dir) === dir) break;
  }
  return { root, repo: { workingDirectory, pm: 'npm', yarnBerry: false, engines } };
}

/** `.github/workflows/mcp-matrix.yml` at the root; `mcp-matrix-<dir>.yml` for a subpackage (several may have one). */
export function workflowFileFor(repo: Pick<WorkflowRepo, 'workingDirectory'>): string {
  const name = repo.workingDirectory === '.' ? 'mcp-matrix' : `mcp-matrix-${repo.workingDirectory.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
  return path.join('.github', 'workflows', `${name}.yml`);
}
