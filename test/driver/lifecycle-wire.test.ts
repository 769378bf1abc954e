// The lifecycle wire's readings of an HTTP answer (lifecycle-wire.ts): the response to one id in an SSE
// stream or a JSON body, and an answer in words. The wire itself, against real servers:
// test/driver/phases/lifecycle.test.ts and test/driver/driver.integration.test.ts.
import { describe, expect, it } from 'vitest';
import { describeAnswer, jsonAnswer, sseAnswer } from '../../src/driver/lifecycle-wire.js';

describe('jsonAnswer', () => {
  it('finds the response to its id, in one message or a batch', () => {
    expect(jsonAnswer('{"jsonrpc":"2.0","id":"a","result":{"x":1}}', 'a')).toEqual({ kind: 'result', result: { x: 1 } });
    expect(jsonAnswer('[{"id":"b","result":{}},{"id":"a","error":{"code":-32601,"message":"nope"}}]', 'a')).toEqual({
      kind: 'error',
      code: -32601,
      message: 'nope',
    });
  });
  it('another id, a request with the same id, a non-object, or no JSON: null', () => {
    expect(jsonAnswer('{"id":"b","result":{}}', 'a')).toBeNull();
    expect(jsonAnswer('{"id":"a","method":"ping"}', 'a')).toBeNull();
    expect(jsonAnswer('[null, 3, "a"]', 'a')).toBeNull();
    expect(jsonAnswer('not json', 'a')).toBeNull();
    expect(jsonAnswer('{"id":"a","error":null}', 'a')).toEqual({ kind: 'result', result: {} });
  });
});

describe('sseAnswer', () => {
  it('reads the data lines of each complete event, a space after `data:` dropped, CRLF or LF', () => {
    const body = 'event: message\ndata: {"id":"other","result":{}}\n\nid: 7\ndata: {"id":"a",\ndata:"result":{"ok":true}}\n\n';
    expect(sseAnswer(body, 'a')).toEqual({ kind: 'result', result: { ok: true } });
    expect(sseAnswer('data: {"id":"a","result":{"n":2}}\r\n\r\n', 'a')).toEqual({ kind: 'result', result: { n: 2 } });
    expect(sseAnswer('data:  {"id":"a","result":{"n":3}}\n\n', 'a')).toEqual({ kind: 'result', result: { n: 3 } });
  });
  it('an event not yet complete, one without data, or not its id: null', () => {
    expect(sseAnswer('data: {"id":"a","result":{}}\n', 'a')).toBeNull();
    expect(sseAnswer('data: {"id":"a","result":{}}', 'a')).toBeNull();
    expect(sseAnswer(': keep-alive\n\nevent: x\n\n', 'a')).toBeNull();
    expect(sseAnswer('data: {"id":"b","result":{}}\n\n', 'a')).toBeNull();
    expect(sseAnswer('xdata: {"id":"a","result":{}}\n\n', 'a')).toBeNull();
  });
});

describe('describeAnswer', () => {
  it('names each kind of answer', () => {
    expect(describeAnswer({ kind: 'result', result: {} })).toBe('a result');
    expect(describeAnswer({ kind: 'result', result: { isError: true } })).toBe('an isError result');
    expect(describeAnswer({ kind: 'result', result: { isError: 'yes' } })).toBe('a result');
    expect(describeAnswer({ kind: 'error', code: -32601, message: 'Method not found' })).toBe('the error -32601 "Method not found"');
    expect(describeAnswer({ kind: 'error', message: 'm'.repeat(200) })).toBe(`the error (no code) "${'m'.repeat(160)}"`);
    expect(describeAnswer({ kind: 'none', why: 'no answer within 5 ms' })).toBe('no answer within 5 ms');
    expect(describeAnswer({ kind: 'closed', why: 'the server exited (code 1)' })).toBe('the server exited (code 1)');
  });
});
