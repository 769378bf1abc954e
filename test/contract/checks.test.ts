// The shared shape of a reported sub-check, end to end on the harness side: the catalogue's defaults,
// the fold into the phase verdict (warn never fails), the config's levels (unknown names and levels
// list the valid ones), the audit of a stored file, and how results.json, matrix.md, JUnit and the
// terminal show a check.
import { describe, expect, it } from 'vitest';
import type { SubCheckResult } from '../../src/results/types.js';
import {
  CHECKS,
  checkDefinition,
  checkIds,
  checkLine,
  checkResult,
  byRevision,
  checkSource,
  decidePhase,
  defaultLevel,
  levelOf,
  notableChecks,
} from '../../src/contract/checks.js';
import { auditRun } from '../../src/judge/verdict.js';
import { validateConfig } from '../../src/config/schema.js';
import { resolveChecks } from '../../src/config/resolve.js';
import { parseResults, renderJson, renderJunit, renderMarkdown } from '../../src/reports/index.js';
import { renderTerminalFailures } from '../../src/reports/terminal.js';
import { FOUR_CELLS, makeRun } from '../reports/helpers/make-run.js';

const check = (over: Partial<SubCheckResult> & Pick<SubCheckResult, 'id' | 'outcome' | 'level'>): SubCheckResult => ({
  message: over.outcome === 'passed' ? '403' : 'a foreign Origin (http://evil.example) got 200 (want 403)',
  requirement: 'MUST',
  spec: { revision: 'MCP 2025-11-25', section: 'basic/transports#security-warning' },
  ...over,
});

