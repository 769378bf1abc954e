import { describe, expect, it } from 'vitest';
import {
  checkPromptResult,
  checkResourceResult,
  checkSurface,
  checkToolResult,
  stepLabel,
  subsetMismatch,
} from '../../src/driver/expectations.js';

const tools = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];

describe('checkSurface', () => {
  it('accepts a matching count or name set, and no expectation at all', () => {
    expect(checkSurface('tools', 3, tools)).toBeNull();
    expect(checkSurface('tools', ['c', 'a', 'b'], tools)).toBeNull();
    expect(checkSurface('tools', undefined, tools)).toBeNull();
    expect(checkSurface('prompts', 0, null)).toBeNull();
  });

  it('names the count difference', () => {
    expect(checkSurface('resourceTemplates', 2, [{ name: 'x' }])).toBe('resource templates: expected 2, found 1');
  });

  it('counts are exact: a server that lists more than expected fails too', () => {
    expect(checkSurface('tools', 2, tools)).toBe('tools: expected 2, found 3');
    expect(checkSurface('prompts', 1, [{ name: 'p' }, { name: 'q' }])).toBe('prompts: expected 1, found 2');
    expect(checkSurface('resourceTemplates', 1, [{ uriTemplate: 'a://{x}' }, { uriTemplate: 'b://{x}' }])).toBe(
      'resource templates: expected 1, found 2',
    );
    expect(checkSurface('resources', 0, [{ uri: 'a://1' }])).toBe('resources: expected 0, found 1');
    expect(checkSurface('tools', ['a', 'b'], tools)).toBe('tools: unexpected c');
  });

  it('says which names are missing and which are extra', () => {
    expect(checkSurface('tools', ['a', 'b', 'z'], tools)).toBe('tools: missing z; unexpected c');
  });

  it('says when the capability is not advertised', () => {
    expect(checkSurface('prompts', 2, null)).toBe('prompts: expected 2, found 0 (the server does not advertise the prompts capability)');
    expect(checkSurface('resourceTemplates', ['t'], null)).toContain('does not advertise the resources capability');
  });

  it('matches resources by name, URI or URI template', () => {
    expect(checkSurface('resources', ['note://1'], [{ name: 'one', uri: 'note://1' }])).toBeNull();
    expect(checkSurface('resourceTemplates', ['note://{id}'], [{ name: 'n', uriTemplate: 'note://{id}' }])).toBeNull();
  });
});

describe('subsetMismatch', () => {
  it('accepts a deep subset', () => {
    expect(subsetMismatch({ a: 1, b: { c: [1, { d: 'x' }] } }, { a: 1, z: 2, b: { c: [1, { d: 'x', e: 3 }], f: 0 } })).toBeNull();
  });
  it('names the path of the first difference', () => {
    expect(subsetMismatch({ a: { b: 2 } }, { a: { b: 3 } })).toBe('$.a.b: expected 2, got 3');
    expect(subsetMismatch({ a: [1, 2] }, { a: [1] })).toBe('$.a: expected 2 items, got 1');
    expect(subsetMismatch({ a: 1 }, undefined)).toBe('$: expected an object, got undefined');
    expect(subsetMismatch({ a: 1 }, {})).toBe('$.a: expected 1, got undefined');
  });
});

describe('step checks', () => {
  const ok = { content: [{ type: 'text', text: 'Created note-3' }], structuredContent: { notes: 3, tags: 1 } };

  it('labels steps the way failure messages name them', () => {
    expect(stepLabel({ tool: 'add' })).toBe('tools/call add');
    expect(stepLabel({ resource: 'notes://1' })).toBe('resources/read notes://1');
    expect(stepLabel({ prompt: 'p' })).toBe('prompts/get p');
  });

  it('checks isError (default false), text and structuredContent', () => {
    expect(checkToolResult({ tool: 't', expect: { text: 'note-3', structuredContent: { notes: 3 } } }, ok)).toBeNull();
    expect(checkToolResult({ tool: 't' }, { ...ok, isError: true })).toBe('returned isError: "Created note-3"');
    expect(checkToolResult({ tool: 't', expect: { isError: true } }, ok)).toBe('expected isError, got a success: "Created note-3"');
    expect(checkToolResult({ tool: 't', expect: { text: 'nope' } }, ok)).toBe('text does not contain "nope": "Created note-3"');
    expect(checkToolResult({ tool: 't', expect: { structuredContent: { notes: 4 } } }, ok)).toBe(
      'structuredContent.notes: expected 4, got 3',
    );
  });

  it('checks resource text and prompt messages', () => {
    const res = { contents: [{ uri: 'x', text: 'Welcome here' }] };
    expect(checkResourceResult({ resource: 'x', expect: { text: 'Welcome' } }, res)).toBeNull();
    expect(checkResourceResult({ resource: 'x' }, { contents: [] })).toBe('returned no contents');
    const prompt = { messages: [{ role: 'user', content: { type: 'text', text: 'Draft about release evidence' } }] };
    expect(checkPromptResult({ prompt: 'p', expect: { messages: 1, text: 'release evidence' } }, prompt)).toBeNull();
    expect(checkPromptResult({ prompt: 'p', expect: { messages: 2 } }, prompt)).toBe('expected 2 messages, got 1');
  });
});
