// A fixture's package packed once for fixture-cell.ts's runs (RunCoreOptions.pack): the harness's own packDirectory, its
// tarball kept a week in the test caches by the content of the files git would commit (ignored build output left out),
// npm's release, Node's and the harness's pack code; each run gets a copy. A package outside the repository packs anew.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { DirectoryPacker } from '../../../src/pack/pack.js';
import { TEST_CACHE_ROOT } from '../../helpers/node-runtimes.js';
import { ROOT } from './cli.js';
import { harness } from './fixture-harness.js';

const KEPT = path.join(TEST_CACHE_ROOT, 'fixture-tarballs');
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;

/** The npm on PATH's package.json (its release decides what `npm pack` puts in the tarball). */
function npmRelease(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const bin = path.join(dir, 'npm');
    if (!existsSync(bin)) continue;
    for (let at = path.dirname(realpathSync(bin)); at !== path.dirname(at); at = path.dirname(at)) {
      const manifest = path.join(at, 'package.json');
      if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'npm')
        return readFileSync(manifest, 'utf8');
    }
  }
  return 'npm not found';
}

/** The key of `dir`'s tarball, or undefined when git does not know the directory (a package made by the test). */
function keyOf(dir: string): string | undefined {
  let listed: string;
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
  if (!path.resolve(dir).startsWith(path.resolve(ROOT) + path.sep)) return undefined;
  const hash = createHash('sha256').update(`${process.version}\0${npmRelease()}`);
  for (const file of listed.split('\0').filter(Boolean).sort()) {
    hash.update(`\0${file}\0`);
    hash.update(existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file)) : '\0deleted');
  }
  const code = path.join(ROOT, 'dist', 'pack');
  for (const file of readdirSync(code).sort()) hash.update(`\0${file}\0`).update(readFileSync(path.join(code, file)));
  return hash.digest('hex').slice(0, 24);
}

/** The kept tarball of `key`, when there is one younger than a week. */
function kept(key: string): string | undefined {
  const dir = path.join(KEPT, key);
  try {
    const file = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    return file && Date.now() - statSync(path.join(dir, file)).mtimeMs <= KEEP_MS ? path.join(dir, file) : undefined;
  } catch {
    return undefined;
  }
}

export const packOnce: DirectoryPacker = async (dir, destination, signal, options) => {
  const h = await harness();
  const key = process.env.MM_TEST_TREE_CACHE === 'off' ? undefined : keyOf(dir);
  const have = key ? kept(key) : undefined;
  if (have) {
    const file = path.join(destination, path.basename(have));
    await copyFile(have, file);
    return h.fingerprint(file);
  }
  const packed = await h.packDirectory(dir, destination, signal, options);
  if (packed.ok && key) {
    // Renamed into place (over a tarball kept more than a week ago): another run reads the whole tarball or none.
    const name = path.basename(packed.value.file);
    const partial = path.join(KEPT, key, `.${name}.${process.pid}`);
    await mkdir(path.dirname(partial), { recursive: true });
    await copyFile(packed.value.file, partial);
    await rename(partial, path.join(KEPT, key, name));
  }
  return packed;
};
