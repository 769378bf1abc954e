// Where init's workflow goes and how it installs: GitHub reads workflows only from the git root, so a monorepo package
// gets its workflow there with a working directory; package manager, lockfile and Node come from the package.
import path from 'node:path';
import { detectPackageManager, type PackageManagerName } from '../../pack/package-manager.js';
import { ok, type Result } from '../../util/result.js';

export { gitRoot } from '../../pack/package-manager.js';

export interface WorkflowRepo {
  /** The package's directory relative to the git root, POSIX separators; `.` at the root. */
  workingDirectory: string;
  pm: PackageManagerName;
  /** The version `packageManager` names (pnpm/action-setup needs one); absent when the field names none. */
  pmVersion?: string;
  /** The package.json holding that field, relative to the git root (pnpm/action-setup reads it there). */
  pmField?: string;
  /** Yarn 2+ (a .yarnrc.yml beside the lockfile): `--immutable`, and `yarn pack --out`. */
  yarnBerry: boolean;
  /** Yarn Plug'n'Play (src/pack/package-manager.ts); absent otherwise. */
  pnp?: true;
  /** The lockfile relative to the git root (for the cache key); absent without one (npm install, not ci). */
  lockfile?: string;
  /** The package declares engines.node: setup-node reads it (node-version-file: package.json). */
  engines: boolean;
}

/** The package manager and lockfile (src/pack/package-manager.ts), as init's workflow needs them. */
export function detectRepo(cwd: string, engines: boolean): Result<{ root: string; repo: WorkflowRepo }> {
  const found = detectPackageManager(cwd);
  if (!found.ok) return found;
  const { root, name, version, yarnBerry, pnp, lockfile, from } = found.value;
  const posix = (p: string) => p.split(path.sep).join('/');
  const workingDirectory = posix(path.relative(root, path.resolve(cwd))) || '.';
  return ok({
    root,
    repo: {
      workingDirectory,
      pm: name,
      ...(version ? { pmVersion: version } : {}),
      ...(version && from.kind === 'packageManager' ? { pmField: posix(path.relative(root, from.file)) } : {}),
      yarnBerry,
      ...(pnp ? { pnp } : {}),
      ...(lockfile ? { lockfile: posix(path.relative(root, lockfile)) } : {}),
      engines,
    },
  });
}

/** `.github/workflows/mcp-matrix.yml` at the root; `mcp-matrix-<dir>.yml` for a subpackage (several may have one). */
export function workflowFileFor(repo: Pick<WorkflowRepo, 'workingDirectory'>): string {
  const name = repo.workingDirectory === '.' ? 'mcp-matrix' : `mcp-matrix-${repo.workingDirectory.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
  return path.join('.github', 'workflows', `${name}.yml`);
}
