// The SARIF rules of matrix.sarif: one stable id per kind of finding (documented in docs/phases.md,
// "matrix.sarif"), with the help a code-scanning page shows. The http sub-checks are the catalogue's
// own (src/contract/checks.ts); a second judge's scenarios (conformance) get a rule each as they appear.

import type { ReportingDescriptor } from 'sarif';
import { CHECKS, type CheckDefinition } from '../../contract/checks.js';
import type { PhaseName, SubCheckResult } from '../../results/types.js';

/** One rule: its id is `<phase>/<what>` (or `surface/…`, `config/…` for findings of the run). */
export interface RuleDef {
  id: string;
  short: string;
  help: string;
  helpUri?: string;
  /** GitHub's `security-severity` (0–10): set on findings a code-scanning page lists as security alerts. */
  severity?: number;
}

/** The rules that do not come from the sub-check catalogue, in the order docs/phases.md lists them. */
export const STATIC_RULES: readonly RuleDef[] = [
  {
    id: 'environment/sdk-range',
    short: "The package's declared SDK range excludes the pinned SDK (or it declares none)",
    help: 'The SDK range in package.json does not admit the version this cell pins: widen the range, or drop the cell.',
  },
  {
    id: 'environment/runtime-sdk',
    short: "A running server loaded an SDK copy other than the cell's pinned one",
    help: "The probe inside the stdio or http server saw it load another copy of the SDK (its own dependency, a bundle): the cell cannot vary the SDK. Depend on the SDK as a peer or with a range, and don't bundle it.",
  },
  {
    id: 'environment/install',
    short: 'The installed package is not the packed tarball with the pinned SDK',
    help: "The cell's install is not what was asked for: files missing from the tarball, a second SDK copy, an install that failed. The message names which.",
  },
  {
    id: 'stdio/failed',
    short: 'The stdio round trip failed',
    help: 'initialize, the listings, the configured steps or the protocol channel (stdout) failed over stdio.',
  },
  {
    id: 'http/failed',
    short: 'The Streamable HTTP phase failed outside its sub-checks',
    help: 'The HTTP server did not start, listen or answer as configured.',
  },
  {
    id: 'bind/exposed',
    short: 'Asked to bind a non-loopback address without a token, the server listened (or tried to)',
    help: 'Started with a non-loopback host and no token, a server must refuse (exit non-zero) before it listens: anyone on the network could call it.',
    severity: 8.0,
  },
  {
    id: 'bind/no-refusal',
    short: 'Asked to bind a non-loopback address without a token, the server did not refuse by exiting non-zero',
    help: 'It exited 0, was killed, crashed, or never listened nor exited: a refusal is a deliberate non-zero exit.',
    severity: 4.0,
  },
  {
    id: 'conformance/failed',
    short: 'The official conformance suite could not judge the server',
    help: "The conformance phase failed without a failed scenario (the suite's own run failed on the server).",
  },
  {
    id: 'leaks/failed',
    short: 'A server kept running, or left processes behind, after it was told to stop',
    help: 'After stdin EOF (stdio) or SIGTERM (http), live handles, its process group or escaped processes outlived the grace.',
  },
  {
    id: 'surface/parity',
    short: 'The cells disagree on the server surface (tools, resources, prompts)',
    help: 'Two SDK versions list a different surface for the same package; allow a known difference with `surface.allow` in the config.',
  },
  {
    id: 'surface/drift',
    short: 'The server surface changed since the committed mcp-surface.json',
    help: 'Commit the change with `mcp-matrix run --update-surface` when it is intended.',
  },
  {
    id: 'answers/parity',
    short: 'The cells answer the same call differently (content types, mimeType, isError, structuredContent …)',
    help: "A configured step (or a lifecycle behaviour) gave another answer on another SDK version; allow a known difference with `parity.allow` (with its reason), or declare a value that varies between runs with the step's `vary`.",
  },
  {
    id: 'answers/drift',
    short: 'An answer changed since the committed mcp-surface.json',
    help: 'Commit the change with `mcp-matrix run --update-surface` when it is intended.',
  },
  {
    id: 'answers/stale-allowance',
    short: 'An entry of parity.allow matches no difference',
    help: 'Delete the entry from `parity.allow` in the config.',
  },
  {
    id: 'config/lockstep',
    short: 'The cells do not cover an SDK the package claims (lockstep)',
    help: "The package's declared ranges and the config's pins disagree: add the cells, or narrow the range.",
  },
  {
    id: 'config/stale-allowance',
    short: 'A cell marked allowedToFail passed',
    help: 'Remove `allowedToFail` from the cell in the config (or list its failing variants in the baseline).',
  },
];

