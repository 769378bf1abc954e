import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { mergeResults, renderMarkdown } from '../../src/reports/index.js';
import { compareCells, compareSnapshot, isAllowed, parseSnapshot, surfaceCheck, surfaceFailures } from '../../src/results/surface.js';
import { auditRun, decideRun, storedFacts } from '../../src/results/verdict.js';
import { CLIENT_NEW, CLIENT_OLD, makeRun, pieceOf, variantSpecs, type CellSpec } from '../reports/helpers/make-run.js';

const add = (required?: string[]) => ({
  description: 'Add two numbers',
  inputSchema: { properties: { a: { type: 'number' }, b: { type: 'number' } }, ...(required ? { required } : {}), type: 'object' },
});
const surfaceOf = (parity: Record<string, unknown>) => ({ stdio: { details: { parity } } });
const V1: CellSpec = { id: 'v1-latest', pin: 'latest@1', version: '1.24.0', major: 1, phases: surfaceOf({ 'tool add': add(['a', 'b']) }) };
const V2: CellSpec = { id: 'v2-latest', pin: 'latest@2', version: '2.4.0', major: 2, phases: surfaceOf({ 'tool add': add() }) };
const V2_SAME: CellSpec = { ...V2, phases: surfaceOf({ 'tool add': add(['a', 'b']) }) };

function withSurface(run: RunResult, allow: { item: string; path?: string }[] = [], drift?: string[]): RunResult {
  const surface = surfaceCheck(run.cells, allow, drift);
  return { ...run, surface, ...decideRun(run.cells, run.interrupted, { ...storedFacts({ ...run, surface }) }) };
}

describe('surface parity', () => {
  test('with axes, a cell whose every variant saw the value is named once; a variant that differs from its cell is named alone', () => {
    const byCell = compareCells(makeRun(variantSpecs({}, [V1, V2], [CLIENT_OLD, CLIENT_NEW], [])).cells, []);
    expect(byCell.findings).toEqual([
      "tool add: inputSchema.required ['a','b'] on v1-latest (1.24.0, all 2 variants); absent on v2-latest (2.4.0, all 2 variants)",
    ]);
    const oneVariant = compareCells(
      makeRun(variantSpecs({ 'v2-latest~client-1.0.0': { phases: V2_SAME.phases } }, [V1, V2], [CLIENT_OLD, CLIENT_NEW], [])).cells,
      [],
    );
    expect(oneVariant.findings).toEqual([
      "tool add: inputSchema.required ['a','b'] on v1-latest (1.24.0, all 2 variants), v2-latest~client-1.0.0 (2.4.0); absent on v2-latest~client-latest-2 (2.4.0)",
    ]);
    const drift = compareSnapshot(
      { 'tool add': add(['a', 'b']) },
      makeRun(variantSpecs({}, [V1, V2], [CLIENT_OLD, CLIENT_NEW], [])).cells,
      [],
    );
    expect(drift).toEqual(["tool add: inputSchema.required ['a','b'] → absent (v2-latest (all 2 variants))"]);
  });

  test('a schema that loses its required list on one major is a finding naming the item, the path and the cells', () => {
    const parity = compareCells(makeRun([V1, V2]).cells, []);
    expect(parity.findings).toEqual(["tool add: inputSchema.required ['a','b'] on v1-latest (1.24.0); absent on v2-latest (2.4.0)"]);
    expect(parity.cells).toEqual(['v1-latest', 'v2-latest']);
  });

  test('identical surfaces have no findings; a missing item is named', () => {
    expect(compareCells(makeRun([V1, V2_SAME]).cells, []).findings).toEqual([]);
    const extra: CellSpec = { ...V2, phases: surfaceOf({ 'tool add': add(['a', 'b']), 'prompt draft': { description: 'd' } }) };
    expect(compareCells(makeRun([V1, extra]).cells, []).findings).toEqual([
      "prompt draft: absent on v1-latest (1.24.0); {'description':'d'} on v2-latest (2.4.0)",
    ]);
  });

  test('the run fails on a finding, and passes when the config allows that path', () => {
    expect(withSurface(makeRun([V1, V2]))).toMatchObject({ verdict: 'failed', exitCode: 1 });
    const allowed = withSurface(makeRun([V1, V2]), [{ item: 'tool add', path: 'inputSchema' }]);
    expect(allowed).toMatchObject({ verdict: 'passed', exitCode: 0 });
    expect(allowed.surface!.allowed).toHaveLength(1);
    expect(isAllowed([{ item: 'tool add', path: 'inputSchema.req' }], 'tool add', 'inputSchema.required')).toBe(false);
    expect(isAllowed([{ item: 'tool add' }], 'tool add', 'inputSchema.required')).toBe(true);
  });

  test('matrix.md shows the parity line under the headline', () => {
    expect(renderMarkdown(withSurface(makeRun([V1, V2_SAME])))).toContain('\n\nsurface: identical on 2 cells\n');
    const md = renderMarkdown(withSurface(makeRun([V1, V2])));
    expect(md).toContain('surface: 1 difference on 2 cells\n- differs: tool add: inputSchema.required');
  });

  test('auditRun refuses stored findings its cells do not support', () => {
    const run = withSurface(makeRun([V1, V2]));
    expect(auditRun(run)).toEqual([]);
    const edited: RunResult = { ...run, surface: { ...run.surface!, findings: [] }, verdict: 'passed', exitCode: 0 };
    expect(auditRun(edited).join('\n')).toMatch(
      /stored surface findings \[\], but its cells' surfaces say \[tool add: inputSchema\.required/,
    );
  });

  test('merge recomputes parity across single-cell pieces (each clean alone)', () => {
    const whole = makeRun([V1, V2]);
    const parts = whole.cells.map((cell, i) => {
      const piece = pieceOf(whole, cell.id, `2026-08-25T10:0${i}:00.000Z`, `2026-08-25T10:0${i}:30.000Z`);
      return { file: `${cell.id}.json`, run: withSurface(piece) };
    });
    expect(parts.map((p) => p.run.verdict)).toEqual(['passed', 'passed']);
    const merged = mergeResults(parts);
    expect(merged.ok).toBe(true);
    if (merged.ok) {
      expect(merged.run).toMatchObject({ verdict: 'failed', exitCode: 1 });
      expect(merged.run.surface!.findings).toEqual(compareCells(whole.cells, []).findings);
      expect(auditRun(merged.run)).toEqual([]);
    }
  });
});

