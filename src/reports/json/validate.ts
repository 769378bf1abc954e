// A minimal structural check of results.json: enough that every renderer can trust the fields it
// reads. Reports every problem with its path (`cells[1].phases[0].verdict: …`).

import { PHASES } from '../../results/types.js';

type Check = (value: unknown, path: string, problems: string[]) => void;

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? JSON.stringify(v).slice(0, 40) : typeof v;

const str: Check = (v, path, p) => {
  if (typeof v !== 'string') p.push(`${path}: expected a string, got ${describe(v)}`);
};
const num: Check = (v, path, p) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) p.push(`${path}: expected a number, got ${describe(v)}`);
};
const bool: Check = (v, path, p) => {
  if (typeof v !== 'boolean') p.push(`${path}: expected true or false, got ${describe(v)}`);
};
const optional =
  (check: Check): Check =>
  (v, path, p) => {
    if (v !== undefined) check(v, path, p);
  };
const oneOf =
  (values: readonly unknown[]): Check =>
  (v, path, p) => {
    if (!values.includes(v)) p.push(`${path}: expected one of ${values.join(' | ')}, got ${describe(v)}`);
  };
const arrayOf =
  (check: Check): Check =>
  (v, path, p) => {
    if (!Array.isArray(v)) p.push(`${path}: expected an array, got ${describe(v)}`);
    else v.forEach((item, i) => check(item, `${path}[${i}]`, p));
  };
const recordOf =
  (check: Check): Check =>
  (v, path, p) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) p.push(`${path}: expected an object, got ${describe(v)}`);
    else for (const [k, item] of Object.entries(v)) check(item, `${path}.${k}`, p);
  };
const obj =
  (shape: Record<string, Check>): Check =>
  (v, path, p) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      p.push(`${path}: expected an object, got ${describe(v)}`);
      return;
    }
    const record = v as Record<string, unknown>;
    for (const [key, check] of Object.entries(shape)) check(record[key], path ? `${path}.${key}` : key, p);
  };

const VERDICTS = ['passed', 'failed', 'not-measured', 'skipped'] as const;
const nameVersion = obj({ name: str, version: str });
const tarball = obj({ file: str, size: num, sha512: str });

const phase = obj({
  phase: oneOf(PHASES),
  verdict: oneOf(VERDICTS),
  durationMs: num,
  message: optional(str),
  step: optional(str),
  stderrTail: optional(str),
  stdoutNoise: optional(arrayOf(str)),
  details: optional(recordOf(() => undefined)),
  checks: optional(
    arrayOf(
      obj({
        id: str,
        outcome: oneOf([...VERDICTS, 'not-applicable', 'contested']),
        level: oneOf(['require', 'warn', 'off']),
        requirement: optional(oneOf(['MUST', 'SHOULD', 'SDK default'])),
        spec: optional(obj({ revision: str, section: str })),
        revision: optional(str),
        message: str,
        short: optional(str),
        step: optional(str),
        evidence: optional(recordOf(() => undefined)),
        judge: optional(str),
        sameAs: optional(str),
      }),
    ),
  ),
});

const handle = obj({ owner: str, type: str, location: optional(str), createdBy: optional(str) });

const environment = obj({
  harnessVersion: str,
  node: str,
  npm: str,
  os: str,
  package: nameVersion,
  tarball,
  sdkPackages: arrayOf(obj({ name: str, version: str, path: str })),
  lockfileSha256: optional(str),
  installMs: num,
  installAttempts: num,
  installSource: optional(
    obj({
      source: oneOf(['npm', 'reused', 'pnpm-strict', 'yarn-pnp']),
      reason: optional(str),
      pnpm: optional(str),
      yarn: optional(str),
      store: optional(str),
      lockfileSha256: optional(str),
      entry: optional(str),
      resolvedAt: optional(str),
      ageMs: optional(num),
      swapped: optional(bool),
    }),
  ),
  declaredRanges: recordOf(str),
  sdkClaim: optional(str),
  loadedSdk: optional(
    arrayOf(
      obj({
        server: str,
        probe: bool,
        nodeBin: bool,
        answered: bool,
        copies: arrayOf(obj({ name: str, version: str, path: str })),
        node: optional(str),
        unobserved: optional(arrayOf(obj({ pid: num, command: str, why: str }))),
      }),
    ),
  ),
});