describe('the catalogue', () => {
  it("the undeclared-import checks quote npm's docs word for word", () => {
    // docs.npmjs.com/specifying-dependencies-and-devdependencies-in-a-package-json-file, as the page reads.
    const page =
      'To specify the packages your project depends on, you must list them as "dependencies" or "devDependencies" in your ' +
      'package\'s package.json file. [...] "dependencies": Packages required by your application in production. ' +
      '"devDependencies": Packages that are only needed for local development and testing.';
    for (const id of ['undeclared-imports', 'undeclared-dynamic-imports']) {
      const quotes = [...(checkDefinition(id)!.policy ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
      for (const quote of quotes) expect(page, `${id} quotes "${quote}"`).toContain(quote);
    }
  });

  it('gives a MUST require and a SHOULD warn; any other default level is a harness policy, named', () => {
    for (const def of CHECKS) {
      const open = defaultLevel(def, 'none');
      const guarded = defaultLevel(def, 'bearer');
      const byKeyword = def.requirement === 'MUST' ? 'require' : def.requirement === 'SHOULD' ? 'warn' : undefined;
      // The harness's own checks (no requirement, no spec: the configured session and round trip) need no policy.
      const own = def.requirement === undefined && def.spec === undefined;
      if (!own && (open !== byKeyword || guarded !== byKeyword)) expect([def.id, def.policy]).toEqual([def.id, expect.any(String)]);
      expect(defaultLevel(def, 'oauth')).toBe(guarded);
    }
    const levels = (id: string) => [defaultLevel(checkDefinition(id)!, 'none'), defaultLevel(checkDefinition(id)!, 'bearer')];
    expect(levels('origin')).toEqual(['require', 'warn']);
    // Host validation is no spec requirement: the SDK's default since 1.24.0 (GHSA-w48q-cv73-mx4w), a warning.
    expect(levels('host')).toEqual(['warn', 'warn']);
    expect(checkDefinition('host')).toMatchObject({
      requirement: 'SDK default',
      spec: { revision: 'TypeScript SDK 1.24.0', section: 'GHSA-w48q-cv73-mx4w' },
    });
  });
  it('has unique ids within a phase, each with a spec revision and section when it names a requirement', () => {
    expect(new Set(CHECKS.map((c) => `${c.phase} ${c.id}`)).size).toBe(CHECKS.length);
    for (const c of CHECKS.filter((x) => x.requirement))
      expect(c.spec?.revision).toMatch(
        c.requirement === 'SDK default' ? /^TypeScript SDK \d+\.\d+\.\d+$/ : /^(MCP \d{4}-\d{2}-\d{2}|RFC \d+|JSON-RPC 2\.0)$/,
      );
  });
  it('an id in two phases (the lifecycle edges in stdio and http) has one definition but for its phase', () => {
    const shared = CHECKS.filter((c) => CHECKS.some((o) => o.id === c.id && o.phase !== c.phase));
    expect(shared.map((c) => `${c.phase} ${c.id}`)).toEqual(
      ['stdio', 'http'].flatMap((phase) =>
        ['unknown-method', 'unknown-tool', 'invalid-arguments', 'repeated-initialize', 'cancellation'].map((id) => `${phase} ${id}`),
      ),
    );
    for (const c of shared) {
      const { phase: _p, ...def } = c;
      const { phase: _q, ...first } = checkDefinition(c.id)!;
      expect(def).toEqual(first);
    }
  });
  it('records a check with its requirement, spec and level; off is skipped whatever was seen', () => {
    expect(checkResult('protocol-version', 'require', { outcome: 'failed', message: '200 (want 400)' })).toEqual({
      id: 'protocol-version',
      outcome: 'failed',
      level: 'require',
      requirement: 'MUST',
      spec: { revision: 'MCP 2025-11-25', section: 'basic/transports#protocol-version-header' },
      message: '200 (want 400)',
    });
    expect(checkResult('origin', 'off', { outcome: 'failed', message: 'x' })).toMatchObject({ outcome: 'skipped', level: 'off' });
    // The spec's level as given: none is defaulted (the harness resolved them; the driver checked them on reading the spec).
    expect(levelOf('origin', { origin: 'off' })).toBe('off');
    // A record without the id's level, or an id that is any string, does not compile (npm run typecheck fails on an
    // unused @ts-expect-error); a spec's record without one is refused on reading (test/driver/spec-levels.test.ts).
    // @ts-expect-error: no level for "origin"
    const missing = () => levelOf('origin', { host: 'require' });
    // @ts-expect-error: an id the types cannot check
    const anyId = (id: string) => levelOf(id, { origin: 'off' });
    expect([missing, anyId]).toHaveLength(2);
  });
  it('a check line names the requirement, the spec revision and the level', () => {
    expect(checkLine(check({ id: 'origin', outcome: 'failed', level: 'require' }))).toBe(
      'origin: a foreign Origin (http://evil.example) got 200 (want 403) [MUST, MCP 2025-11-25 basic/transports#security-warning, level require]',
    );
    expect(checkLine({ id: 'round-trip', outcome: 'failed', level: 'require', message: 'x' })).toBe(
      'round-trip: x [harness, level require]',
    );
  });
});

describe('decidePhase: sub-checks fold into the phase verdict', () => {
  const at = (level: SubCheckResult['level'], outcome: SubCheckResult['outcome']) => ({ level, outcome });
  it.each([
    [[at('require', 'passed'), at('require', 'failed')], 'failed'],
    [[at('require', 'passed'), at('warn', 'failed'), at('warn', 'not-measured')], 'passed'],
    [[at('require', 'not-measured'), at('require', 'passed')], 'not-measured'],
    [[at('require', 'not-measured'), at('require', 'failed')], 'failed'],
    [[at('off', 'skipped'), at('require', 'skipped')], 'skipped'],
    [[at('warn', 'passed'), at('off', 'skipped')], 'passed'],
    [[], 'skipped'],
  ] as const)('%j → %s', (checks, verdict) => {
    expect(decidePhase(checks)).toBe(verdict);
  });
});

describe('config: <phase>.checks', () => {
  const problems = (checks: unknown): string[] => {
    const r = validateConfig({ cells: [{ pin: '1.24.0' }], http: { checks } });
    return r.ok ? [] : r.problems;
  };
  it('accepts a level per known check', () => {
    expect(problems({ origin: 'warn', host: 'off', 'protocol-version': 'require' })).toEqual([]);
  });
  it('an unknown check names the closest and lists every known one', () => {
    expect(problems({ orgin: 'warn' })).toEqual([
      `http.checks.orgin: unknown key (did you mean "origin"?); the known checks are: ${checkIds('http').join(', ')}`,
    ]);
  });
  it('an unknown level lists the levels', () => {
    expect(problems({ origin: 'wran' })).toEqual(['http.checks.origin: must be one of "require", "warn", "off" (did you mean "warn"?)']);
  });
  it('resolves every check: the configured level, else the default for the auth', () => {
    const open = resolveChecks('http', 'none', { 'session-required': 'require' });
    expect(open).toMatchObject({ origin: 'require', host: 'warn', 'session-required': 'require', 'session-id-distinct': 'warn' });
    expect(Object.keys(open)).toEqual(checkIds('http'));
    expect(resolveChecks('http', 'bearer', {})).toMatchObject({ origin: 'warn', host: 'warn', 'protocol-version': 'require' });
  });
});

describe('a stored phase must have the verdict its checks fold to', () => {
  it('the audit names the phase and the deciding check', () => {
    const checks = [check({ id: 'origin', outcome: 'failed', level: 'require' })];
    const run = makeRun([{ ...FOUR_CELLS[0]!, phases: { http: { verdict: 'passed', checks } } }, ...FOUR_CELLS.slice(1)]);
    expect(auditRun(run)).toContain('cell v1-floor: http is stored "passed", but its sub-checks fold to "failed" (origin failed)');
  });
  it('a warning on a passed phase is consistent', () => {
    const checks = [check({ id: 'origin', outcome: 'failed', level: 'warn' }), check({ id: 'host', outcome: 'passed', level: 'require' })];
    const run = makeRun([{ ...FOUR_CELLS[0]!, phases: { http: { verdict: 'passed', checks } } }, ...FOUR_CELLS.slice(1)]);
    expect(auditRun(run)).toEqual([]);
  });
});

describe('reports show every sub-check', () => {
  const warned = check({ id: 'origin', outcome: 'failed', level: 'warn', short: '200 (want 403)' });
  const failed = check({
    id: 'protocol-version',
    outcome: 'failed',
    level: 'require',
    message: 'MCP-Protocol-Version 1999-01-01 got 200 (want 400)',
    short: '200 (want 400)',
    spec: { revision: 'MCP 2025-11-25', section: 'basic/transports#protocol-version-header' },
  });
  const passed = check({ id: 'host', outcome: 'passed', level: 'require' });
  const off = check({ id: 'session-required', outcome: 'skipped', level: 'off', message: 'off in the config (not run)' });
  const run = makeRun([
    { ...FOUR_CELLS[0]!, phases: { http: { verdict: 'passed', checks: [warned, passed, off] } } },
    { ...FOUR_CELLS[1]!, phases: { http: { verdict: 'failed', message: 'protocol-version: …', checks: [warned, passed, failed] } } },
    ...FOUR_CELLS.slice(2),
  ]);

  it('results.json keeps them and reads them back', () => {
    const back = parseResults(renderJson(run));
    expect(back.ok && back.run.cells[1]!.phases.find((p) => p.phase === 'http')!.checks).toEqual([warned, passed, failed]);
  });
  it('matrix.md: the HTTP column names them, a table has one row per check, warnings are listed', () => {
    const md = renderMarkdown(run);
    expect(md).toContain('| ok · warn origin 200 (want 403) |');
    expect(md).toContain('| FAIL · protocol-version 200 (want 400) · warn origin 200 (want 403) |');
    expect(md).toContain('## Sub-checks');
    expect(md).toContain('| http › origin | MUST · MCP 2025-11-25 basic/transports#security-warning | warn | warn | warn | — | — |');
    expect(md).toContain(
      '| http › protocol-version | MUST · MCP 2025-11-25 basic/transports#protocol-version-header | require | — | FAIL | — | — |',
    );
    expect(md).toContain('| http › session-required | MUST · MCP 2025-11-25 basic/transports#security-warning | off | — | — | — | — |');
    expect(md).toContain(
      '- `v1-floor` · http › origin (warn): a foreign Origin (http://evil.example) got 200 (want 403) [MUST, MCP 2025-11-25 basic/transports#security-warning, level warn (harness policy)]',
    );
  });
  it('JUnit: a test case per check; a required failure fails, a warning passes with its finding, off is skipped', () => {
    const xml = renderJunit(run);
    expect(xml).toMatch(
      /<testcase classname="v1-latest" name="http › protocol-version" time="0.000">\n\s*<failure message="protocol-version: MCP-Protocol-Version 1999-01-01 got 200 \(want 400\) \[MUST, MCP 2025-11-25/,
    );
    expect(xml).toMatch(/<testcase classname="v1-floor" name="http › origin" time="0.000">\n\s*<system-out>WARN origin: /);
    expect(xml).toMatch(
      /<testcase classname="v1-floor" name="http › session-required" time="0.000">\n\s*<skipped message="off in the config \(not run\)"\/>/,
    );
    expect(xml).toContain('<testcase classname="v1-floor" name="http › host" time="0.000"/>');
    // v1-latest: 6 phases + 3 checks; failures: the http phase and its required check.
    expect(xml).toMatch(/<testsuite name="v1-latest[^"]*" tests="9" failures="2" errors="0" skipped="0"/);
  });
  it('a passed check that records what the server chose says which: `pass (dropped)` in the table, its line in JUnit', () => {
    const dropped: SubCheckResult = {
      id: 'cancellation',
      outcome: 'passed',
      level: 'require',
      message: 'notifications/cancelled for `tools/call wait`: the cancelled call was dropped (no answer within 1400 ms); …',
      short: 'dropped',
      evidence: { behaviour: 'dropped' },
    };
    const chose = makeRun([{ ...FOUR_CELLS[0]!, phases: { stdio: { verdict: 'passed', checks: [dropped] } } }, ...FOUR_CELLS.slice(1)]);
    expect(auditRun(chose)).toEqual([]);
    expect(renderMarkdown(chose)).toContain('| stdio › cancellation | harness | require | pass (dropped) | — | — | — |');
    expect(renderJunit(chose)).toMatch(
      /<testcase classname="v1-floor" name="stdio › cancellation" time="0.000">\n\s*<system-out>cancellation: notifications\/cancelled for `tools\/call wait`: the cancelled call was dropped .*\[harness, level require\]<\/system-out>/,
    );
  });
  it('the terminal says each warning, and the failed phase with its message', () => {
    const lines = renderTerminalFailures(run);
    expect(lines).toContain(
      'v1-floor · http › origin: warn: a foreign Origin (http://evil.example) got 200 (want 403) [MUST, MCP 2025-11-25 basic/transports#security-warning, level warn (harness policy)]',
    );
    expect(lines).toContain('v1-latest · http: FAIL: protocol-version: …');
  });
});

describe('a check’s reported result, its source, and which ones a reader must see', () => {
  it('the finding’s short form, step and evidence are kept when given and absent when not; an off check says so', () => {
    const full = checkResult('origin', 'warn', {
      outcome: 'failed',
      message: '200',
      short: 'got 200',
      step: 'POST /mcp',
      evidence: { status: 200 },
    });
    expect(full).toMatchObject({
      id: 'origin',
      outcome: 'failed',
      level: 'warn',
      short: 'got 200',
      step: 'POST /mcp',
      evidence: { status: 200 },
    });
    const bare = checkResult('origin', 'warn', { outcome: 'passed', message: '403' });
    for (const key of ['short', 'step', 'evidence']) expect(bare).not.toHaveProperty(key);
    expect(checkResult('origin', 'off', { outcome: 'failed', message: 'x', step: 's' })).toMatchObject({
      outcome: 'skipped',
      message: 'off in the config (not run)',
      short: 'off',
    });
    expect(() => checkResult('no-such-check', 'require', { outcome: 'passed', message: '' })).toThrow(
      'unknown sub-check "no-such-check" (not in src/contract/catalogue.ts)',
    );
  });

  it('a requirement without a spec section is named alone; the harness’s own check is "harness"', () => {
    expect(checkSource({ requirement: 'MUST', level: 'require' })).toBe('MUST, level require');
    expect(checkSource({ level: 'warn' })).toBe('harness, level warn');
  });

  it('a reader sees the checks that failed or were not measured, at require or warn; never an off one', () => {
    const c = (outcome: SubCheckResult['outcome'], level: SubCheckResult['level']) =>
      checkResult('origin', level === 'off' ? 'warn' : level, { outcome, message: outcome });
    const checks = [
      c('failed', 'require'),
      c('not-measured', 'warn'),
      c('passed', 'require'),
      c('skipped', 'warn'),
      { ...c('failed', 'warn'), level: 'off' as const },
    ];
    expect(notableChecks(checks).map((k) => `${k.outcome}/${k.level}`)).toEqual(['failed/require', 'not-measured/warn']);
  });
});

describe('the catalogue read by messages: policies, revisions, the sections the lifecycle edges cite', () => {
  it('a level its entry sets by a named policy says so; a configured level or one by the keyword does not', () => {
    const host = checkDefinition('host')!;
    const origin = checkDefinition('origin')!;
    expect(checkSource({ id: 'host', requirement: host.requirement, spec: host.spec, level: 'warn' })).toBe(
      'SDK default, TypeScript SDK 1.24.0 GHSA-w48q-cv73-mx4w, level warn (harness policy)',
    );
    expect(checkSource({ id: 'host', requirement: host.requirement, spec: host.spec, level: 'require' })).toBe(
      'SDK default, TypeScript SDK 1.24.0 GHSA-w48q-cv73-mx4w, level require',
    );
    // Behind a token Origin's MUST is a warning by policy; its open default is the keyword's.
    expect(checkSource({ id: 'origin', requirement: 'MUST', spec: origin.spec, level: 'warn' })).toMatch(
      /, level warn \(harness policy\)$/,
    );
    expect(checkSource({ id: 'origin', requirement: 'MUST', spec: origin.spec, level: 'require' })).toMatch(/, level require$/);
    // A policy on a MUST at require (the query-string token) is the keyword's own level.
    expect(checkSource({ id: 'token-in-header', requirement: 'MUST', level: 'require' })).toBe('MUST, level require');
    // Without an id or a requirement there is no entry to read.
    expect(checkSource({ requirement: 'SDK default', level: 'warn' })).toBe('SDK default, level warn');
    expect(checkSource({ id: 'host', level: 'warn' })).toBe('harness, level warn');
  });

  it('a contested check is one a reader must see, unless off', () => {
    const contested = checkResult('session', 'require', { outcome: 'contested', message: 'not judged' });
    expect(notableChecks([contested])).toEqual([contested]);
    expect(notableChecks([{ ...contested, level: 'off' }])).toEqual([]);
  });

  it("checkIds: a phase's checks in report order", () => {
    expect(checkIds('stdio')).toEqual([
      'session',
      'unknown-method',
      'unknown-tool',
      'invalid-arguments',
      'repeated-initialize',
      'cancellation',
    ]);
    expect(checkIds('leaks')).toEqual(['shutdown', 'temp-files']);
  });

  it('the lifecycle edges cite the section that writes each rule', () => {
    const sections = Object.fromEntries(
      ['unknown-method', 'unknown-tool', 'invalid-arguments', 'repeated-initialize', 'cancellation'].map((id) => [
        id,
        checkDefinition(id)!.spec,
      ]),
    );
    expect(sections).toEqual({
      'unknown-method': { revision: 'JSON-RPC 2.0', section: '5.1' },
      'unknown-tool': { revision: 'MCP 2025-11-25', section: 'server/tools#error-handling' },
      'invalid-arguments': { revision: 'MCP 2025-11-25', section: 'server/tools#security-considerations' },
      'repeated-initialize': { revision: 'MCP 2025-11-25', section: 'basic/lifecycle#initialization' },
      cancellation: { revision: 'MCP 2025-11-25', section: 'basic/utilities/cancellation' },
    });
  });

  it('byRevision leaves an off check, and a revision that is not a bare date, as they were', () => {
    const origin = checkResult('origin', 'require', { outcome: 'failed', message: 'a foreign Origin got 200' });
    expect(byRevision({ ...origin, level: 'off' }, '2024-11-05')).toStrictEqual({ ...origin, level: 'off' });
    for (const v of ['v2025-11-25', '2025-11-25-draft', 'latest']) expect(byRevision(origin, v)).toBe(origin);
  });

  it('each history names what a revision before it lacks', () => {
    const na = (id: string, level: 'require' | 'warn' = 'require') =>
      byRevision(checkResult(id, level, { outcome: 'failed', message: 'x' }), '2024-11-05').message;
    expect(na('no-token-401')).toBe(
      'not applicable (revision 2024-11-05): MCP 2024-11-05 has no authorization section (basic/authorization); it arrived in 2025-03-26',
    );
    expect(na('oauth-audience')).toBe(
      'not applicable (revision 2024-11-05): MCP 2024-11-05 has no OAuth resource-server rules (RFC 9728 metadata, audience binding); it arrived in 2025-06-18',
    );
    expect(byRevision(checkResult('unknown-tool', 'require', { outcome: 'failed', message: 'x' }), '2024-11-05')).toMatchObject({
      outcome: 'failed',
      spec: { revision: 'MCP 2024-11-05', section: 'server/tools#error-handling' },
    });
  });
});
