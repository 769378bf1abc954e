import { describe, expect, test } from 'vitest';
import { checkToolSchemas, warmToolSchemas } from '../../src/judge/tool-schemas.js';
import type { PhaseResult } from '../../src/results/types.js';
import { malformed } from '../helpers/malformed.js';

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

  test('a nested $id, and one whose schema failed to compile, is not remembered by the next schema (the instances are emptied)', () => {
    const nested = (n: number) => ({
      type: 'object',
      properties: { p: { $id: 'https://example.com/nested', type: 'string', minLength: n } },
    });
    expect(checkToolSchemas(stdio(nested(1), nested(2))).verdict).toBe('passed');
    // Refused by both drafts (a $ref to nothing), after its $id was seen; the same $id then compiles.
    const broken = { $id: 'https://example.com/broken', type: 'object', properties: { q: { $ref: '#/definitions/none' } } };
    expect(checkToolSchemas(stdio(broken)).verdict).toBe('failed');
    expect(checkToolSchemas(stdio({ $id: 'https://example.com/broken', type: 'object', minProperties: 3 })).verdict).toBe('passed');
    // A $ref to another schema's $id resolves only within its own schema, never to one compiled earlier.
    expect(checkToolSchemas(stdio({ $ref: 'https://example.com/nested', maxLength: 9 })).verdict).toBe('failed');
  });

  test('warmed ahead (while the drivers run), and again between checks, every verdict and message is the same', () => {
    // Texts no other test here uses, so each is compiled after a warm-up, not read from the verdicts by text.
    warmToolSchemas();
    const bad = checkToolSchemas(stdio({ type: 'object', required: 'w' }));
    expect(bad.message).toMatch(/^tool add: inputSchema is not valid JSON Schema: schema is invalid: data\/required must be array/);
    warmToolSchemas();
    const id = (n: number) => ({ $id: 'https://example.com/warm', type: 'object', minProperties: n });
    expect(checkToolSchemas(stdio(id(1), id(2))).verdict).toBe('passed');
    warmToolSchemas();
    expect(checkToolSchemas(stdio({ type: 'array', prefixItems: [{ type: 'number' }] })).verdict).toBe('passed');
    expect(checkToolSchemas(stdio({ $ref: 'https://example.com/warm' })).verdict).toBe('failed');
  });

  test('a failed stdio result or another phase is left as is', () => {
    const failed: PhaseResult = { ...stdio({ type: 'objekt' }), verdict: 'failed', message: 'list tools: timed out' };
    expect(checkToolSchemas(failed)).toBe(failed);
  });
});

describe('checkToolSchemas: what is judged', () => {
  const withParity = (parity: unknown, phase: PhaseResult['phase'] = 'stdio'): PhaseResult => ({
    phase,
    verdict: 'passed',
    durationMs: 1,
    details: malformed({ parity }),
  });

  test('only a passed stdio result with a recorded surface is judged', () => {
    const bad = { 'tool add': { inputSchema: { type: 'objekt' } } };
    for (const result of [
      withParity(bad, 'http'),
      withParity(undefined),
      withParity(['tool add']),
      withParity(null),
      { phase: 'stdio', verdict: 'passed', durationMs: 1 } as PhaseResult,
    ])
      expect(checkToolSchemas(result)).toBe(result);
    expect(checkToolSchemas(withParity(bad)).verdict).toBe('failed');
  });

  test('only tools are judged (a prompt’s or template’s fields are not schemas), and only their recorded entries', () => {
    const parity = {
      'prompt draft': { inputSchema: { type: 'objekt' } },
      'template notes': { outputSchema: { type: 'objekt' } },
      'tool gone': null,
      'tool list': ['inputSchema'],
      'tool bare': { description: 'no schema recorded' },
      'tool big': { inputSchema: { $truncated: 'sha256-…', bytes: 900_000 } },
    };
    const result = withParity(parity);
    expect(checkToolSchemas(result)).toBe(result);
  });

  test('a schema that is not an object (a string, an array, null, a number) is named with what it is; true and false are schemas', () => {
    const result = checkToolSchemas(
      withParity({
        'tool a': { inputSchema: 'object' },
        'tool b': { inputSchema: [{ type: 'object' }] },
        'tool c': { inputSchema: null, outputSchema: 3 },
        'tool d': { inputSchema: true, outputSchema: false },
      }),
    );
    expect(result).toEqual({
      phase: 'stdio',
      verdict: 'failed',
      durationMs: 1,
      details: result.details,
      step: 'validate tool schemas',
      message: [
        'tool a: inputSchema is not valid JSON Schema: expected an object, got "object"',
        'tool b: inputSchema is not valid JSON Schema: expected an object, got [{"type":"object"}]',
        'tool c: inputSchema is not valid JSON Schema: expected an object, got null',
        'tool c: outputSchema is not valid JSON Schema: expected an object, got 3',
      ].join('; '),
    });
  });

  test('a 2020-12 schema passes; one that both drafts refuse is named with ajv’s error', () => {
    expect(checkToolSchemas(withParity({ 'tool x': { inputSchema: { type: 'array', prefixItems: [{ type: 'number' }] } } })).verdict).toBe(
      'passed',
    );
    const both = checkToolSchemas(withParity({ 'tool x': { inputSchema: { type: 'object', minProperties: -1 } } }));
    expect(both.message).toMatch(/^tool x: inputSchema is not valid JSON Schema: schema is invalid: data\/minProperties must be >= 0$/);
  });

  test('vendor keywords and unknown formats are allowed (not strict) in either draft; a schema only one draft accepts passes', () => {
    const vendor = { type: 'object', 'x-ui': { widget: 'text' }, properties: { d: { type: 'string', format: 'my-date' } } };
    expect(checkToolSchemas(withParity({ 'tool x': { inputSchema: vendor } })).verdict).toBe('passed');
    // `additionalItems` must be a schema in draft-07; 2020-12 dropped the keyword, so there it is one more unknown keyword.
    const only2020 = { type: 'array', items: {}, additionalItems: 5, 'x-ui': 1, prefixItems: [{ type: 'string', format: 'my-date' }] };
    expect(checkToolSchemas(withParity({ 'tool x': { inputSchema: only2020 } })).verdict).toBe('passed');
    // The array form of `items` is draft-07 only (2020-12 refuses it): with a vendor keyword it must still pass.
    const only07 = { type: 'array', items: [{ type: 'string' }], 'x-ui': 1 };
    expect(checkToolSchemas(withParity({ 'tool x': { inputSchema: only07 } })).verdict).toBe('passed');
  });
});