const leakedHandles: Check = (v, path, p) => {
  if (v !== null) arrayOf(handle)(v, path, p);
};

const clientRef = obj({ pin: str, major: num, version: str, package: str });
const nodeRef = obj({ spec: str, version: str });

const nonEmpty =
  (check: Check): Check =>
  (v, path, p) => {
    check(v, path, p);
    if (Array.isArray(v) && v.length === 0) p.push(`${path}: expected at least one variant, got none`);
  };

const cellRef = {
  id: str,
  pin: str,
  role: optional(str),
  major: num,
  version: str,
  allowedToFail: bool,
  installSet: recordOf(str),
};

const cell = obj({
  ...cellRef,
  cell: str,
  client: optional(clientRef),
  node: optional(nodeRef),
  verdict: oneOf(VERDICTS),
  outcome: oneOf(['passed', 'failed', 'allowed-failure', 'stale-allowance', 'not-measured']),
  phases: arrayOf(phase),
  environment: optional(environment),
  summary: obj({
    protocolVersion: optional(str),
    tools: optional(num),
    resourceTemplates: optional(num),
    prompts: optional(num),
    leakedHandles,
  }),
  phaseRuns: optional(
    obj({
      sideBySide: arrayOf(arrayOf(oneOf(PHASES))),
      confirmedAlone: arrayOf(oneOf(PHASES)),
      inTurn: optional(arrayOf(oneOf(PHASES))),
      variantsBeside: optional(oneOf([true])),
    }),
  ),
  durationMs: num,
  repro: str,
  cellDir: optional(str),
});

const run = obj({
  tool: obj({ name: oneOf(['mcp-matrix']), version: str }),
  startedAt: str,
  finishedAt: str,
  durationMs: num,
  interrupted: bool,
  plan: obj({
    configHash: str,
    configFile: optional(str),
    packageDir: optional(str),
    configDir: optional(str),
    package: nameVersion,
    tarball,
    cells: arrayOf(
      obj({ ...cellRef, variants: nonEmpty(arrayOf(obj({ id: str, client: optional(clientRef), node: optional(nodeRef) }))) }),
    ),
    selected: optional(arrayOf(str)),
    lookedUp: optional(arrayOf(obj({ name: str, lookedUpAt: str, ageMs: num }))),
  }),
  host: obj({ node: str, npm: str, os: str, ci: optional(str) }),
  cells: arrayOf(cell),
  verdict: oneOf(['passed', 'failed', 'not-measured', 'interrupted']),
  exitCode: oneOf([0, 1, 2, 3, 130]),
  warnings: arrayOf(str),
  lockstepErrors: optional(arrayOf(str)),
  baseline: optional(
    obj({
      file: str,
      entries: arrayOf(obj({ cell: str, phase: oneOf(PHASES), message: optional(str), reason: str, line: num })),
    }),
  ),
  surface: optional(
    obj({
      cells: arrayOf(str),
      findings: arrayOf(str),
      allowed: arrayOf(str),
      allow: arrayOf(obj({ item: str, path: optional(str) })),
      drift: optional(arrayOf(str)),
    }),
  ),
  parity: optional(
    obj({
      cells: arrayOf(str),
      items: arrayOf(str),
      findings: arrayOf(str),
      allowed: arrayOf(str),
      stale: arrayOf(str),
      allow: arrayOf(obj({ item: str, path: optional(str), reason: str })),
      drift: optional(arrayOf(str)),
    }),
  ),
});

/** Every shape problem of a parsed results.json, empty when it can be rendered. */
export function validateRun(data: unknown): string[] {
  const problems: string[] = [];
  run(data, '', problems);
  return problems;
}
