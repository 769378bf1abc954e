// The edit loop's install (issue 34): on a reused tree whose resolution is fresh, the new tarball's files
// replace the package under test's with no npm run, laid out and recorded as npm would. Anything npm would do
// more (install scripts, bundled or nested dependencies, rewritten bins) is a reason to let npm do it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A package.json, read as it is. */
export type PackageJson = Record<string, unknown>;

export type Staged = { ok: true; dir: string; manifest: PackageJson; shrinkwrap?: string } | { ok: false; why: string };

/** Where the tarball is unpacked beside the cell (npm reads nothing under `.mcp-matrix/`). */
export function stagingDir(cellDir: string): string {
  return path.join(cellDir, '.mcp-matrix', 'swap');
}

/** The tarball unpacked beside the cell, its one top directory's manifest read (npm strips that directory too). */
export async function stagePackage(tarball: string, cellDir: string): Promise<Staged> {
  const dir = stagingDir(cellDir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    await exec('tar', ['-xzf', tarball, '-C', dir, '--no-same-owner']);
  } catch (error) {
    return { ok: false, why: `tar could not unpack the tarball (${(error as Error).message.split('\n')[0]})` };
  }
  const top = await readdir(dir, { withFileTypes: true });
  if (top.length !== 1 || !top[0]!.isDirectory()) return { ok: false, why: 'the tarball has no single top directory' };
  const pkg = path.join(dir, top[0]!.name);
  let manifest: PackageJson;
  try {
    manifest = JSON.parse(await readFile(path.join(pkg, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return { ok: false, why: 'the tarball has no readable package.json' };
  }
  const shrinkwrap = await readFile(path.join(pkg, 'npm-shrinkwrap.json'), 'utf8').catch(() => undefined);
  return { ok: true, dir: pkg, manifest, ...(shrinkwrap !== undefined ? { shrinkwrap } : {}) };
}

interface LockEntry {
  resolved?: string;
  integrity?: string;
  [field: string]: unknown;
}
interface Lock {
  packages?: Record<string, LockEntry & { dependencies?: Record<string, string> }>;
}

/** Why npm, not a swap, must install this package onto the tree (undefined: a swap lays it out as npm would). */
export function swapBlocker(staged: Extract<Staged, { ok: true }>, packageName: string, lockText: string): string | undefined {
  if (process.platform === 'win32') return 'npm makes the bin shims on Windows';
  const m = staged.manifest;
  const scripts = (m.scripts ?? {}) as Record<string, unknown>;
  const hook = ['preinstall', 'install', 'postinstall'].find((s) => scripts[s] !== undefined);
  if (hook) return `it has an install script (${hook})`;
  if (m.gypfile !== undefined || existsSync(path.join(staged.dir, 'binding.gyp'))) return 'it builds with node-gyp (binding.gyp)';
  if (m.bundleDependencies !== undefined || m.bundledDependencies !== undefined) return 'it bundles dependencies';
  if (staged.shrinkwrap !== undefined) return 'it has an npm-shrinkwrap.json';
  if ((m.directories as Record<string, unknown> | undefined)?.bin !== undefined) return 'its bins come from directories.bin';
  if (m.name !== packageName) return `the tarball's package is ${String(m.name)}, not ${packageName}`;
  let lock: Lock;
  try {
    lock = JSON.parse(lockText) as Lock;
  } catch {
    return 'the recorded lockfile is not JSON';
  }
  const own = `node_modules/${packageName}`;
  if (!lock.packages?.[own] || !lock.packages['']) return `the recorded lockfile has no ${own}`;
  if (Object.keys(lock.packages).some((k) => k.startsWith(`${own}/`))) return `npm installed dependencies inside ${own}`;
  const bins = binsOf(m);
  if (typeof bins === 'string') return bins;
  for (const [, file] of bins) {
    const abs = path.join(staged.dir, file);
    if (!existsSync(abs)) return undefined; // npm links nothing there either; the environment check names the missing bin
    const head = readFileSync(abs).subarray(0, 512).toString('latin1');
    if (head.startsWith('#!') && /^[^\n]*\r\n/.test(head)) return 'a bin has a CRLF shebang, which npm rewrites';
  }
  return otherThanFiles(staged.dir);
}

/** npm's own bin normalization for the names and paths the swap accepts: `[name, relative path]`, or why not. */
function binsOf(m: PackageJson): [string, string][] | string {
  const name = typeof m.name === 'string' ? m.name : '';
  const raw = typeof m.bin === 'string' ? { [name.replace(/^@[^/]+\//, '')]: m.bin } : ((m.bin ?? {}) as Record<string, unknown>);
  const out: [string, string][] = [];
  for (const [bin, file] of Object.entries(raw)) {
    if (typeof file !== 'string' || !/^[A-Za-z0-9._@+-]+$/.test(bin) || bin === '.' || bin === '..')
      return `its bin ${bin} is not a plain name`;
    const rel = path.posix.normalize(file.replace(/\\/g, '/')).replace(/^(\.\/)+/, '');
    if (rel.startsWith('/') || rel === '..' || rel.startsWith('../') || rel === '.') return `its bin ${bin} points outside the package`;
    out.push([bin, rel]);
  }
  return out;
}

/** npm drops links and special files from a tarball; a swap does not try to. */
function otherThanFiles(dir: string): string | undefined {
  const pending = [dir];
  for (let d = pending.pop(); d; d = pending.pop()) {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) pending.push(path.join(d, e.name));
      else if (!e.isFile()) return `the tarball holds ${path.relative(dir, path.join(d, e.name))}, neither a file nor a directory`;
    }
  }
  return undefined;
}

/** The tarball's sha512 in npm's integrity form. */
export async function integrityOf(file: string): Promise<string> {
  const hash = createHash('sha512');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest('base64')}`;
}

export interface SwapInput {
  cellDir: string;
  packageName: string;
  staged: Extract<Staged, { ok: true }>;
  /** The recorded lockfile (swapBlocker found nothing in it). */
  lockText: string;
  tarball: { file: string; sha512: string };
}

/**
 * Moves the staged package into `node_modules`, links its bins, and writes the lockfile with the package's entry
 * as npm writes it for this tarball. Undefined when done, else why not (the cell is then left for npm).
 */
export async function swapPackage(input: SwapInput): Promise<string | undefined> {
  const { cellDir, packageName, staged, tarball } = input;
  const integrity = await integrityOf(tarball.file);
  if (integrity !== tarball.sha512)
    return `the tarball's sha512 is not the packed one (${integrity.slice(0, 19)}… ≠ ${tarball.sha512.slice(0, 19)}…)`;
  const cellManifest = JSON.parse(await readFile(path.join(cellDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const spec = cellManifest.dependencies?.[packageName];
  if (!spec) return `the cell's package.json does not name ${packageName}`;
  const lock = JSON.parse(input.lockText) as Lock & { packages: NonNullable<Lock['packages']> };
  const own = `node_modules/${packageName}`;
  const root = lock.packages['']!;
  root.dependencies = { ...root.dependencies, [packageName]: spec };
  lock.packages[own] = { ...lock.packages[own], resolved: `file:${toPosix(path.relative(cellDir, tarball.file))}`, integrity };

  const modules = path.join(cellDir, 'node_modules');
  const target = path.join(modules, packageName);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(staged.dir, target);
  const bins = binsOf(staged.manifest) as [string, string][];
  if (bins.length > 0) await mkdir(path.join(modules, '.bin'), { recursive: true });
  for (const [bin, rel] of bins) {
    const file = path.join(target, rel);
    const st = await stat(file).catch(() => undefined);
    if (!st?.isFile()) continue;
    // npm's bin-links: the target made executable (0o777 less the umask), the link relative.
    await chmod(file, 0o777 & ~process.umask());
    await symlink(toPosix(path.relative(path.join(modules, '.bin'), file)), path.join(modules, '.bin', bin));
  }
  await writeFile(path.join(cellDir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  return undefined;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
