import { describe, expect, test } from 'vitest';
import type { ParityAllowance, RunResult } from '../../src/results/types.js';
import { compareRecorded, parityFailures, recordedSnapshot, recordedValues } from '../../src/results/parity.js';
import { auditRun, decideRun, runReasons, storedFacts } from '../../src/judge/verdict.js';
import { mergeResults, renderJson, renderJunit, renderMarkdown, renderSarif } from '../../src/reports/index.js';
import { renderHtml } from '../../src/reports/html/page.js';
import { validateRun } from '../../src/reports/json/validate.js';
import { makeRun, pieceOf, type CellSpec } from '../reports/helpers/make-run.js';

const failing = { isError: true, content: [{ type: 'text', text: 'sha256:aaaaaaaaaaaa (12 chars)' }] };
const lost = { isError: false, content: [{ type: 'text', text: 'sha256:aaaaaaaaaaaa (12 chars)' }] };
const image = (mimeType?: string) => ({
  isError: false,
  content: [{ type: 'image', ...(mimeType ? { mimeType } : {}), data: 'sha256:bbbbbbbbbbbb (96 chars)' }],
});
const recorded = (stdio: Record<string, unknown>, http?: Record<string, unknown>) => ({
  stdio: { details: { compared: stdio } },
  ...(http ? { http: { details: { compared: http } } } : {}),
});
const V1: CellSpec = { id: 'v1-latest', pin: 'latest@1', version: '1.24.0', major: 1, phases: recorded({ 'tools/call fail': failing }) };
const V2: CellSpec = { id: 'v2-latest', pin: 'latest@2', version: '2.4.0', major: 2, phases: recorded({ 'tools/call fail': lost }) };
const V2_SAME: CellSpec = { ...V2, phases: recorded({ 'tools/call fail': failing }) };

function judged(run: RunResult, allow: ParityAllowance[] = [], snapshot?: Record<string, unknown>): RunResult {
  const parity = compareRecorded(run.cells, allow, snapshot);
  return { ...run, parity, ...decideRun(run.cells, run.interrupted, storedFacts({ ...run, parity })) };
}