/** Security-relevant http checks: an endpoint anybody can call, or a token that leaks. */
const CHECK_SEVERITY: Record<string, number> = {
  'no-token-401': 8.0,
  'wrong-token-401': 8.0,
  'www-authenticate': 3.0,
  'token-in-header': 6.0,
  origin: 6.5,
  host: 6.5,
  'oauth-audience': 8.0,
  'oauth-expired': 8.0,
  'oauth-other-key': 9.0,
  'oauth-alg-none': 9.0,
};

/** Where a requirement is written, as a link: the MCP specification's page, or the RFC's section. */
export function specUri(spec: SubCheckResult['spec']): string | undefined {
  if (!spec) return undefined;
  const mcp = /^MCP (\d{4}-\d{2}-\d{2})$/.exec(spec.revision);
  if (mcp) return `https://modelcontextprotocol.io/specification/${mcp[1]}/${spec.section}`;
  const rfc = /^RFC (\d+)$/.exec(spec.revision);
  if (rfc) return `https://www.rfc-editor.org/rfc/rfc${rfc[1]}#section-${spec.section}`;
  // An SDK default: the security advisory that made it one.
  if (/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/.test(spec.section)) return `https://github.com/advisories/${spec.section}`;
  return undefined;
}

function checkRule(def: Pick<CheckDefinition, 'id' | 'title' | 'requirement' | 'spec'>, phase: string, judge?: string): RuleDef {
  const where = def.spec ? ` (${def.spec.revision} ${def.spec.section})` : '';
  const source =
    def.requirement === 'SDK default'
      ? `Not a spec requirement: the SDK's default${where}; its level is a harness policy.`
      : `Required by ${def.requirement ? `${def.requirement}${where}` : 'the harness'}.`;
  const uri = specUri(def.spec);
  const severity = phase === 'http' ? CHECK_SEVERITY[def.id] : undefined;
  return {
    id: `${phase}/${def.id}`,
    short: def.title.replace(/`/g, ''),
    help: `${judge ? `Judged by ${judge}. ` : ''}${source}`,
    ...(uri ? { helpUri: uri } : {}),
    ...(severity !== undefined ? { severity } : {}),
  };
}

/** The rule of a sub-check: the catalogue's for a known id, else one made from what the check recorded (a second judge's scenario). */
export function ruleForCheck(phase: PhaseName, check: SubCheckResult): RuleDef {
  const known = CHECKS.find((c) => c.id === check.id && c.phase === phase && !check.judge);
  if (known) return checkRule(known, phase);
  return checkRule({ id: check.id, title: `${check.judge ?? 'sub-check'}: ${check.id}`, ...pick(check) }, phase, check.judge);
}

function pick(check: SubCheckResult): Pick<CheckDefinition, 'requirement' | 'spec'> {
  return { ...(check.requirement ? { requirement: check.requirement } : {}), ...(check.spec ? { spec: check.spec } : {}) };
}

/** Every rule a run can report without a second judge: the static ones and the http sub-check catalogue. */
export function knownRules(): RuleDef[] {
  return [...STATIC_RULES, ...CHECKS.map((c) => checkRule(c, c.phase))];
}

/** The SARIF form of a rule. */
export function toDescriptor(rule: RuleDef): ReportingDescriptor {
  return {
    id: rule.id,
    name: rule.id
      .split(/[/-]/)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(''),
    shortDescription: { text: rule.short },
    fullDescription: { text: rule.help },
    help: { text: rule.help },
    ...(rule.helpUri ? { helpUri: rule.helpUri } : {}),
    properties: {
      tags: rule.severity !== undefined ? ['security', 'mcp'] : ['mcp'],
      ...(rule.severity !== undefined ? { 'security-severity': rule.severity.toFixed(1) } : {}),
    },
  };
}
