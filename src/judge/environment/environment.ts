// The environment phase's static half: prove the cell holds exactly the tarball and the pinned SDK, once
// per install (the runtime half, what the servers loaded, is runtime-sdk.ts's after the driver).
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import semver from 'semver';
import type { Tarball } from '../../pack/pack.js';
import type { EnvironmentEvidence, PhaseResultOf } from '../../results/types.js';
import { findSdkCopies, readVersion, resolveFrom } from './sdk-tree.js';
import { missingFromTarball, type PackedManifest } from './tarball-files.js';
import { sha256 } from '../../util/sha256.js';
import { chainText, sdkClaims, type ManifestLookup, type SdkClaim } from '../../plan/sdk-claim.js';
import { ok } from '../../util/result.js';
import type { CellLock } from './cell-lock.js';

export interface EnvironmentInput {
  cellDir: string;
  packageName: string;
  /** The package whose declared range must admit the pin (the major's primary). */
  primary: string;
  version: string;
  installSet: Record<string, string>;
  /** The SDK package names (every major's recipe): only these are SDK copies. */
  sdkNames: readonly string[];
  /** Every major's primary (the plan's claim rule reads them all); absent: `primary` alone. */
  primaries?: readonly string[];
  tarball: Tarball;
  harnessVersion: string;
  npmVersion: string;
  install: { durationMs: number; attempts: number };
}

/** An npm cell's input: its package-lock.json as cell-lock.ts read it (the undeclared-import checks read the same). */
export interface NpmEnvironmentInput extends EnvironmentInput {
  lock: CellLock;
}

export async function verifyEnvironment(
  input: NpmEnvironmentInput,
): Promise<{ result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence }> {
  const started = performance.now();
  const problems: string[] = [];
  const packageDir = path.join(input.cellDir, 'node_modules', input.packageName);
  const manifest = await readJson<PackedManifest>(path.join(packageDir, 'package.json'));
  const declaredRanges = Object.fromEntries(
    Object.entries({ ...manifest?.dependencies, ...manifest?.peerDependencies }).filter(([name]) => input.sdkNames.includes(name)),
  );
  const sdkPackages = await findSdkCopies(input.cellDir, input.sdkNames);
  if (manifest) {
    const missing = missingFromTarball(packageDir, manifest);
    if (missing) problems.push(missing);
  }

  for (const [name, wanted] of Object.entries(input.installSet)) {
    const top = await readVersion(path.join(input.cellDir, 'node_modules', name));
    if (top !== wanted) problems.push(`${name}: installed ${top ?? 'nothing'} at node_modules/${name}, pinned ${wanted}`);
    const loaded = resolveFrom(packageDir, name, input.cellDir);
    if (loaded && path.relative(input.cellDir, loaded) !== path.join('node_modules', name)) {
      const v = await readVersion(loaded);
      const own = manifest?.dependencies?.[name];
      problems.push(
        `${name}: the package loads ${v ?? '?'} from ${path.relative(input.cellDir, loaded)}${own ? ` (its own dependency "${own}")` : ''}, not the pinned ${wanted}`,
      );
    }
  }
  const byName = new Map<string, string[]>();
  for (const p of sdkPackages) byName.set(p.name, [...(byName.get(p.name) ?? []), `${p.version} at ${p.path}`]);
  for (const [name, copies] of byName)
    if (copies.length > 1) problems.push(`${name} is installed ${copies.length} times: ${copies.join(', ')}`);

  // A package built on a framework claims the SDK through it: the range its installed dependency declares.
  // The installed tree is read from disk: a look-up there never fails for the machine (`ok` always).
  const claimed = manifest
    ? await sdkClaims(
        { ...manifest.dependencies, ...manifest.peerDependencies },
        input.primaries ?? [input.primary],
        input.sdkNames,
        installedManifest(packageDir, input.cellDir),
      )
    : ok<Record<string, SdkClaim>>({});
  const claims = claimed.ok ? claimed.value : {};
  const claim = claims[input.primary];
  const chain = chainText(input.primary, claim);
  if (!claim) problems.push(`${input.packageName} declares no range on ${input.primary}: it does not claim this SDK major`);
  else if (!semver.satisfies(input.version, claim.range))
    problems.push(
      chain
        ? `pin ${input.primary}@${input.version} is outside the range "${claim.range}" that ${input.packageName} claims ${chain}`
        : `pin ${input.primary}@${input.version} is outside the range "${claim.range}" that ${input.packageName} declares`,
    );

  const { lock } = input;
  // npm wrote that file: one it left unreadable is npm's or the machine's doing, never the package's.
  const unreadable =
    lock.kind === 'unreadable'
      ? `the cell's package-lock.json is not valid JSON (${lock.why}): the installed ${input.packageName} could not be checked against the tarball`
      : undefined;
  // A strict leg's pnpm records the tarball's integrity in its own lockfile.
  const pnpmLock = lock.kind === 'absent' ? await readFile(path.join(input.cellDir, 'pnpm-lock.yaml')).catch(() => undefined) : undefined;
  const integrity =
    (lock.kind === 'parsed' ? lock.packages[`node_modules/${input.packageName}`]?.integrity : undefined) ??
    (pnpmLock?.toString('utf8').includes(`integrity: ${input.tarball.sha512}`) ? input.tarball.sha512 : undefined);
  if (!manifest) problems.push(`${input.packageName} is not installed at node_modules/${input.packageName}`);
  if (!unreadable && integrity !== input.tarball.sha512) {
    problems.push(
      `the installed ${input.packageName} is not the packed tarball: lockfile integrity ${short(integrity)} ≠ tarball ${short(input.tarball.sha512)}`,
    );
  }

  return environmentOutcome(input, {
    started,
    manifest,
    sdkPackages,
    lock: lock.kind === 'absent' ? pnpmLock : lock.bytes,
    declaredRanges,
    chain,
    problems,
    ...(unreadable ? { notMeasured: unreadable } : {}),
  });
}

