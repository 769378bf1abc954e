// The yardsticks' second reading: the same runs with only the checks the naive loop also makes (issue 22
// item 4). The loop packs, installs, runs a stdio session and its EOF exit, a 401 without a token, an HTTP
// round trip and its SIGTERM exit, and a bind refusal. The harness's targets against it were set before the
// conformance phase, the lifecycle sub-checks and the http spec sub-checks existed; here they are off, so a
// ratio compares the same work. The bench prints both readings; nothing is hidden.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MatrixConfig } from '../../src/config/define.js';
import { ROOT } from './util.js';

/** The sub-checks of each phase (src/contract/checks.ts), as the built harness knows them. */
export interface Catalogue {
  stdio: string[];
  http: string[];
}

export async function loadCatalogue(): Promise<Catalogue> {
  const url = pathToFileURL(path.join(ROOT, 'dist', 'contract', 'checks.js')).href;
  const { checkIds } = (await import(url)) as typeof import('../../src/contract/checks.js');
  return { stdio: checkIds('stdio'), http: checkIds('http') };
}

/** The sub-checks of the harness that the targets were measured with (besides the five phases). */
const KEPT = new Set(['session', 'no-token-401', 'www-authenticate', 'wrong-token-401', 'round-trip']);

const offExceptKept = (ids: string[]): Record<string, 'off'> =>
  Object.fromEntries(ids.flatMap((id) => (KEPT.has(id) ? [] : [[id, 'off' as const]])));

/** The checks the loop does not make, turned off: conformance, the lifecycle and the http spec sub-checks. */
export function likeForLike(catalogue: Catalogue): (raw: MatrixConfig) => MatrixConfig {
  return (raw) => {
    const out: MatrixConfig = { ...raw, conformance: false };
    if (raw.stdio) out.stdio = { ...raw.stdio, checks: { ...raw.stdio.checks, ...offExceptKept(catalogue.stdio) } };
    if (raw.http) out.http = { ...raw.http, checks: { ...raw.http.checks, ...offExceptKept(catalogue.http) } };
    return out;
  };
}

/** What likeForLike turns off, for the report. */
export function likeForLikeOff(catalogue: Catalogue): string {
  const ids = (xs: string[]): string => Object.keys(offExceptKept(xs)).join(', ');
  return `conformance; stdio: ${ids(catalogue.stdio)}; http: ${ids(catalogue.http)}`;
}
