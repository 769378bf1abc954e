import { describe, expect, it } from 'vitest';
import { interleave, reproCommand } from '../../src/orchestrator/run-units.js';
import { semaphore } from '../../src/orchestrator/slots.js';
import type { PlannedCell } from '../../src/plan/plan.js';

const cell = (id: string, variants: string[]): PlannedCell =>
  ({ id, pin: id, version: '1.0.0', major: 1, variants: variants.map((v) => ({ id: v })) }) as unknown as PlannedCell;

describe('interleave: the order variants are started in', () => {
  it('every cell’s first variant first (so every cell starts installing), then every second …', () => {
    const units = interleave([cell('a', ['a~1', 'a~2', 'a~3']), cell('b', ['b~1']), cell('c', ['c~1', 'c~2'])]);
    expect(units.map((u) => u.id)).toEqual(['a~1', 'b~1', 'c~1', 'a~2', 'c~2', 'a~3']);
    expect(units.map((u) => u.cell.id)).toEqual(['a', 'b', 'c', 'a', 'c', 'a']);
  });

  it('without axes it is the cells in plan order', () => {
    expect(interleave([cell('a', ['a']), cell('b', ['b'])]).map((u) => u.id)).toEqual(['a', 'b']);
  });
});

describe('semaphore', () => {
  it('never runs more than n tasks at once, and runs them all in the order they asked', async () => {
    const limit = semaphore(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) =>
      limit(async () => {
        started.push(i);
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return i;
      });
    expect(await Promise.all([0, 1, 2, 3, 4].map(task))).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('a failing task frees its slot', async () => {
    const limit = semaphore(1);
    await expect(limit(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit(async () => 'next')).toBe('next');
  });
});

describe('reproCommand', () => {
  it('names the variant (its cell id when there are no axes)', () => {
    expect(reproCommand({ id: 'latest-2~client-1.0.0~node-22' }, 'm.config.ts', undefined, 'npx mcp-matrix')).toBe(
      'npx mcp-matrix run --cell latest-2~client-1.0.0~node-22 --config m.config.ts',
    );
    expect(reproCommand({ id: 'latest-2' })).toBe('npx mcp-matrix run --cell latest-2');
  });
});
