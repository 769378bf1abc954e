// A variant's environment verdict, once its driver returned: the cell's static check with the runtime
// SDK the servers loaded folded in, and, on a Node variant, the SDK's engines and the Node the servers
// reported against the variant's release.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { EnvironmentEvidence, PhaseResultOf } from '../../results/types.js';
import { sdkEnginesProblems, serverNodeMismatch, withNodeEngines, withServerNode } from './node-engines.js';
import { judgeRuntimeSdk, withRuntimeSdk, type RuntimeSdkInput } from './runtime-sdk.js';

export interface VariantEnvironmentInput extends RuntimeSdkInput {
  /** A Yarn PnP cell's packages (pnp-layout.ts): the pinned copies' locations stand for `node_modules/<name>`. */
  pnpPackages?: readonly { name: string; version: string; location: string }[];
  /** The cell's static environment check (environment.ts), shared by its variants. */
  env: { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence };
  cellDir: string;
  /** The Node release a Node variant runs on (absent: the host's, nothing to compare). */
  nodeVersion?: string;
}

export async function judgeVariantEnvironment(
  input: VariantEnvironmentInput,
): Promise<{ result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence }> {
  const aliases = input.pnpPackages
    ? pnpCopies(input.cellDir, input.installSet, input.pnpPackages)
    : await linkedCopies(input.cellDir, Object.keys(input.installSet));
  const folded = withRuntimeSdk(input.env, judgeRuntimeSdk({ ...input, ...(aliases ? { aliases } : {}) }));
  if (!input.nodeVersion) return folded;
  const engines = await sdkEnginesProblems(input.cellDir, folded.evidence.sdkPackages, input.nodeVersion);
  return withServerNode(withNodeEngines(folded, engines), serverNodeMismatch(folded.evidence.loadedSdk ?? [], input.nodeVersion));
}

/** The cell's pinned packages that are links (pnpm's layout): their real path, relative to the cell → `node_modules/<name>`. */
async function linkedCopies(cellDir: string, names: readonly string[]): Promise<Record<string, string> | undefined> {
  const cell = await realpath(cellDir).catch(() => cellDir);
  const out: Record<string, string> = {};
  for (const name of names) {
    const real = await realpath(path.join(cellDir, 'node_modules', name)).catch(() => undefined);
    const rel = real && path.relative(cell, real);
    if (rel && rel !== path.join('node_modules', name)) out[rel] = `node_modules/${name}`;
  }
  return Object.keys(out).length ? out : undefined;
}

/** A PnP cell's pinned packages, where PnP keeps them (Yarn's cache, through `.yarn/__virtual__` for a package with peers) → `node_modules/<name>`. */
function pnpCopies(
  cellDir: string,
  installSet: Readonly<Record<string, string>>,
  packages: readonly { name: string; version: string; location: string }[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of packages)
    if (installSet[p.name] === p.version) out[path.relative(cellDir, p.location.replace(/\/+$/, ''))] = `node_modules/${p.name}`;
  return out;
}
