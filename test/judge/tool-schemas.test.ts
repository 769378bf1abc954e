import { describe, expect, test } from 'vitest';
import { checkToolSchemas } from '../../src/judge/tool-schemas.js';
import type { PhaseResult } from '../../src/results/types.js';

const stdio = (inputSchema: unknown, outputSchema?: unknown): PhaseResult => ({
  phase: 'stdio',
  verdict: 'passed',
  durationMs: 1,
  details: { parity: { 'tool add': { inputSchema, ...(outputSchema === undefined ? {} : { outputSchema }) } } },
});

describe('checkToolSchemas', () => {
  test('valid draft-07 and 2020-12 schemas pass', () => {
    expect(checkToolSchemas(stdio({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] })).verdict).toBe('passed');
    expect(checkToolSchemas(stdio({ type: 'array', prefixItems: [{ type: 'string' }] })).verdict).toBe('passed');
  });

  test('an invalid input or output schema fails stdio, naming the tool, the field and ajv’s message', () => {
    const bad = checkToolSchemas(stdio({ type: 'object', required: 'a' }));
    expect(bad).toMatchObject({ verdict: 'failed', step: 'validate tool schemas' });
    expect(bad.message).toMatch(/^tool add: inputSchema is not valid JSON Schema: schema is invalid: data\/required must be array/);
    const out = checkToolSchemas(stdio({ type: 'object' }, { type: 'objekt' }));
    expect(out.message).toMatch(
      /^tool add: outputSchema is not valid JSON Schema: .*data\/type must be equal to one of the allowed values/,
    );
  });

  test('each schema text is judged once per process; a repeat gets the same verdict, a failure included', () => {
    // Distinct texts from the tests above, so the first check of each here compiles it.
    const bad = { type: 'object', required: 'b' };
    const good = { type: 'object', properties: { b: { type: 'string' } } };
    const first = checkToolSchemas(stdio(bad, good));
    for (let i = 0; i < 3; i++) expect(checkToolSchemas(stdio(bad, good))).toEqual(first);
    expect(first).toMatchObject({ verdict: 'failed', step: 'validate tool schemas' });
    expect(first.message).toMatch(/^tool add: inputSchema is not valid JSON Schema: schema is invalid: data\/required must be array/);
    expect(checkToolSchemas(stdio(good, good)).verdict).toBe('passed');
    // The same keys in another order are another text: judged alike.
    expect(checkToolSchemas(stdio({ required: 'b', type: 'object' })).message).toBe(first.message);
  });

  test('two schemas with the same $id are each compiled on their own (no "already exists")', () => {
    const a = { $id: 'https://example.com/s', type: 'object' };
    const b = { $id: 'https://example.com/s', type: 'object', properties: { x: { type: 'number' } } };
    expect(checkToolSchemas(stdio(a, b)).verdict).toBe('passed');
    expect(checkToolSchemas(stdio(b, a)).verdict).toBe('passed');
  });

  test('a failed stdio result or another phase is left as is', () => {
    const failed: PhaseResult = { ...stdio({ type: 'objekt' }), verdict: 'failed', message: 'list tools: timed out' };
    expect(checkToolSchemas(failed)).toBe(failed);
  });
});
