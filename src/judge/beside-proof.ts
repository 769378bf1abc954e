// The failed checks that running beside another group cannot have caused (docs/phases.md, "A variant's phases side by
// side"): each records the server serving a request it should have refused. Contention can slow, refuse or drop a
// request, never make a server serve one; every other failed, not measured or contested check is confirmed alone.
import type { PhaseName, SubCheckResult } from '../results/types.js';

type Proof = (evidence: Record<string, unknown>) => boolean;

/** A status the server sent, 2xx: a number (`evidence.status`) or its text (`evidence.foreign`, `seen()` in spec-judges.ts). */
const servedStatus = (value: unknown): boolean =>
  (typeof value === 'number' && value >= 200 && value < 300) || (typeof value === 'string' && /^2\d\d$/.test(value));

/** The conformance suite's words (0.1.x) for a foreign Host and Origin served; its words for a request that failed differ. */
const SUITE_SERVED = /^Expected HTTP 4xx for invalid Host\/Origin headers, got 2\d\d$/;

/** The suite's checks of a scenario (`evidence.checks`): each one passed, or failed on the server's own 2xx answer. */
const suiteServed: Proof = (e) => {
  const checks = Array.isArray(e.checks) ? (e.checks as { status?: unknown; message?: unknown }[]) : [];
  const served = (c: { status?: unknown; message?: unknown }) =>
    c.status === 'FAILURE' && typeof c.message === 'string' && SUITE_SERVED.test(c.message);
  return checks.some(served) && checks.every((c) => c.status === 'SUCCESS' || served(c));
};

/**
 * Per phase and check id: the failed outcome's evidence that makes it the server's own answer. http (the harness's
 * own checks): Host, the foreign Host served (spec-judges.ts judgeHost); Origin, the foreign Origin served and the
 * loopback Origin served too, whose negotiated revision picks the rule its message names (judgeOrigin). conformance
 * (the suite's scenarios): dns-rebinding-protection, the foreign Host/Origin served while the localhost one was served.
 */
const PROOFS: Readonly<Partial<Record<PhaseName, Readonly<Record<string, Proof>>>>> = {
  http: { host: (e) => servedStatus(e.status), origin: (e) => servedStatus(e.foreign) && servedStatus(e.loopback) },
  conformance: { 'dns-rebinding-protection': suiteServed },
};

/** The check ids a failed `warn` check of each phase may stand beside the others for (tests pin the list). */
export const BESIDE_PROOF_IDS: Readonly<Partial<Record<PhaseName, readonly string[]>>> = Object.fromEntries(
  Object.entries(PROOFS).map(([phase, proofs]) => [phase, Object.keys(proofs)]),
);

/** A `warn` check of `phase` that failed because the server served what it should have refused: in turn it fails alike. */
export function failedBesideProof(phase: PhaseName, check: SubCheckResult): boolean {
  if (check.level !== 'warn' || check.outcome !== 'failed') return false;
  // The harness's own checks have no judge; the suite's scenarios are judged by it.
  if ((phase === 'conformance') !== (check.judge?.startsWith('@modelcontextprotocol/conformance@') ?? false)) return false;
  const proofs = PROOFS[phase];
  const proof = proofs && Object.hasOwn(proofs, check.id) ? proofs[check.id] : undefined;
  return proof !== undefined && proof(check.evidence ?? {});
}