describe('recorded-value parity', () => {
  test('isError lost on one cell: a finding naming the item, the path and which cells have which value; the run fails', () => {
    const run = judged(makeRun([V1, V2]));
    expect(run.parity!.findings).toEqual(['stdio tools/call fail: isError true on v1-latest (1.24.0); false on v2-latest (2.4.0)']);
    expect(run.parity!.items).toEqual(['stdio tools/call fail']);
    expect(run).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(parityFailures(run.parity)).toEqual([`parity: ${run.parity!.findings[0]}`]);
    expect(runReasons(run.cells, false, storedFacts(run)).join('\n')).toMatch(/^parity: 1 difference in recorded answers/m);
    expect(auditRun(run)).toEqual([]);
    expect(validateRun(run)).toEqual([]);
  });

  test('a value is shown with its keys in order, as results.json stores it: the stored findings are the ones recomputed from it', () => {
    // The driver records {type, text}; results.json sorts keys; report and merge recompute the findings from the file.
    const live = {
      ...V1,
      phases: recorded({ 'tools/call fail': { content: [{ type: 'text', text: 'sha256:aaaaaaaaaaaa (12 chars)' }] } }),
    };
    const run = judged(makeRun([live, { ...V2, phases: recorded({ 'tools/call fail': { isError: true } }) }]));
    expect(run.parity!.findings).toContain(
      "stdio tools/call fail: content [{'text':'sha256:aaaaaaaaaaaa (12 chars)','type':'text'}] on v1-latest (1.24.0); absent on v2-latest (2.4.0)",
    );
    const stored = JSON.parse(renderJson(run)) as RunResult;
    expect(auditRun(stored)).toEqual([]);
  });

  test('a mimeType dropped from an image names content[0].mimeType', () => {
    const a = { ...V1, phases: recorded({ 'tools/call card': image('image/png') }) };
    const b = { ...V2, phases: recorded({ 'tools/call card': image() }) };
    expect(compareRecorded(makeRun([a, b]).cells, []).findings).toEqual([
      "stdio tools/call card: content[0].mimeType 'image/png' on v1-latest (1.24.0); absent on v2-latest (2.4.0)",
    ]);
  });

  test('identical values pass; items are named by phase; a row that did not record an item is not compared for it', () => {
    const a = { ...V1, phases: recorded({ 'tools/call fail': failing, 'tools/call only-here': lost }, { 'tools/call fail': failing }) };
    const b = { ...V2_SAME, phases: recorded({ 'tools/call fail': failing }, { 'tools/call fail': failing }) };
    const run = judged(makeRun([a, b]));
    expect(run.parity).toMatchObject({ findings: [], stale: [], cells: ['v1-latest', 'v2-latest'] });
    expect(run.parity!.items).toEqual(['http tools/call fail', 'stdio tools/call fail', 'stdio tools/call only-here']);
    expect(run).toMatchObject({ verdict: 'passed', exitCode: 0 });
    expect(recordedValues(run.cells[0]!)).toMatchObject({ 'http tools/call fail': failing, 'stdio tools/call only-here': lost });
    expect(recordedSnapshot(run.cells)).toEqual(recordedValues(run.cells[0]!));
  });

  test('an allowance with its reason keeps the difference shown but passing; one that matches nothing is stale and fails', () => {
    const allow = [{ item: 'stdio tools/call fail', path: 'isError', reason: 'known SDK difference' }];
    const run = judged(makeRun([V1, V2]), allow);
    expect(run.parity).toMatchObject({ findings: [], stale: [] });
    expect(run.parity!.allowed).toEqual([
      'stdio tools/call fail: isError true on v1-latest (1.24.0); false on v2-latest (2.4.0) (known SDK difference)',
    ]);
    expect(run.verdict).toBe('passed');

    const stale = judged(makeRun([V1, V2_SAME]), allow);
    expect(stale.parity!.stale).toEqual([
      'parity.allow stdio tools/call fail: isError (known SDK difference) matches no difference: the 2 rows that recorded it agree; delete it',
    ]);
    expect(stale).toMatchObject({ verdict: 'failed', exitCode: 1 });
    const nothing = judged(makeRun([V1, V2_SAME]), [{ item: 'stdio tools/call gone', reason: 'renamed' }]);
    expect(nothing.parity!.stale[0]).toMatch(/no row recorded that item; delete it$/);
    // One row alone cannot show a difference: its allowance is neither used nor stale.
    expect(judged(makeRun([V1]), allow).parity!.stale).toEqual([]);
  });

  test('drift from the snapshot fails; an item the snapshot lacks is drift; an allowance covers drift too', () => {
    const snapshot = { 'stdio tools/call fail': failing };
    expect(judged(makeRun([V1, V2_SAME]), [], snapshot).parity).toMatchObject({ drift: [], findings: [] });
    const drifted = judged(makeRun([V2]), [], snapshot);
    expect(drifted.parity!.drift).toEqual(['stdio tools/call fail: isError true → false (v2-latest)']);
    expect(drifted.verdict).toBe('failed');
    const added = judged(makeRun([{ ...V1, phases: recorded({ 'tools/call fail': failing, 'tools/call new': lost }) }]), [], snapshot);
    expect(added.parity!.drift).toEqual([
      "stdio tools/call new: absent → {'content':[{'text':'sha256:aaaaaaaaaaaa (12 chars)','type':'text'}],'isError':… (v1-latest)",
    ]);
    const allowed = judged(makeRun([V2]), [{ item: 'stdio tools/call fail', path: 'isError', reason: 'r' }], snapshot);
    expect(allowed.parity).toMatchObject({ drift: [], stale: [] });
    const gone = judged(makeRun([{ ...V1, phases: recorded({}) }, V1]), [], { ...snapshot, 'stdio tools/call old': lost });
    expect(gone.parity!.drift).toEqual(['stdio tools/call old: in the snapshot, recorded by no row']);
  });

  test('matrix.md shows the line and the findings; JUnit has a parity suite with a failing case per differing item', () => {
    const run = judged(
      makeRun([
        { ...V1, phases: recorded({ 'tools/call fail': failing, 'tools/call ok': lost }) },
        { ...V2, phases: recorded({ 'tools/call fail': lost, 'tools/call ok': lost }) },
      ]),
    );
    const md = renderMarkdown(run);
    expect(md).toContain('answers: 1 difference in 2 items on 2 cells');
    expect(md).toContain('- differs: stdio tools/call fail: isError true on v1-latest (1.24.0); false on v2-latest (2.4.0)');
    const xml = renderJunit(run);
    expect(xml).toMatch(/<testsuite name="parity" tests="2" failures="1"/);
    expect(xml).toContain('<testcase classname="parity" name="stdio tools/call ok" time="0.000"/>');
    expect(xml).toMatch(
      /<testcase classname="parity" name="stdio tools\/call fail" time="0.000">\s*<failure message="stdio tools\/call fail: isError true/,
    );
    const sarif = JSON.parse(renderSarif(run)) as { runs: { results: { ruleId: string; level: string; message: { text: string } }[] }[] };
    expect(sarif.runs[0]!.results.map((r) => [r.ruleId, r.level])).toEqual([['answers/parity', 'error']]);
    expect(sarif.runs[0]!.results[0]!.message.text).toContain('stdio tools/call fail: isError true on v1-latest');
    const stale = judged(makeRun([V1, V2_SAME]), [{ item: 'stdio tools/call fail', reason: 'r' }]);
    expect(JSON.parse(renderSarif(stale)).runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toEqual(['answers/stale-allowance']);
    const html = renderHtml(run);
    expect(html).toContain('<h2>Answer parity</h2>');
    expect(html).toMatch(/1 difference\(s\) in 2 items on 2 cells/);
    expect(html).toContain('differs: stdio tools/call fail: isError true on v1-latest (1.24.0); false on v2-latest (2.4.0)');
    const passing = judged(makeRun([V1, V2_SAME]));
    expect(renderMarkdown(passing)).toContain('answers: 1 item identical on 2 cells');
  });

  test('merge recomputes parity across pieces, and audit refuses a file whose stored findings its cells contradict', () => {
    const whole = makeRun([V1, V2]);
    const pieces = whole.cells.map((cell) => judged(pieceOf(whole, cell.id, whole.startedAt, whole.finishedAt)));
    expect(pieces.every((p) => p.parity!.findings.length === 0)).toBe(true);
    const merged = mergeResults(pieces.map((run, i) => ({ file: `piece-${i}.json`, run })));
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.run.parity!.findings).toEqual(['stdio tools/call fail: isError true on v1-latest (1.24.0); false on v2-latest (2.4.0)']);
    expect(merged.run.verdict).toBe('failed');
    const forged = { ...judged(whole), parity: { ...judged(whole).parity!, findings: [] } };
    expect(auditRun(forged).join('\n')).toMatch(
      /stored parity findings \[\], but its cells' recorded values say \[stdio tools\/call fail: isError/,
    );
  });
});

