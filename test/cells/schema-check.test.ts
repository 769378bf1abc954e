import { describe, expect, test } from 'vitest';
import { checkToolSchemas } from '../../src/cells/schema-check.js';
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

  test('a failed stdio result or another phase is left as is', () => {
    const failed: PhaseResult = { ...stdio({ type: 'objekt' }), verdict: 'failed', message: 'list tools: timed out' };
    expect(checkToolSchemas(failed)).toBe(failed);
  });
});