describe('surface snapshot', () => {
  test('drift names the item, the path, old → new and the cells; a match has none', () => {
    const cells = makeRun([V1, V2_SAME]).cells;
    expect(compareSnapshot({ 'tool add': add(['a', 'b']) }, cells, [])).toEqual([]);
    expect(compareSnapshot({ 'tool add': add(['a']) }, cells, [])).toEqual([
      "tool add: inputSchema.required ['a'] → ['a','b'] (v1-latest, v2-latest)",
    ]);
    const run = withSurface(makeRun([V1, V2_SAME]), [], compareSnapshot({ 'tool add': add(['a']) }, cells, []));
    expect(run).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(surfaceFailures(run.surface)).toEqual([
      "surface snapshot: tool add: inputSchema.required ['a'] → ['a','b'] (v1-latest, v2-latest)",
    ]);
    expect(renderMarkdown(run)).toContain("- changed since mcp-surface.json: tool add: inputSchema.required \\['a'\\] → \\['a','b'\\]");
  });

  test('a snapshot that is not one says how to regenerate it', () => {
    expect(parseSnapshot('{"tools": []}')).toMatchObject({ ok: false, error: expect.stringMatching(/--update-surface/) });
    expect(parseSnapshot('nope')).toMatchObject({ ok: false, error: expect.stringMatching(/^not JSON/) });
  });
});

describe('surface paths', () => {
  test('a list of objects is compared by position, so the path names the field', () => {
    const prompt = (args: unknown[]) => surfaceOf({ 'prompt draft': { arguments: args } });
    const a: CellSpec = { ...V1, phases: prompt([{ name: 'topic', required: true }]) };
    const b: CellSpec = { ...V2, phases: prompt([{ description: 'What about', name: 'topic', required: true }]) };
    expect(compareCells(makeRun([a, b]).cells, []).findings).toEqual([
      "prompt draft: arguments[0].description absent on v1-latest (1.24.0); 'What about' on v2-latest (2.4.0)",
    ]);
    expect(compareCells(makeRun([a, b]).cells, [{ item: 'prompt draft', path: 'arguments' }]).findings).toEqual([]);
  });
});
