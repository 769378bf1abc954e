// A variant's Node against the engines of the SDK copies installed in its cell: an SDK that does not
// support the Node the variant runs is a broken claim of the package (its range resolves to it there).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import type { EnvironmentEvidence, InstalledPackage, PhaseResult } from '../results/types.js';

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
  env: { result: PhaseResult; evidence: EnvironmentEvidence },
  problems: readonly string[],
): { result: PhaseResult; evidence: EnvironmentEvidence } {
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
