// Every check judged by the MCP revision the cell negotiated (byRevision): an MCP requirement cites that revision,
// one the revision does not have is `not-applicable (revision X)` (never failed, never passed), and every report
// shows it with the revision. The catalogue's histories are checked against the boundary of each, both ways.
import { describe, expect, it } from 'vitest';
import type { SubCheckResult } from '../../src/results/types.js';
import { byRevision, CHECKS, checkDefinition, checkResult, decidePhase, MCP_REVISIONS } from '../../src/contract/checks.js';
import { auditRun } from '../../src/judge/verdict.js';
import { parseResults, renderJson, renderJunit, renderMarkdown } from '../../src/reports/index.js';
import { renderTerminalFailures } from '../../src/reports/terminal.js';
import { renderSarif } from '../../src/reports/sarif/sarif.js';
import { FOUR_CELLS, makeRun } from '../reports/helpers/make-run.js';

const ignored = checkResult('protocol-version', 'require', {
  outcome: 'failed',
  message: 'a request with MCP-Protocol-Version 1999-01-01 got 200 (want 400: the header is ignored)',
  short: '200 (want 400)',
  step: 'request with an unsupported protocol version',
  evidence: { unsupported: '200', negotiated: '200', version: '2025-03-26' },
});

describe('byRevision', () => {
  it('a header check under 2025-03-26, which has no MCP-Protocol-Version header: not applicable, naming both revisions', () => {
    const judged = byRevision(ignored, '2025-03-26');
    expect(judged).toStrictEqual({
      id: 'protocol-version',
      outcome: 'not-applicable',
      level: 'require',
      requirement: 'MUST',
      spec: { revision: 'MCP 2025-06-18', section: 'basic/transports#protocol-version-header' },
      revision: '2025-03-26',
      message: 'not applicable (revision 2025-03-26): MCP 2025-03-26 has no MCP-Protocol-Version header; it arrived in 2025-06-18',
      short: 'n/a (2025-03-26)',
      evidence: {
        unsupported: '200',
        negotiated: '200',
        version: '2025-03-26',
        seen: { outcome: 'failed', message: ignored.message },
      },
    });
    // Never failed, never passed: the phase folds as if it were not there.
    expect(decidePhase([judged])).toBe('skipped');
    expect(decidePhase([judged, { level: 'require', outcome: 'passed' }])).toBe('passed');
    expect(decidePhase([judged, { level: 'require', outcome: 'failed' }])).toBe('failed');
  });

  it('the same check under 2025-06-18 and later is judged, citing the revision judged by', () => {
    for (const v of ['2025-06-18', '2025-11-25', '2026-07-28'])
      expect(byRevision(ignored, v)).toStrictEqual({
        ...ignored,
        spec: { revision: `MCP ${v}`, section: 'basic/transports#protocol-version-header' },
        revision: v,
      });
  });

  it('sessions: none before 2025-03-26 (HTTP+SSE has none), none from 2026-07-28 (removed), citing the last text that has them', () => {
    const distinct = checkResult('session-id-distinct', 'warn', { outcome: 'failed', message: 'two sessions got the same Mcp-Session-Id' });
    expect(byRevision(distinct, '2024-11-05')).toMatchObject({
      outcome: 'not-applicable',
      message:
        'not applicable (revision 2024-11-05): MCP 2024-11-05 has no Streamable HTTP sessions (Mcp-Session-Id); it arrived in 2025-03-26',
      spec: { revision: 'MCP 2025-03-26' },
    });
    expect(byRevision(distinct, '2026-07-28')).toMatchObject({
      outcome: 'not-applicable',
      message:
        'not applicable (revision 2026-07-28): MCP 2026-07-28 has no Streamable HTTP sessions (Mcp-Session-Id); 2026-07-28 removed it',
      spec: { revision: 'MCP 2025-11-25' },
    });
    expect(byRevision(distinct, '2025-03-26')).toMatchObject({ outcome: 'failed', spec: { revision: 'MCP 2025-03-26' } });
  });

  it('Origin is a MUST from the first revision: judged under 2024-11-05 too', () => {
    const origin = checkResult('origin', 'require', { outcome: 'failed', message: 'a foreign Origin got 200' });
    expect(byRevision(origin, '2024-11-05')).toMatchObject({
      outcome: 'failed',
      spec: { revision: 'MCP 2024-11-05', section: 'basic/transports#security-warning' },
      revision: '2024-11-05',
    });
  });

  it('leaves alone what no MCP revision decides, an off check, a second judge, and a revision that is no date', () => {
    const host = checkResult('host', 'warn', { outcome: 'failed', message: 'Host evil.example:1 got 200' });
    const challenge = checkResult('www-authenticate', 'require', { outcome: 'failed', message: 'without WWW-Authenticate' });
    const method = checkResult('unknown-method', 'require', { outcome: 'passed', message: '-32601' });
    for (const c of [host, challenge, method]) expect(byRevision(c, '2024-11-05')).toBe(c);
    const off = checkResult('protocol-version', 'off', { outcome: 'passed', message: '' });
    expect(byRevision(off, '2025-03-26')).toBe(off);
    const suite: SubCheckResult = { ...ignored, judge: '@modelcontextprotocol/conformance@0.1.16' };
    expect(byRevision(suite, '2025-03-26')).toBe(suite);
    for (const v of [undefined, 'DRAFT-2026-v1', '2025-3-26']) expect(byRevision(ignored, v)).toBe(ignored);
  });

  it('every MCP history in the catalogue holds at its boundary, both ways', () => {
    const withHistory = CHECKS.filter((c) => c.revisions);
    expect(withHistory.length).toBeGreaterThan(10);
    for (const def of withHistory) {
      const h = def.revisions!;
      expect(MCP_REVISIONS).toContain(h.since);
      const c = checkResult(def.id, 'require', { outcome: 'passed', message: 'ok' });
      const before = MCP_REVISIONS[MCP_REVISIONS.indexOf(h.since as (typeof MCP_REVISIONS)[number]) - 1];
      if (before) expect([def.id, byRevision(c, before).outcome]).toEqual([def.id, 'not-applicable']);
      expect([def.id, byRevision(c, h.since).outcome]).toEqual([def.id, 'passed']);
      if (h.until) expect([def.id, byRevision(c, h.until).outcome]).toEqual([def.id, 'not-applicable']);
    }
    // What the issue names: the header from 2025-06-18, Origin from 2024-11-05 with 403 from 2025-11-25.
    expect(checkDefinition('protocol-version')!.revisions!.since).toBe('2025-06-18');
    expect(checkDefinition('origin')!.revisions).toMatchObject({ since: '2024-11-05', changes: [{ revision: '2025-11-25' }] });
  });
});

