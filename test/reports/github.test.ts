import { describe, expect, test } from 'vitest';
import { escapeData, escapeProperty, groupLines, renderAnnotations, renderStepSummary } from '../../src/reports/index.js';
import { capAnnotations, renderMergeErrorAnnotations, renderMergeErrorSummary } from '../../src/reports/github.js';
import { FOUR_CELLS, makeRun } from './helpers/make-run.js';

describe('workflow commands', () => {
  test('escaping of data and properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });

  test('one ::error per failed phase, warnings for allowed and not measured', () => {
    const [floor, v1, rep] = FOUR_CELLS;
    const run = makeRun([
      { ...floor!, phases: { stdio: { verdict: 'failed', message: 'bad: 50%\nnext line', step: 'initialize' } } },
      { ...v1!, phases: { http: { verdict: 'not-measured', message: 'registry down' } } },
      { ...rep!, allowedToFail: true, phases: { bind: { verdict: 'failed', message: 'listened' } } },
    ]);
    const lines = renderAnnotations(run);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      '::error title=mcp-matrix v1-floor · stdio failed::1.24.0 (lower supported boundary): bad: 50%25%0Anext line%0Astep: initialize%0Arepro: npx mcp-matrix run --cell v1-floor',
    );
    expect(lines[1]).toMatch(/^::warning title=mcp-matrix v1-latest · http not measured::/);
    expect(lines[2]).toMatch(/^::warning title=mcp-matrix v2-rep · bind failed \(allowed\)::/);
    for (const line of lines) expect(line).not.toMatch(/[\r\n]/);
  });

  test('a passing run has no annotations; a stale allowance has one', () => {
    expect(renderAnnotations(makeRun())).toEqual([]);
    const [floor] = FOUR_CELLS;
    const [line] = renderAnnotations(makeRun([{ ...floor!, allowedToFail: true }]));
    expect(line).toMatch(/^::error title=mcp-matrix v1-floor%3A stale allowance::/);
  });

  test('cell ids with : and , are escaped in the title', () => {
    const run = makeRun([{ id: 'a:b,c', pin: '1.24.0', version: '1.24.0', major: 1, phases: { bind: { verdict: 'failed' } } }]);
    expect(renderAnnotations(run)[0]).toMatch(/^::error title=mcp-matrix a%3Ab%2Cc · bind failed::/);
  });

  test('groupLines folds and neutralises workflow commands in server output', () => {
    const lines = groupLines('cell v1-floor\n::x', ['ok', '  ::add-mask::secret', 'a\n::set-output name=x::y', 'x ##[error]y']);
    expect(lines[0]).toBe('::group::cell v1-floor%0A::x');
    expect(lines.at(-1)).toBe('::endgroup::');
    const inner = lines.slice(1, -1);
    expect(inner).toHaveLength(5);
    for (const line of inner) {
      expect(line.trimStart().startsWith('::')).toBe(false);
      expect(line).not.toContain('##[');
    }
  });

  test('step summary: the table and the failures, without the environment', () => {
    const [floor] = FOUR_CELLS;
    const summary = renderStepSummary(makeRun([{ ...floor!, phases: { http: { verdict: 'failed', message: 'no 401' } } }]));
    expect(summary).toContain('| Pin (role) |');
    expect(summary).toContain('### v1-floor · http');
    expect(summary).not.toContain('## Environment');
  });
});

describe('annotation limits (GitHub shows at most 10 per kind per step)', () => {
  const errors = (n: number) => Array.from({ length: n }, (_, i) => `::error title=t${i}::m${i}`);

  test('up to 9: all of them; past 9: the first 9, then "N more: see the summary"', () => {
    expect(capAnnotations(errors(9))).toEqual(errors(9));
    const capped = capAnnotations(errors(14));
    expect(capped).toHaveLength(10);
    expect(capped.slice(0, 9)).toEqual(errors(9));
    expect(capped[9]).toBe('::error title=mcp-matrix::5 more: see the summary');
    expect(capAnnotations(Array.from({ length: 11 }, () => '::warning title=w::x'))[9]).toBe(
      '::warning title=mcp-matrix::2 more: see the summary',
    );
  });

  test('every failing phase of a big matrix: 10 annotations, the rest in the summary', () => {
    const specs = Array.from({ length: 12 }, (_, i) => ({
      ...FOUR_CELLS[0]!,
      id: `c${i}`,
      phases: { stdio: { verdict: 'failed' as const, message: `boom ${i}` } },
    }));
    const run = makeRun(specs);
    expect(renderAnnotations(run)).toHaveLength(12);
    expect(capAnnotations(renderAnnotations(run))).toHaveLength(10);
    for (let i = 0; i < 12; i++) expect(renderStepSummary(run)).toContain(`boom ${i}`);
  });

  test('merge errors: one annotation each (escaped), the list in the summary', () => {
    const e = ['cell v1 (pin 1.0.0) has no evidence: no piece contains it', 'a: b, c'];
    expect(renderMergeErrorAnnotations(e)).toEqual([
      '::error title=mcp-matrix merge::cell v1 (pin 1.0.0) has no evidence: no piece contains it',
      '::error title=mcp-matrix merge::a: b, c',
    ]);
    expect(renderMergeErrorSummary(e)).toContain('- cell v1 (pin 1.0.0) has no evidence: no piece contains it\n');
  });
});
