// The gate's evidence bound to the tarball it tested: an in-toto Statement v1 whose subject is the tarball and
// whose predicate carries the verdict, plan hash and results.json's sha256. Signed on GitHub, it lets a release
// check before `npm publish` that this exact tarball passed (docs/github.md, "The gate's attestation").
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { RunResult } from '../../results/types.js';
import { HARNESS_VERSION } from '../../version.js';

export const ATTESTATION_FILE = 'attestation.intoto.json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** This predicate's type: the harness's own (a URN: no one else's namespace, nothing to resolve). */
export const PREDICATE_TYPE = 'urn:mcp-matrix:gate:v1';

export interface GatePredicate {
  verdict: RunResult['verdict'];
  exitCode: RunResult['exitCode'];
  /** sha256 of the resolved plan: pieces of one plan share it. */
  planHash: string;
  /** results.json as written beside this file: its sha256 (hex) over the exact bytes. */
  results: { name: string; digest: { sha256: string } };
  package: { name: string; version: string; commit?: string };
  /** Each variant judged, with its outcome. */
  cells: { id: string; outcome: string }[];
  harness: { name: 'mcp-matrix'; version: string };
  /** The GitHub Actions run that made it, when one did. */
  run?: string;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { sha512: string } }[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: GatePredicate;
}

/** `sha512-<base64>` (npm's integrity form, as results.json records it) as in-toto's lowercase hex; undefined if it is not one. */
export function sriToHex(integrity: string): string | undefined {
  const match = /^sha512-([A-Za-z0-9+/]{86}==)$/.exec(integrity);
  return match ? Buffer.from(match[1]!, 'base64').toString('hex') : undefined;
}

/** The statement for `run`, given results.json's exact text as written; undefined without a tarball digest to bind to. */
export function attestation(run: RunResult, resultsJson: string, env: NodeJS.ProcessEnv = process.env): Statement | undefined {
  const sha512 = sriToHex(run.plan.tarball.sha512);
  if (!sha512) return undefined;
  const runUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}${env.GITHUB_RUN_ATTEMPT ? `/attempts/${env.GITHUB_RUN_ATTEMPT}` : ''}`
      : undefined;
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: path.basename(run.plan.tarball.file), digest: { sha512 } }],
    predicateType: PREDICATE_TYPE,
    predicate: {
      verdict: run.verdict,
      exitCode: run.exitCode,
      planHash: run.plan.configHash,
      results: { name: 'results.json', digest: { sha256: createHash('sha256').update(resultsJson, 'utf8').digest('hex') } },
      package: run.plan.package,
      cells: run.cells.map((c) => ({ id: c.id, outcome: c.outcome })),
      harness: { name: 'mcp-matrix', version: HARNESS_VERSION },
      ...(runUrl ? { run: runUrl } : {}),
    },
  };
}

export function renderAttestation(run: RunResult, resultsJson: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const statement = attestation(run, resultsJson, env);
  return statement ? `${JSON.stringify(statement, null, 2)}\n` : undefined;
}
