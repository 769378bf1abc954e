import { describe, expect, test } from 'vitest';
import { digest, normaliseAnswer, VARIES } from '../../../src/driver/client/answer.js';
import { recordCompared, uniqueItem } from '../../../src/contract/compared.js';

describe('normaliseAnswer', () => {
  test('a tool result: content types, mimeType, annotations, digests, isError, structuredContent, _meta keys', () => {
    const wire = {
      content: [
        { type: 'text', text: 'hello', annotations: { priority: 1 } },
        { type: 'image', data: 'iVBOR', mimeType: 'image/png', _meta: { z: 1, a: 2 } },
        { type: 'resource', resource: { uri: 'notes://1', mimeType: 'text/markdown', text: '# one' } },
        { type: 'resource_link', uri: 'notes://2', name: 'two' },
      ],
      structuredContent: { n: 1 },
      _meta: { 'io.example/size': 3 },
    };
    expect(normaliseAnswer({ tool: 't' }, wire)).toStrictEqual({
      isError: false,
      content: [
        { type: 'text', text: digest('hello'), annotations: { priority: 1 } },
        { type: 'image', mimeType: 'image/png', data: digest('iVBOR'), _meta: ['a', 'z'] },
        { type: 'resource', resource: { uri: 'notes://1', mimeType: 'text/markdown', text: digest('# one') } },
        { type: 'resource_link', uri: 'notes://2', name: 'two' },
      ],
      structuredContent: { n: 1 },
      _meta: ['io.example/size'],
    });
    expect(digest('hello')).toMatch(/^sha256:[0-9a-f]{12} \(5 chars\)$/);
    expect(normaliseAnswer({ tool: 't' }, { isError: true, content: [] })).toEqual({ isError: true, content: [] });
  });

  test('a resource: uri, mimeType and the text or blob digest; a prompt: roles and content', () => {
    expect(normaliseAnswer({ resource: 'r://x' }, { contents: [{ uri: 'r://x', mimeType: 'image/png', blob: 'AAAA' }] })).toEqual({
      contents: [{ uri: 'r://x', mimeType: 'image/png', blob: digest('AAAA') }],
    });
    expect(normaliseAnswer({ prompt: 'p' }, { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: digest('hi') } }],
    });
  });

  test('a JSON-RPC error is its code only; declared varying paths are masked, absent ones left alone', () => {
    expect(normaliseAnswer({ tool: 't' }, undefined, -32602)).toEqual({ error: { code: -32602 } });
    const step = { tool: 't', vary: ['content[0].text', 'structuredContent.id', 'content[5].text'] };
    const answer = normaliseAnswer(step, { content: [{ type: 'text', text: 'id 42' }], structuredContent: { id: 42, n: 1 } });
    expect(answer).toEqual({ isError: false, content: [{ type: 'text', text: VARIES }], structuredContent: { id: VARIES, n: 1 } });
  });

  test('recordCompared keeps items in details.compared; a repeated label is numbered', () => {
    const details: Record<string, unknown> = {};
    recordCompared(details, uniqueItem(details, 'tools/call a'), 1);
    recordCompared(details, uniqueItem(details, 'tools/call a'), 2);
    recordCompared(details, uniqueItem(details, 'tools/call a'), 3);
    expect(details.compared).toEqual({ 'tools/call a': 1, 'tools/call a #2': 2, 'tools/call a #3': 3 });
  });
});

describe('normaliseAnswer: odd answers and vary paths', () => {
  test('what is not an object is named by its type; a missing list is empty; fields absent stay absent', () => {
    expect(VARIES).toBe('(varies)');
    expect(normaliseAnswer({ tool: 't' }, null)).toStrictEqual({ isError: false, content: [] });
    expect(normaliseAnswer({ tool: 't' }, { content: 'x' })).toStrictEqual({ isError: false, content: [] });
    expect(normaliseAnswer({ tool: 't' }, { content: [null, 'x', { type: 'text' }] })).toStrictEqual({
      isError: false,
      content: [{ invalid: 'null' }, { invalid: 'string' }, { type: 'text' }],
    });
    expect(
      normaliseAnswer({ resource: 'r' }, { contents: [null, 2, { uri: 'r', annotations: { priority: 1 }, _meta: { k: 1 } }] }),
    ).toStrictEqual({
      contents: [{ invalid: 'null' }, { invalid: 'number' }, { uri: 'r', annotations: { priority: 1 }, _meta: ['k'] }],
    });
    expect(normaliseAnswer({ resource: 'r' }, { contents: [{ uri: 'r' }] })).toStrictEqual({ contents: [{ uri: 'r' }] });
    expect(normaliseAnswer({ prompt: 'p' }, { messages: [3, { role: 'user', content: null }] })).toStrictEqual({
      messages: [{ invalid: 'number' }, { role: 'user', content: { invalid: 'null' } }],
    });
    expect(normaliseAnswer({ prompt: 'p' }, { messages: [], _meta: { b: 1, a: 1 } })).toStrictEqual({ messages: [], _meta: ['a', 'b'] });
  });

  test('a vary path may name a list item by its index; one past the end, or naming nothing, changes nothing', () => {
    const wire = {
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    };
    expect(normaliseAnswer({ tool: 't', vary: ['content[1]'] }, wire).content).toStrictEqual([{ type: 'text', text: digest('a') }, VARIES]);
    expect(normaliseAnswer({ tool: 't', vary: ['content[2]', 'content[x]', '.', 'isError.deep'] }, wire)).toStrictEqual(
      normaliseAnswer({ tool: 't' }, wire),
    );
    const many = { content: Array.from({ length: 12 }, (_, i) => ({ type: 'text', text: String(i) })) };
    expect((normaliseAnswer({ tool: 't', vary: ['content[11].text'] }, many).content as { text: string }[])[11]!.text).toBe(VARIES);
    expect((normaliseAnswer({ tool: 't', vary: ['content[11]'] }, many).content as unknown[])[11]).toBe(VARIES);
  });

  test('a vary path through a field that is absent, or into a string, masks nothing and reads on safely', () => {
    const wire = { content: [{ type: 'text', text: 'a' }] };
    const paths = ['structuredContent.a.b', 'structuredContent.0.b', 'structuredContent.x.0', 'content[0].text[0]', 'content[0].text.x.y'];
    expect(normaliseAnswer({ tool: 't', vary: paths }, wire)).toStrictEqual(normaliseAnswer({ tool: 't' }, wire));
  });
});
