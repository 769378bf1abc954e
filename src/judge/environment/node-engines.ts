// A variant's Node against the engines of the SDK copies installed in its cell: an SDK that does not
// support the Node the variant runs is a broken claim of the package (its range resolves to it there).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import type { EnvironmentEvidence, InstalledPackage, PhaseResultOf, SdkRuntime } from '../../results/types.js';

/** `@modelcontextprotocol/server@2.4.0 requires node >=20; this variant runs 18.20.8`, one per copy that excludes it. */
export async function sdkEnginesProblems(cellDir: string, packages: readonly InstalledPackage[], nodeVersion: string): Promise<string[]> {
  const version = nodeVersion.replace(/^v/, '');
  const problems: string[] = [];
  for (const p of packages) {
    const range = await enginesNode(path.join(cellDir, p.path, 'package.json'));
    if (range && semver.validRange(range) && !semver.satisfies(version, range, { includePrerelease: true }))
      problems.push(`${p.name}@${p.version} requires node ${range}; this variant runs ${version}`);
  }
  return problems;
}

async function enginesNode(file: string): Promise<string | undefined> {
  try {
    const raw = JSON.parse(await readFile(file, 'utf8')) as { engines?: { node?: unknown } };
    return typeof raw.engines?.node === 'string' ? raw.engines.node : undefined;
  } catch {
    return undefined;
  }
}

/** The environment result with the engines problems added: each one fails it. */
export function withNodeEngines(
  env: { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence },
  problems: readonly string[],
): { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence } {
  if (problems.length === 0) return env;
  const listed = env.result.details?.problems;
  const earlier = env.result.verdict === 'failed' ? (Array.isArray(listed) ? listed.map(String) : [env.result.message ?? 'failed']) : [];
  const all = [...earlier, ...problems];
  return {
    evidence: env.evidence,
    result: {
      ...env.result,
      verdict: 'failed',
      message: all.join('; '),
      step: env.result.verdict === 'failed' ? (env.result.step ?? 'verify') : 'node engines',
      details: { ...env.result.details, problems: all },
    },
  };
}

/**
 * Servers that ran on another Node than the variant's: a bin that starts a Node of its own choosing (an
 * absolute path, a version manager) is out of the variant's reach, so this variant did not measure its Node.
 */
export function serverNodeMismatch(observed: readonly SdkRuntime[], version: string): string[] {
  const want = `v${version.replace(/^v/, '')}`;
  const byNode = new Map<string, string[]>();
  for (const o of observed) if (o.node && o.node !== want) byNode.set(o.node, [...new Set([...(byNode.get(o.node) ?? []), o.server])]);
  return [...byNode].map(
    ([node, servers]) =>
      `the ${servers.join(' and ')} server${servers.length > 1 ? 's' : ''} ran on Node ${node}, not this variant's ${want}: its bin starts a Node of its own choosing, so this variant did not measure its Node`,
  );
}

/** The environment result with the mismatches: a passed check becomes not-measured; a failure stands. */
export function withServerNode(
  env: { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence },
  mismatch: readonly string[],
): { result: PhaseResultOf<'environment'>; evidence: EnvironmentEvidence } {
  if (mismatch.length === 0) return env;
  const details = { ...env.result.details, nodeMismatch: [...mismatch] };
  if (env.result.verdict === 'failed') return { evidence: env.evidence, result: { ...env.result, details } };
  const message = [...(env.result.verdict === 'not-measured' && env.result.message ? [env.result.message] : []), ...mismatch].join('; ');
  const step = env.result.verdict === 'not-measured' ? (env.result.step ?? 'server Node') : 'server Node';
  return { evidence: env.evidence, result: { ...env.result, verdict: 'not-measured', message, step, details } };
}