describe('reports show a check not applicable under the negotiated revision, with the revision', () => {
  const na = byRevision(ignored, '2025-03-26');
  const judged = byRevision(
    checkResult('origin', 'warn', { outcome: 'failed', message: 'a foreign Origin got 200 (want a refusal)', short: '200' }),
    '2025-06-18',
  );
  const run = makeRun([
    { ...FOUR_CELLS[0]!, phases: { http: { verdict: 'passed', checks: [na, judged] } } },
    { ...FOUR_CELLS[1]!, phases: { http: { verdict: 'failed', message: 'protocol-version: …', checks: [ignored] } } },
    ...FOUR_CELLS.slice(2),
  ]);

  it('results.json keeps it and the audit agrees with the fold', () => {
    const back = parseResults(renderJson(run));
    expect(back.ok && back.run.cells[0]!.phases.find((p) => p.phase === 'http')!.checks).toEqual([na, judged]);
    expect(auditRun(run)).toEqual([]);
  });
  it('matrix.md: `n/a (revision)` in its row, the revision each variant was judged by, and the note with its citation', () => {
    const md = renderMarkdown(run);
    expect(md).toContain('| judged by MCP revision |   |   | 2025-03-26 | — | — | — |');
    expect(md).toMatch(/\| http › protocol-version \| MUST · MCP 2025-06-18 [^|]+ \| require \| n\/a \(2025-03-26\) \| FAIL \| — \| — \|/);
    expect(md).toContain(
      '- `v1-floor` · http › protocol-version (not applicable): not applicable (revision 2025-03-26): MCP 2025-03-26 has no MCP-Protocol-Version header; it arrived in 2025-06-18 [MUST, MCP 2025-06-18 basic/transports#protocol-version-header, level require]',
    );
  });
  it('JUnit: skipped, its message citing the revision', () => {
    expect(renderJunit(run)).toMatch(
      /<testcase classname="v1-floor" name="http › protocol-version" time="0.000">\n\s*<skipped message="protocol-version: not applicable \(revision 2025-03-26\): [^"]*\[MUST, MCP 2025-06-18 basic\/transports#protocol-version-header, level require\]"\/>/,
    );
  });
  it('the terminal names it once, with the revision; a warning cites the revision it was judged by', () => {
    const lines = renderTerminalFailures(run);
    expect(lines).toContain(
      'v1-floor · http › protocol-version: not applicable (revision 2025-03-26): MCP 2025-03-26 has no MCP-Protocol-Version header; it arrived in 2025-06-18 [MUST, MCP 2025-06-18 basic/transports#protocol-version-header, level require]',
    );
    expect(lines).toContain(
      'v1-floor · http › origin: warn: a foreign Origin got 200 (want a refusal) [MUST, MCP 2025-06-18 basic/transports#security-warning, level warn (harness policy)]',
    );
  });
  it('SARIF: no finding for it; a finding carries the helpUri of the revision it was judged by', () => {
    const log = JSON.parse(renderSarif(run)) as { runs: { results: { ruleId: string; properties: Record<string, unknown> }[] }[] };
    const results = log.runs[0]!.results;
    expect(results.filter((r) => r.properties.cell === 'v1-floor' && r.ruleId === 'http/protocol-version')).toEqual([]);
    expect(results.find((r) => r.properties.cell === 'v1-floor' && r.ruleId === 'http/origin')!.properties.helpUri).toBe(
      'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning',
    );
  });
});
