// What the package under test declares: name, version, bins and its SDK ranges.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';
import type { SdkClaim } from './sdk-claim.js';

export interface PackageInfo {
  name: string;
  version: string;
  bins: Record<string, string>;
  /** Declared ranges by dependency name, peerDependencies first, then dependencies. */
  ranges: Record<string, string>;
  /** `engines.node`, when declared. */
  nodeRange?: string;
  /** The range claimed on each major's primary, declared or through a dependency (the plan's; absent in a thawed plan). */
  sdkClaims?: Record<string, SdkClaim>;
}

export interface RawManifest {
  name?: string;
  version?: string;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: { node?: unknown };
}

export function manifestInfo(raw: RawManifest): PackageInfo {
  const name = raw.name ?? '';
  const bins = typeof raw.bin === 'string' ? { [name.replace(/^@[^/]+\//, '')]: raw.bin } : (raw.bin ?? {});
  const nodeRange = typeof raw.engines?.node === 'string' ? raw.engines.node : undefined;
  return {
    name,
    version: raw.version ?? '0.0.0',
    bins,
    ranges: { ...raw.dependencies, ...raw.peerDependencies },
    ...(nodeRange ? { nodeRange } : {}),
  };
}

export async function readPackageDir(dir: string): Promise<Result<PackageInfo>> {
  try {
    return ok(manifestInfo(JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as RawManifest));
  } catch (error) {
    return fail('usage', `cannot read ${path.join(dir, 'package.json')}: ${errorMessage(error)} (check "package" in the config)`);
  }
}

/** `member`: another manifest inside the tarball (a `file:` dependency the package carries). */
export async function readTarball(file: string, member = 'package/package.json'): Promise<Result<PackageInfo>> {
  const out = await run('tar', ['-xzOf', file, member], { timeoutMs: 30_000 });
  if (!out.ok) return fail('usage', `cannot read ${member} from ${file}: ${out.stderr.trim() || out.error || 'tar failed'}`);
  try {
    return ok(manifestInfo(JSON.parse(out.stdout) as RawManifest));
  } catch (error) {
    return fail('usage', `${member} in ${file} is not valid JSON: ${errorMessage(error)}`);
  }
}

/** The bin to start: the configured one, else the only one. */
export function pickBin(info: PackageInfo, wanted?: string): Result<{ name: string; file: string }> {
  const names = Object.keys(info.bins);
  if (wanted) {
    const file = info.bins[wanted];
    return file
      ? ok({ name: wanted, file })
      : fail('usage', `${info.name} has no bin "${wanted}" (it has: ${names.join(', ') || 'none'}); fix "bin" in the config`);
  }
  if (names.length === 1) return ok({ name: names[0]!, file: info.bins[names[0]!]! });
  return names.length === 0
    ? fail('usage', `${info.name} declares no "bin" in package.json: mcp-matrix starts the server through its bin`)
    : fail('usage', `${info.name} has several bins (${names.join(', ')}); choose one with "bin" in the config`);
}
