// Published MCP server tarballs, fetched with `npm pack <name>@<version>` once into one cache shared by
// every run on this machine (keyed by name@version, checked against the registry's integrity), so the
// published-server group downloads each package once and still works on a fresh machine.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { TEST_PUBLISHED_CACHE } from '../../helpers/node-runtimes.js';

/** Outside the harness's own `mcp-matrix-*` temp dirs, so leftover checks never count it. */
export const PUBLISHED_CACHE = process.env.MM_PUBLISHED_CACHE ?? TEST_PUBLISHED_CACHE;

function sri(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`npm ${args.join(' ')} failed: ${stderr.trim() || error.message}`)) : resolve(stdout),
    );
  });
}

async function cachedTarball(dir: string, integrity: string): Promise<string | undefined> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const tgz = files.find((f) => f.endsWith('.tgz'));
  if (!tgz) return undefined;
  const file = path.join(dir, tgz);
  return sri(await readFile(file)) === integrity ? file : undefined;
}

/** The registry tarball of `spec` (`name@version`), whose sha512 must equal `integrity`. */
export async function publishedTarball(spec: string, integrity: string): Promise<string> {
  const dir = path.join(PUBLISHED_CACHE, spec.replace('/', '+'));
  const hit = await cachedTarball(dir, integrity);
  if (hit) return hit;
  await mkdir(PUBLISHED_CACHE, { recursive: true });
  // Pack into a private dir, verify, then move it into place: a concurrent run never sees half a file.
  const staging = await mkdtemp(path.join(PUBLISHED_CACHE, '.staging-'));
  try {
    await npm(['pack', spec, '--pack-destination', staging, '--silent'], staging);
    const got = await cachedTarball(staging, integrity);
    if (!got) throw new Error(`npm pack ${spec}: the tarball is not the published one (integrity differs from ${integrity})`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir).catch(async (error: unknown) => {
      // Another run put it there first: use theirs if it is right.
      if (!(await cachedTarball(dir, integrity))) throw error;
    });
    const file = await cachedTarball(dir, integrity);
    if (!file) throw new Error(`${spec}: the cached tarball vanished from ${dir}`);
    return file;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
