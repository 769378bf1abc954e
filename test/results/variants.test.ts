import { describe, expect, test } from 'vitest';
import { hasAxes, plannedVariants, selectedVariants } from '../../src/results/variants.js';
import { makeRun, variantSpecs } from '../reports/helpers/make-run.js';

const ids = (rows: ReturnType<typeof plannedVariants>) => rows.map((r) => `${r.cell.id}:${r.variant.id}`);

describe('plannedVariants / selectedVariants', () => {
  const plan = makeRun(variantSpecs()).plan;

  test('every variant, cell by cell in plan order', () => {
    expect(ids(plannedVariants(plan))).toEqual([
      'v1-latest:v1-latest~client-1.0.0~node-22',
      'v1-latest:v1-latest~client-latest-2~node-22',
      'v2-latest:v2-latest~client-1.0.0~node-22',
      'v2-latest:v2-latest~client-latest-2~node-22',
    ]);
  });

  test('--cell takes a variant id (that variant) or a cell id (all its variants)', () => {
    expect(ids(selectedVariants({ ...plan, selected: ['v2-latest~client-1.0.0~node-22'] }))).toEqual([
      'v2-latest:v2-latest~client-1.0.0~node-22',
    ]);
    expect(ids(selectedVariants({ ...plan, selected: ['v1-latest'] }))).toEqual([
      'v1-latest:v1-latest~client-1.0.0~node-22',
      'v1-latest:v1-latest~client-latest-2~node-22',
    ]);
    expect(selectedVariants({ ...plan, selected: ['nothing'] })).toEqual([]);
  });

  test('without axes each cell is its own only variant, and hasAxes says so', () => {
    const plain = makeRun().plan;
    expect(plannedVariants(plain).map((r) => r.variant.id)).toEqual(plain.cells.map((c) => c.id));
    expect(hasAxes(plain)).toBe(false);
    expect(hasAxes(plan)).toBe(true);
    expect(hasAxes(makeRun(variantSpecs({}, undefined, [], [{ spec: '22', version: '22.11.0' }])).plan)).toBe(true);
  });
});
