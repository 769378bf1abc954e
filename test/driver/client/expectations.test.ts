import { describe, expect, it } from 'vitest';
import {
  checkPromptResult,
  checkResourceResult,
  checkSurface,
  checkToolResult,
  stepLabel,
  subsetMismatch,
} from '../../../src/driver/client/expectations.js';

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

describe('checkSurface: every name listed, each kind of item named', () => {
  it('lists every missing and every extra name, comma-separated', () => {
    expect(checkSurface('tools', ['a', 'y', 'z'], tools)).toBe('tools: missing y, z; unexpected b, c');
    expect(checkSurface('tools', ['a', 'b', 'c', 'z'], tools)).toBe('tools: missing z');
  });

  it('names an item by its first string key, or by its JSON (cut at 60 characters) when it has none', () => {
    expect(checkSurface('resources', [], [{ name: 7, uri: 'x://1' }])).toBe('resources: unexpected x://1');
    expect(checkSurface('prompts', [], [{ description: 'x'.repeat(100) }])).toBe(`prompts: unexpected {"description":"${'x'.repeat(44)}`);
  });
});

describe('subsetMismatch: shapes', () => {
  it('a primitive against an object, an object against a primitive, an array against a non-array', () => {
    expect(subsetMismatch(1, { a: 1 })).toBe('$: expected 1, got {"a":1}');
    expect(subsetMismatch({ a: 1 }, 5)).toBe('$: expected an object, got 5');
    expect(subsetMismatch([1], null)).toBe('$: expected an array, got null');
    expect(subsetMismatch([1], { 0: 1 })).toBe('$: expected an array');
    expect(subsetMismatch({ a: null }, { a: null })).toBeNull();
    expect(subsetMismatch({ a: null }, { a: 1 })).toBe('$.a: expected null, got 1');
  });

  it('looks past the first matching item and key', () => {
    expect(subsetMismatch({ a: [1, 2] }, { a: [1, 3] })).toBe('$.a[1]: expected 2, got 3');
    expect(subsetMismatch({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe('$.b: expected 2, got 3');
  });
});

describe('step checks: content blocks and quoting', () => {
  const mixed = {
    content: [
      null,
      { type: 'image', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'r://1', text: 'R' } },
      { type: 'text', text: 'T' },
    ],
  };

  it('reads text and embedded resource text, skips other blocks, joins them by line', () => {
    expect(checkToolResult({ tool: 't', expect: { text: 'R\nT' } }, mixed)).toBeNull();
    expect(checkToolResult({ tool: 't', expect: { text: 'nope' } }, mixed)).toBe('text does not contain "nope": "R T"');
  });

  it('content that is not an array reads as no text', () => {
    expect(checkToolResult({ tool: 't', expect: { text: 'x' } }, { content: 'x' })).toBe('text does not contain "x": ""');
  });

  it('quotes the text with whitespace collapsed and trimmed, cut at 200 characters', () => {
    expect(checkToolResult({ tool: 't', expect: { text: 'z' } }, { content: [{ type: 'text', text: '  a \n\n b  ' }] })).toBe(
      'text does not contain "z": "a b"',
    );
    const long = 'x'.repeat(250);
    expect(checkToolResult({ tool: 't', expect: { text: 'z' } }, { content: [{ type: 'text', text: long }] })).toBe(
      `text does not contain "z": "${'x'.repeat(200)}…"`,
    );
    const exact = 'y'.repeat(200);
    expect(checkToolResult({ tool: 't', expect: { text: 'z' } }, { content: [{ type: 'text', text: exact }] })).toBe(
      `text does not contain "z": "${exact}"`,
    );
  });

  it('a step without expect, or expecting only text, passes a successful result', () => {
    const ok = { content: [{ type: 'text', text: 'done' }], structuredContent: { n: 1 } };
    expect(checkToolResult({ tool: 't' }, ok)).toBeNull();
    expect(checkToolResult({ tool: 't', expect: { text: 'done' } }, ok)).toBeNull();
  });

  it('resources: contents that are not an array are no contents; text is checked only when expected', () => {
    const res = { contents: [{ uri: 'x', text: 'Welcome here' }] };
    expect(checkResourceResult({ resource: 'x' }, { contents: 'nope' })).toBe('returned no contents');
    expect(checkResourceResult({ resource: 'x' }, res)).toBeNull();
    expect(checkResourceResult({ resource: 'x', expect: { text: 'Bye' } }, res)).toBe('text does not contain "Bye": "Welcome here"');
  });

  it('prompts: messages that are not an array count 0; text is checked only when expected', () => {
    const prompt = { messages: [{ role: 'user', content: { type: 'text', text: 'Draft about release evidence' } }] };
    expect(checkPromptResult({ prompt: 'p', expect: { messages: 0 } }, { messages: 'x' })).toBeNull();
    expect(checkPromptResult({ prompt: 'p' }, prompt)).toBeNull();
    expect(checkPromptResult({ prompt: 'p', expect: { text: 'nope' } }, prompt)).toBe(
      'text does not contain "nope": "Draft about release evidence"',
    );
  });
});
