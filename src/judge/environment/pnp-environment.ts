// The environment's static half for a Yarn Plug'n'Play cell (environment.ts reads npm's node_modules): the cell
// holds the tarball and the pinned SDK as PnP resolves them (read through the cell's own .pnp.cjs, pnp-layout.ts),
// the package's SDK range admits the pin, and the project holds one copy of each SDK package.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import { chainText, sdkClaims, type SdkClaim } from '../../plan/sdk-claim.js';
import type { EnvironmentEvidence, PhaseResultOf } from '../../results/types.js';
import { ok } from '../../util/result.js';
import { environmentOutcome, type EnvironmentInput } from './environment.js';
import { missingFromTarball, type PackedManifest } from './tarball-files.js';

/** A PnP cell as cells/install/pnp-layout.ts reads it through the cell's own .pnp.cjs. */
export interface PnpPackage {
  name: string;
  version: string;
  /** Absolute; inside a zip of Yarn's cache unless unplugged (readable only under PnP's fs patch). */
  location: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface PnpLayout {
  /** `--require <cell>/.pnp.cjs [--experimental-loader <cell>/.pnp.loader.mjs]`, as Yarn puts them in NODE_OPTIONS. */
  nodeOptions: string;
  /** The package under test (unplugged: real files on disk). */
  packageDir: string;
  /** The cell's own dependencies (the package and the pins), as PnP resolves them from the cell. */
  top: Record<string, PnpPackage>;
  /** The package under test's dependencies, as PnP resolves them from it (manifests included). */
  deps: Record<string, PnpPackage>;
  /** Every package of the project (name, version, location), for the copies of the SDK. */
  all: Omit<PnpPackage, 'dependencies' | 'peerDependencies'>[];
}

export async function verifyPnpEnvironment(
  input: EnvironmentInput & { layout: PnpLayout },
): Promise<{ result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence }> {
  const started = performance.now();
  const { layout } = input;
  const problems: string[] = [];
  const manifest = await readFile(path.join(layout.packageDir, 'package.json'), 'utf8')
    .then((t) => JSON.parse(t) as PackedManifest)
    .catch(() => undefined);
  const rel = (location: string) => path.relative(input.cellDir, location.replace(/\/+$/, ''));
  const declaredRanges = Object.fromEntries(
    Object.entries({ ...manifest?.dependencies, ...manifest?.peerDependencies }).filter(([name]) => input.sdkNames.includes(name)),
  );
  const seen = new Set<string>();
  const sdkPackages = layout.all
    .filter((p) => input.sdkNames.includes(p.name) && !seen.has(`${p.name}@${p.version}`) && seen.add(`${p.name}@${p.version}`))
    .map((p) => ({ name: p.name, version: p.version, path: rel(p.location) }));
  if (manifest) {
    const missing = missingFromTarball(layout.packageDir, manifest);
    if (missing) problems.push(missing);
  } else problems.push(`${input.packageName} has no readable package.json at ${rel(layout.packageDir)}`);

  for (const [name, wanted] of Object.entries(input.installSet)) {
    const top = layout.top[name]?.version;
    if (top !== wanted) problems.push(`${name}: Yarn resolved ${top ?? 'nothing'} for the cell, pinned ${wanted}`);
    const loaded = layout.deps[name];
    if (loaded && loaded.version !== wanted) {
      const own = manifest?.dependencies?.[name];
      problems.push(
        `${name}: the package loads ${loaded.version} from ${rel(loaded.location)}${own ? ` (its own dependency "${own}")` : ''}, not the pinned ${wanted}`,
      );
    }
  }
  const versions = new Map<string, string[]>();
  for (const p of sdkPackages) versions.set(p.name, [...(versions.get(p.name) ?? []), p.version]);
  for (const [name, list] of versions) if (list.length > 1) problems.push(`${name} is installed ${list.length} times: ${list.join(', ')}`);

  const claimed = manifest
    ? await sdkClaims(
        { ...manifest.dependencies, ...manifest.peerDependencies },
        input.primaries ?? [input.primary],
        input.sdkNames,
        async (name) => {
          const dep = layout.deps[name];
          return ok(dep ? { version: dep.version, ranges: { ...dep.dependencies, ...dep.peerDependencies } } : undefined);
        },
      )
    : ok<Record<string, SdkClaim>>({});
  const claim = claimed.ok ? claimed.value[input.primary] : undefined;
  const chain = chainText(input.primary, claim);
  if (!claim) problems.push(`${input.packageName} declares no range on ${input.primary}: it does not claim this SDK major`);
  else if (!semver.satisfies(input.version, claim.range))
    problems.push(
      `pin ${input.primary}@${input.version} is outside the range "${claim.range}" that ${input.packageName} ${chain ? `claims ${chain}` : 'declares'}`,
    );

  // Yarn's lockfile names the tarball by its path and the start of its sha512 (`::hash=`, hex).
  const lock = await readFile(path.join(input.cellDir, 'yarn.lock')).catch(() => undefined);
  const hash = new RegExp(`file:${escape(input.tarball.file)}[^"\\n]*::hash=([0-9a-f]+)`).exec(lock?.toString('utf8') ?? '')?.[1];
  const hex = Buffer.from(input.tarball.sha512.replace(/^sha512-/, ''), 'base64').toString('hex');
  if (!hash || !hex.startsWith(hash))
    problems.push(
      `the installed ${input.packageName} is not the packed tarball: yarn.lock's hash ${hash ?? 'missing'} ≠ tarball sha512 ${hex.slice(0, 12)}…`,
    );

  return environmentOutcome(input, { started, manifest, sdkPackages, lock, declaredRanges, chain, problems });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