describe('recorded-value parity: edges', () => {
  test('rows without values are not compared; parityFailures names each kind', () => {
    expect(recordedValues({ phases: [] })).toBeUndefined();
    const empty = { ...V1, phases: { stdio: { details: { compared: {} } }, http: { details: { compared: null } } } } as unknown as CellSpec;
    expect(recordedValues(makeRun([empty]).cells[0]!)).toBeUndefined();
    expect(recordedSnapshot(makeRun([empty, V2]).cells)).toEqual({ 'stdio tools/call fail': lost });
    expect(recordedSnapshot(makeRun([empty]).cells)).toBeUndefined();
    expect(parityFailures(undefined)).toEqual([]);
    const check = { cells: [], items: [], findings: ['f'], allowed: ['a'], stale: ['s'], allow: [], drift: ['d'] };
    expect(parityFailures(check)).toEqual(['parity: f', 'parity snapshot: d', 'parity: stale s']);
  });

  test('allowances: kept in the check, used by drift too, stale only when two rows could have shown the difference', () => {
    const allow = [{ item: 'stdio tools/call fail', path: 'isError', reason: 'r' }];
    const bySnapshot = compareRecorded(makeRun([V2, { ...V2, id: 'v2-other' }]).cells, allow, { 'stdio tools/call fail': failing });
    expect(bySnapshot).toMatchObject({ findings: [], drift: [], stale: [], allow });
    const gone = [{ item: 'stdio tools/call gone', reason: 'renamed' }];
    expect(compareRecorded(makeRun([V1]).cells, gone).stale).toEqual([]);
    expect(compareRecorded(makeRun([V1, V2_SAME]).cells, gone).stale).toEqual([
      'parity.allow stdio tools/call gone: (renamed) matches no difference: no row recorded that item; delete it',
    ]);
  });

  test('snapshot items no row recorded: named in order, unless a row recorded them or an allowance covers them', () => {
    const snapshot = { 'stdio tools/call z': lost, 'stdio tools/call fail': failing, 'stdio tools/call a': lost };
    expect(compareRecorded([], [], snapshot).drift).toEqual([]);
    const partial = { ...V2_SAME, phases: recorded({ 'tools/call fail': failing, 'tools/call a': lost }) };
    expect(compareRecorded(makeRun([V1, partial]).cells, [], snapshot).drift).toEqual([
      'stdio tools/call z: in the snapshot, recorded by no row',
    ]);
    expect(compareRecorded(makeRun([V1]).cells, [], snapshot).drift).toEqual([
      'stdio tools/call a: in the snapshot, recorded by no row',
      'stdio tools/call z: in the snapshot, recorded by no row',
    ]);
    expect(compareRecorded(makeRun([V1]).cells, [{ item: 'stdio tools/call z', reason: 'r' }], snapshot).drift).toEqual([
      'stdio tools/call a: in the snapshot, recorded by no row',
    ]);
  });
});
