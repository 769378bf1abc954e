import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/results/types.js';
import { mergeResults, renderMarkdown } from '../../src/reports/index.js';
import {
  cellSurface,
  compareCells,
  compareSnapshot,
  diffSurfaces,
  isAllowed,
  parseSnapshot,
  renderSnapshot,
  snapshotOf,
  SNAPSHOT_FILE,
  surfaceCheck,
  surfaceFailures,
} from '../../src/results/surface.js';
import { auditRun, decideRun, storedFacts } from '../../src/judge/verdict.js';
import { CLIENT_NEW, CLIENT_OLD, makeRun, pieceOf, variantSpecs, type CellSpec } from '../reports/helpers/make-run.js';
import { malformed } from '../helpers/malformed.js';

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

describe('surface: what is compared', () => {
  const V3: CellSpec = { id: 'v2-rep', pin: '2.0.0', version: '2.0.0', major: 2, phases: surfaceOf({ 'tool add': add(['a', 'b']) }) };
  const NO_STDIO: CellSpec = { ...V2, id: 'v2-broken', phases: { stdio: { verdict: 'failed' } } };

  test('a cell whose stdio run recorded no surface (no phase, no details, no parity) is left out, not compared as empty', () => {
    expect(cellSurface({ phases: [] })).toBeUndefined();
    expect(cellSurface({ phases: [{ phase: 'stdio', verdict: 'failed', durationMs: 1 }] })).toBeUndefined();
    expect(
      cellSurface({ phases: [{ phase: 'stdio', verdict: 'passed', durationMs: 1, details: { parity: malformed([]) } }] }),
    ).toBeUndefined();
    const cells = makeRun([V1, NO_STDIO, V2_SAME]).cells;
    expect(compareCells(cells, [])).toEqual({ cells: ['v1-latest', 'v2-latest'], findings: [], allowed: [] });
    expect(compareSnapshot({ 'tool add': add(['a']) }, cells, [])).toEqual([
      "tool add: inputSchema.required ['a'] → ['a','b'] (v1-latest, v2-latest)",
    ]);
    expect(snapshotOf(cells)).toEqual({ 'tool add': add(['a', 'b']) });
    expect(snapshotOf(makeRun([NO_STDIO]).cells)).toBeUndefined();
    expect(snapshotOf(makeRun([NO_STDIO, V2]).cells)).toEqual({ 'tool add': add() });
  });

  test('differences come item by item and key by key in sorted order, whatever order the server listed them in', () => {
    expect(diffSurfaces({ 'tool z': { b: 1, a: 1 }, 'tool a': 1 }, { 'tool a': 2, 'tool z': { a: 2, b: 2 } })).toEqual([
      { item: 'tool a', path: '', a: 1, b: 2 },
      { item: 'tool z', path: 'a', a: 1, b: 2 },
      { item: 'tool z', path: 'b', a: 1, b: 2 },
    ]);
  });

  test('a list holding any object is compared by position, to the longer list’s end; a list of names is compared whole', () => {
    expect(diffSurfaces({ p: { args: [{ n: 1 }, 'x'] } }, { p: { args: [{ n: 2 }, 'x'] } })).toEqual([
      { item: 'p', path: 'args[0].n', a: 1, b: 2 },
    ]);
    expect(diffSurfaces({ p: { args: [{ n: 1 }] } }, { p: { args: [{ n: 1 }, { n: 2 }] } })).toEqual([
      { item: 'p', path: 'args[1]', a: undefined, b: { n: 2 } },
    ]);
    expect(diffSurfaces({ p: { req: ['a'] } }, { p: { req: ['a', 'b'] } })).toEqual([{ item: 'p', path: 'req', a: ['a'], b: ['a', 'b'] }]);
  });

  test('null is a value, not an object to walk into', () => {
    expect(diffSurfaces({ p: { meta: null } }, { p: { meta: { a: 1 } } })).toEqual([{ item: 'p', path: 'meta', a: null, b: { a: 1 } }]);
    const a: CellSpec = { ...V1, phases: surfaceOf({ p: { meta: null } }) };
    const b: CellSpec = { ...V2, phases: surfaceOf({ p: { meta: { a: 1 } } }) };
    expect(compareCells(makeRun([a, b]).cells, []).findings).toEqual(["p: meta null on v1-latest (1.24.0); {'a':1} on v2-latest (2.4.0)"]);
  });

  test('every differing path is its own finding', () => {
    const a: CellSpec = { ...V1, phases: surfaceOf({ 'tool add': { description: 'one', title: 'A' } }) };
    const b: CellSpec = { ...V2, phases: surfaceOf({ 'tool add': { description: 'two', title: 'B' } }) };
    expect(compareCells(makeRun([a, b]).cells, []).findings).toEqual([
      "tool add: description 'one' on v1-latest (1.24.0); 'two' on v2-latest (2.4.0)",
      "tool add: title 'A' on v1-latest (1.24.0); 'B' on v2-latest (2.4.0)",
    ]);
  });

  test('a path one cell lacks reads as absent there; an index reads only a list, and only a whole number is an index', () => {
    const at = (args: unknown): CellSpec['phases'] => surfaceOf({ 'prompt draft': { arguments: args } });
    const cells = makeRun([
      { ...V1, phases: at(['a', { n: 1 }]) },
      { ...V2, phases: at(['b', { n: 1 }]) },
      { ...V3, phases: at('zz') },
      { ...V2, id: 'v2-none', phases: surfaceOf({}) },
    ]).cells;
    expect(compareCells(cells, []).findings).toEqual([
      "prompt draft: arguments[0] 'a' on v1-latest (1.24.0); 'b' on v2-latest (2.4.0); absent on v2-rep (2.0.0), v2-none (2.4.0)",
      "prompt draft: arguments ['a',{'n':1}] on v1-latest (1.24.0); ['b',{'n':1}] on v2-latest (2.4.0); 'zz' on v2-rep (2.0.0); absent on v2-none (2.4.0)",
      "prompt draft: {'arguments':['a',{'n':1}]} on v1-latest (1.24.0); {'arguments':['b',{'n':1}]} on v2-latest (2.4.0); {'arguments':'zz'} on v2-rep (2.0.0); absent on v2-none (2.4.0)",
    ]);
    const long = Array.from({ length: 12 }, (_, i) => ({ n: i }));
    const longer = long.map((x, i) => (i === 10 ? { n: 'ten' } : x));
    expect(
      compareCells(
        makeRun([
          { ...V1, phases: at(long) },
          { ...V2, phases: at(longer) },
        ]).cells,
        [],
      ).findings,
    ).toEqual(["prompt draft: arguments[10].n 10 on v1-latest (1.24.0); 'ten' on v2-latest (2.4.0)"]);
    // '1e1' and '0x1' are keys of an object on two cells and a list on the third: Number() would read them as 10 and 1.
    const keyed = (v: unknown): CellSpec['phases'] => surfaceOf({ x: { p: v } });
    const odd = makeRun([
      { ...V1, phases: keyed({ '1e1': 'a', '0x1': 'a' }) },
      { ...V2, phases: keyed({ '1e1': 'b', '0x1': 'b' }) },
      { ...V3, phases: keyed(long) },
    ]).cells;
    expect(compareCells(odd, []).findings.filter((f) => f.startsWith('x: p.'))).toEqual([
      "x: p.0x1 'a' on v1-latest (1.24.0); 'b' on v2-latest (2.4.0); absent on v2-rep (2.0.0)",
      "x: p.1e1 'a' on v1-latest (1.24.0); 'b' on v2-latest (2.4.0); absent on v2-rep (2.0.0)",
    ]);
  });

  test('a long value is cut at 80 characters with an ellipsis; one of exactly 80 is shown whole', () => {
    const text = (n: number) => 'x'.repeat(n - 2); // JSON adds two quotes
    const of = (d: string): CellSpec['phases'] => surfaceOf({ t: { description: d } });
    const [line] = compareCells(
      makeRun([
        { ...V1, phases: of(text(81)) },
        { ...V2, phases: of(text(80)) },
      ]).cells,
      [],
    ).findings;
    expect(line).toBe(`t: description '${'x'.repeat(78)}… on v1-latest (1.24.0); '${'x'.repeat(78)}' on v2-latest (2.4.0)`);
  });

  test('with axes, a cell is named once only when all of its own variants saw the value', () => {
    const specs = variantSpecs({ 'v2-rep~client-1.0.0': { phases: V1.phases } }, [V1, V2, V3], [CLIENT_OLD, CLIENT_NEW], []);
    expect(compareCells(makeRun(specs).cells, []).findings).toEqual([
      "tool add: inputSchema.required ['a','b'] on v1-latest (1.24.0, all 2 variants), v2-rep (2.0.0, all 2 variants); absent on v2-latest (2.4.0, all 2 variants)",
    ]);
  });
});

