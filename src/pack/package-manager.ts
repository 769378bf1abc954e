// Which package manager a package is published with, the one place that decides it (pack, init's workflow,
// `mcp-matrix github detect`): the `packageManager` field nearest the package, else the nearest lockfile, each
// looked for in the package's directory and its parents up to the git root; npm when neither says.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fail, ok, type Result } from '../util/result.js';

export type PackageManagerName = 'npm' | 'pnpm' | 'yarn';

export interface PackageManager {
  name: PackageManagerName;
  /** The exact version the `packageManager` field names (its `+sha…` hash dropped); absent when none does. */
  version?: string;
  /** What decided: the field (in which package.json), the lockfile, or nothing (npm). */
  from: { kind: 'packageManager'; file: string } | { kind: 'lockfile'; file: string } | { kind: 'default' };
  /** The package manager's lockfile nearest the package, absolute; absent when there is none. */
  lockfile?: string;
  /** Yarn 2+ (Berry): a version >= 2, a .yarnrc.yml or a Berry lockfile. */
  yarnBerry: boolean;
  /** Yarn Plug'n'Play: Berry without `nodeLinker: node-modules` (or `pnpm`), or a .pnp.cjs beside the lockfile. */
  pnp: boolean;
  /** The git root (the package's directory outside git): where the search stops. */
  root: string;
}

const LOCKFILES: [string, PackageManagerName][] = [
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

/** `dir`, then each parent up to and including `root` (only `dir` when it is outside `root`). */
function upTo(dir: string, root: string): string[] {
  const dirs: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    dirs.push(at);
    if (at === root || path.dirname(at) === at || !at.startsWith(root)) return dirs;
  }
}

/** `pnpm@9.15.0+sha512.abc` → pnpm, 9.15.0; corepack's own form. */
export function parsePackageManagerField(value: string): { name: PackageManagerName; version: string } | undefined {
  const match = /^(npm|pnpm|yarn)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+.*)?$/.exec(value.trim());
  return match ? { name: match[1] as PackageManagerName, version: match[2]! } : undefined;
}

export function detectPackageManager(dir: string): Result<PackageManager> {
  const root = gitRoot(dir);
  const dirs = upTo(dir, root);
  let field: { name: PackageManagerName; version: string; file: string } | undefined;
  for (const at of dirs) {
    const file = path.join(at, 'package.json');
    let value: unknown;
    try {
      value = (JSON.parse(readFileSync(file, 'utf8')) as { packageManager?: unknown }).packageManager;
    } catch {
      continue; // no package.json here (or not JSON: the package's own load reports that)
    }
    if (value === undefined) continue;
    const parsed = typeof value === 'string' ? parsePackageManagerField(value) : undefined;
    if (!parsed)
      return fail(
        'usage',
        `${file}: packageManager is ${JSON.stringify(value)}; it must be <npm|pnpm|yarn>@<exact version> (as corepack reads it), e.g. "pnpm@10.34.9"`,
      );
    field = { ...parsed, file };
    break;
  }
  const lock = dirs
    .flatMap((at) => LOCKFILES.filter(([, pm]) => !field || pm === field.name).map(([name, pm]) => [path.join(at, name), pm] as const))
    .find(([file]) => existsSync(file));
  const name = field?.name ?? lock?.[1] ?? 'npm';
  const lockfile = lock?.[0];
  const lockDir = lockfile ? path.dirname(lockfile) : field ? path.dirname(field.file) : path.resolve(dir);
  const yarnrc = readText(path.join(lockDir, '.yarnrc.yml'));
  const yarnBerry =
    name === 'yarn' &&
    (field ? Number(field.version.split('.')[0]) >= 2 : yarnrc !== undefined || /^__metadata:/m.test(readText(lockfile) ?? ''));
  const linker = /^nodeLinker:\s*["']?([\w-]+)/m.exec(yarnrc ?? '')?.[1];
  const pnp = yarnBerry && (existsSync(path.join(lockDir, '.pnp.cjs')) || linker === undefined || linker === 'pnp');
  return ok({
    name,
    ...(field ? { version: field.version } : {}),
    from: field ? { kind: 'packageManager', file: field.file } : lock ? { kind: 'lockfile', file: lock[0] } : { kind: 'default' },
    ...(lockfile ? { lockfile } : {}),
    yarnBerry,
    pnp,
    root,
  });
}

function readText(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** How the detection reads in a message: `pnpm (packageManager in package.json)`. */
export function describeDetection(pm: PackageManager): string {
  const rel = (file: string) => path.relative(pm.root, file).split(path.sep).join('/') || file;
  const why =
    pm.from.kind === 'packageManager'
      ? `packageManager in ${rel(pm.from.file)}`
      : pm.from.kind === 'lockfile'
        ? `${rel(pm.from.file)}`
        : 'no packageManager field or lockfile';
  return `${pm.name}${pm.version ? `@${pm.version}` : ''} (${why})`;
}