/** The static check's result and evidence from what it found (npm's, pnpm's or Yarn PnP's cell alike). */
export function environmentOutcome(
  input: EnvironmentInput,
  found: {
    started: number;
    manifest: PackedManifest | undefined;
    sdkPackages: EnvironmentEvidence['sdkPackages'];
    lock: Buffer | undefined;
    declaredRanges: Record<string, string>;
    chain: string | undefined;
    problems: string[];
    /** What could not be checked (the machine's part): without a problem found, the result is not measured. */
    notMeasured?: string;
  },
): { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence } {
  const { manifest, sdkPackages, lock, declaredRanges, chain, problems } = found;
  const evidence: EnvironmentEvidence = {
    harnessVersion: input.harnessVersion,
    node: process.version,
    npm: input.npmVersion,
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    package: { name: manifest?.name ?? input.packageName, version: manifest?.version ?? '?' },
    tarball: { file: path.basename(input.tarball.file), size: input.tarball.size, sha512: input.tarball.sha512 },
    sdkPackages,
    ...(lock ? { lockfileSha256: sha256(lock) } : {}),
    installMs: input.install.durationMs,
    installAttempts: input.install.attempts,
    declaredRanges,
    ...(chain ? { sdkClaim: chain } : {}),
  };
  const durationMs = Math.round(performance.now() - found.started);
  if (problems.length > 0)
    return {
      result: { phase: 'environment', verdict: 'failed', durationMs, message: problems.join('; '), step: 'verify', details: { problems } },
      evidence,
    };
  if (found.notMeasured)
    return { result: { phase: 'environment', verdict: 'not-measured', durationMs, message: found.notMeasured, step: 'verify' }, evidence };
  const details = { sdk: sdkPackages.map((p) => `${p.name}@${p.version}`), ...(chain ? { sdkClaim: chain } : {}) };
  return { result: { phase: 'environment', verdict: 'passed', durationMs, details }, evidence };
}

/** A dependency as the installed package loads it (Node's lookup from the package's directory). */
function installedManifest(packageDir: string, cellDir: string): ManifestLookup {
  return async (name) => {
    const dir = resolveFrom(packageDir, name, cellDir);
    const m = dir ? await readJson<PackedManifest>(path.join(dir, 'package.json')) : undefined;
    return ok(m ? { version: m.version ?? '?', ranges: { ...m.dependencies, ...m.peerDependencies } } : undefined);
  };
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function short(integrity?: string): string {
  return integrity ? `${integrity.slice(0, 19)}…` : 'missing';
}