describe('surface: allowances, the check and its failures', () => {
  test('an allowance names its item and its path, or the path’s parent', () => {
    expect(isAllowed([{ item: 'tool other' }], 'tool add', 'inputSchema')).toBe(false);
    expect(isAllowed([{ item: 'tool add', path: 'inputSchema.required' }], 'tool add', 'inputSchema.required')).toBe(true);
    expect(isAllowed([{ item: 'tool add', path: 'arguments' }], 'tool add', 'arguments[0].name')).toBe(true);
    expect(isAllowed([{ item: 'tool add', path: 'arguments' }], 'tool add', 'argumentsX')).toBe(false);
  });

  test('an allowed path is no drift from the snapshot either', () => {
    const cells = makeRun([V1, V2_SAME]).cells;
    expect(compareSnapshot({ 'tool add': add(['a']) }, cells, [{ item: 'tool add', path: 'inputSchema.required' }])).toEqual([]);
  });

  test('the check keeps the config’s allowances and the drift; failures name parity and snapshot apart; no check, no failure', () => {
    const allow = [{ item: 'tool add', path: 'inputSchema' }];
    const check = surfaceCheck(makeRun([V1, V2]).cells, allow, ['tool add: x → y (v1-latest)']);
    expect(check.allow).toEqual(allow);
    expect(check.drift).toEqual(['tool add: x → y (v1-latest)']);
    expect(surfaceCheck(makeRun([V1, V2]).cells, [])).not.toHaveProperty('drift');
    expect(surfaceFailures(undefined)).toEqual([]);
    expect(surfaceFailures(surfaceCheck(makeRun([V1, V2]).cells, [], ['d']))).toEqual([
      "surface: tool add: inputSchema.required ['a','b'] on v1-latest (1.24.0); absent on v2-latest (2.4.0)",
      'surface snapshot: d',
    ]);
  });

  test('the snapshot file round-trips: written as { package, items }, read back as its items', () => {
    expect(SNAPSHOT_FILE).toBe('mcp-surface.json');
    const items = { 'tool add': add(['a', 'b']) };
    const text = renderSnapshot('@acme/notes-mcp', items);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ package: '@acme/notes-mcp', items });
    expect(parseSnapshot(text)).toEqual({ ok: true, items });
    // Answer parity's compared values ride along when given; anything but an object there is dropped on reading.
    const compared = { 'tool add': { content: ['text'] } };
    expect(JSON.parse(renderSnapshot('@acme/notes-mcp', items, compared))).toEqual({ package: '@acme/notes-mcp', items, compared });
    expect(parseSnapshot(renderSnapshot('@acme/notes-mcp', items, compared))).toEqual({ ok: true, items, compared });
    expect(parseSnapshot(JSON.stringify({ items, compared: ['x'] }))).toEqual({ ok: true, items });
  });
});
