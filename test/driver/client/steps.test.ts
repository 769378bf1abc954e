import { describe, expect, it } from 'vitest';
import { ClientCannotRead, type McpSession } from '../../../src/driver/client/adapter.js';
import type { ClientSpec } from '../../../src/contract/protocol.js';
import { describeRequest, invalidParams, runStep, toolArguments } from '../../../src/driver/client/steps.js';
import { digest } from '../../../src/driver/client/answer.js';

const REJECT_OMITTED =
  'MCP error -32602: Input validation error: Invalid arguments for tool status: Invalid input: expected object, received undefined';

/** A session whose `status` tool behaves like an SDK 1.30–1.31 server: an omitted `arguments` is rejected. */
function session(noArguments: ClientSpec['noArguments'], error?: Error): { s: McpSession; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const s = {
    noArguments,
    async callTool(name: string, args: Record<string, unknown> | undefined) {
      calls.push([name, args]);
      if (error) throw error;
      if (args === undefined) return { content: [{ type: 'text', text: REJECT_OMITTED }], isError: true };
      return { content: [{ type: 'text', text: 'ok' }] };
    },
    async readResource() {
      return { contents: [] };
    },
    async getPrompt() {
      return { messages: [] };
    },
  } as unknown as McpSession;
  return { s, calls };
}

const bound = <T>(p: Promise<T>): Promise<T> => p;

describe('toolArguments', () => {
  it('sends configured arguments as they are, else {} or nothing as the client is configured', () => {
    expect(toolArguments({ tool: 't', arguments: { a: 1 } }, 'omit')).toEqual({ args: { a: 1 }, sent: 'configured' });
    expect(toolArguments({ tool: 't', arguments: {} }, 'omit')).toEqual({ args: {}, sent: 'configured' });
    expect(toolArguments({ tool: 't' }, 'empty')).toEqual({ args: {}, sent: 'empty' });
    expect(toolArguments({ tool: 't' }, 'omit')).toEqual({ args: undefined, sent: 'omitted' });
  });
});

describe('describeRequest', () => {
  it('shows each request as it goes on the wire', () => {
    expect(describeRequest({ tool: 'add', arguments: { a: 1 } }, 'omit')).toBe('tools/call {"name":"add","arguments":{"a":1}}');
    expect(describeRequest({ tool: 'status' }, 'omit')).toBe('tools/call {"name":"status"} (arguments omitted)');
    expect(describeRequest({ tool: 'status' }, 'empty')).toBe(
      'tools/call {"name":"status","arguments":{}} (no arguments configured: sent {})',
    );
    expect(describeRequest({ resource: 'note://1' }, 'empty')).toBe('resources/read {"uri":"note://1"}');
    expect(describeRequest({ prompt: 'p', arguments: { id: '1' } }, 'empty')).toBe('prompts/get {"name":"p","arguments":{"id":"1"}}');
    expect(describeRequest({ prompt: 'p' }, 'empty')).toBe('prompts/get {"name":"p"} (arguments omitted)');
  });
});

describe('runStep', () => {
  it('omits arguments (the default); refused as invalid params, re-sends {} and fails naming the difference', async () => {
    const { s, calls } = session('omit');
    const out = await runStep(s, { tool: 'status', expect: { text: 'ok' } }, bound);
    expect(calls).toEqual([
      ['status', undefined],
      ['status', {}],
    ]);
    expect(out).toMatchObject({ arguments: 'omitted', emptyRetry: 'accepted' });
    expect(out.problem).toBe(
      `rejects a call without \`arguments\`; accepts \`{}\`: returned isError: ${JSON.stringify(REJECT_OMITTED)} · sent tools/call {"name":"status"} (arguments omitted) · answer ` +
        JSON.stringify({ content: [{ type: 'text', text: REJECT_OMITTED }], isError: true }),
    );
  });

  it('a server that refuses {} as well: the refusal as it was, recorded as refused both ways', async () => {
    const error = Object.assign(new Error('Invalid params: name is required'), { code: -32602 });
    const { s, calls } = session('omit', error);
    const out = await runStep(s, { tool: 'status' }, bound);
    expect(calls).toEqual([
      ['status', undefined],
      ['status', {}],
    ]);
    expect(out.emptyRetry).toBe('refused');
    expect(out.problem).toMatch(
      /^answered with error -32602: Invalid params: name is required · sent tools\/call \{"name":"status"\} \(arguments omitted\)/,
    );
  });

  it('no re-send for a step that expects an error, nor for a refusal that is not invalid params', async () => {
    const expectsError = session('omit');
    await runStep(expectsError.s, { tool: 'status', expect: { isError: true, text: 'nope' } }, bound);
    expect(expectsError.calls).toEqual([['status', undefined]]);
    const other = session('omit', Object.assign(new Error('Internal error'), { code: -32603 }));
    const out = await runStep(other.s, { tool: 'status' }, bound);
    expect(other.calls).toEqual([['status', undefined]]);
    expect(out.emptyRetry).toBeUndefined();
  });

  it('sends {} with the opt-out (`noArguments: empty`) and records it', async () => {
    const { s, calls } = session('empty');
    const out = await runStep(s, { tool: 'status', expect: { text: 'ok' } }, bound);
    expect(calls).toEqual([['status', {}]]);
    expect(out).toEqual({
      step: 'tools/call status',
      ms: expect.any(Number),
      arguments: 'empty',
      answer: { isError: false, content: [{ type: 'text', text: digest('ok') }] },
    });
  });

  it('records for parity the answer as it came over the wire, or the code of a JSON-RPC error answer', async () => {
    const wire = { content: [{ type: 'image', data: 'AA', mimeType: 'image/png' }], isError: true };
    let taken = 0;
    const { s } = session('empty');
    // The client parsed the result (here: dropped mimeType); the wire result is what parity compares.
    Object.assign(s, { takeWireResult: () => (taken++ === 0 ? 'stale' : wire) });
    const out = await runStep(s, { tool: 'status', expect: { isError: true } }, bound);
    expect(out.answer).toEqual({ isError: true, content: [{ type: 'image', mimeType: 'image/png', data: digest('AA') }] });
    const refused = await runStep(
      session('empty', Object.assign(new Error('Unknown tool'), { code: -32602 })).s,
      { tool: 'gone', expect: { isError: true } },
      bound,
    );
    expect(refused.answer).toEqual({ error: { code: -32602 } });
  });

  it('turns a JSON-RPC error answer into a problem that names the request and the error', async () => {
    const error = Object.assign(new Error('Invalid params: text is required'), { code: -32602 });
    const { s } = session('empty', error);
    const out = await runStep(s, { tool: 'echo', arguments: { txt: 'x' } }, bound);
    expect(out.problem).toBe(
      'answered with error -32602: Invalid params: text is required · sent tools/call {"name":"echo","arguments":{"txt":"x"}} · answer {"error":{"code":-32602,"message":"Invalid params: text is required"}}',
    );
  });

  it('accepts a JSON-RPC error where isError is expected', async () => {
    const { s } = session('empty', Object.assign(new Error('Unknown tool: nope'), { code: -32602 }));
    const out = await runStep(s, { tool: 'nope', expect: { isError: true, text: 'Unknown tool' } }, bound);
    expect(out.problem).toBeUndefined();
  });

  it('lets a lost connection or a timeout through: there is no answer to show', async () => {
    for (const code of [-32000, -32001, 'CONNECTION_CLOSED', undefined]) {
      const { s } = session('empty', Object.assign(new Error('Connection closed'), { code }));
      await expect(runStep(s, { tool: 'x', expect: { isError: true } }, bound)).rejects.toThrow('Connection closed');
    }
  });

  it('bounds the answer it quotes', async () => {
    const { s } = session('empty');
    const big = { content: [{ type: 'text', text: 'y'.repeat(5000) }] };
    s.callTool = async () => big;
    const out = await runStep(s, { tool: 't', expect: { text: 'z' } }, bound);
    const answer = out.problem!.split(' · answer ')[1]!;
    expect(answer.length).toBe(401);
    expect(answer.endsWith('…')).toBe(true);
  });
});

describe('a client that cannot read the answer', () => {
  it('fails the step with what it could not read, the request as sent and the answer as it came over the wire', async () => {
    const why = "the client @modelcontextprotocol/sdk@1.0.0 could not read the server's answer under the negotiated protocol 2024-11-05: x";
    const answer = { content: [{ type: 'resource_link', uri: 'docs://a', name: 'a' }] };
    const { s } = session('empty', new ClientCannotRead(why, answer));
    const out = await runStep(s, { tool: 'find_doc', arguments: { topic: 'a' } }, bound);
    expect(out.problem).toBe(`${why} · sent tools/call {"name":"find_doc","arguments":{"topic":"a"}} · answer ${JSON.stringify(answer)}`);
  });
});

describe('invalidParams', () => {
  it('error -32602, or an isError result whose text carries -32602; nothing else', () => {
    expect(invalidParams({ error: { code: -32602 } })).toBe(true);
    expect(invalidParams({ error: { code: -32603 } })).toBe(false);
    expect(invalidParams({ isError: true, content: [{ type: 'text', text: 'MCP error -32602: bad' }] })).toBe(true);
    expect(
      invalidParams({
        isError: true,
        content: [
          { type: 'image', data: 'x' },
          { type: 'text', text: 'error -32602' },
        ],
      }),
    ).toBe(true);
    // Not an error result, no content list, no text, or another code in the text.
    expect(invalidParams({ isError: false, content: [{ type: 'text', text: '-32602' }] })).toBe(false);
    expect(invalidParams({ content: [{ type: 'text', text: '-32602' }] })).toBe(false);
    expect(invalidParams({ isError: true, content: '-32602' })).toBe(false);
    expect(invalidParams({ isError: true, content: [{ type: 'text', text: 'MCP error -32603: internal' }] })).toBe(false);
    expect(invalidParams({ isError: true, content: [{ type: 'text', text: -32602 }] })).toBe(false);
    expect(invalidParams({ isError: true, content: [] })).toBe(false);
  });
});

describe('runStep: what it sends, bounds and records', () => {
  /** A bound that records what each call was bounded as. */
  function recording(): { bound: <T>(p: Promise<T>, what: string) => Promise<T>; whats: string[] } {
    const whats: string[] = [];
    return { whats, bound: <T>(p: Promise<T>, what: string) => (whats.push(what), p) };
  }

  it("bounds every call (the retry too) under the step's label, and measures the step", async () => {
    const { s } = session('omit');
    const r = recording();
    const slow = <T>(p: Promise<T>, what: string): Promise<T> =>
      r.bound(
        p.then((v) => new Promise<T>((resolve) => setTimeout(() => resolve(v), 30))),
        what,
      );
    const out = await runStep(s, { tool: 'status', expect: { text: 'ok' } }, slow);
    expect(r.whats).toEqual(['tools/call status', 'tools/call status']);
    expect(out.ms).toBeGreaterThanOrEqual(25);
    expect(out.ms).toBeLessThan(60_000);
  });

  it('reads a resource by its URI: no contents fails, naming the request and the answer', async () => {
    const { s } = session('empty');
    const asked: unknown[] = [];
    s.readResource = async (uri: string) => (asked.push(uri), { contents: [] });
    const r = recording();
    const out = await runStep(s, { resource: 'note://1' }, r.bound);
    expect(asked).toEqual(['note://1']);
    expect(r.whats).toEqual(['resources/read note://1']);
    expect(out).toEqual({
      step: 'resources/read note://1',
      ms: expect.any(Number),
      problem: 'returned no contents · sent resources/read {"uri":"note://1"} · answer {"contents":[]}',
      answer: expect.any(Object),
    });
    s.readResource = async () => ({ contents: [{ uri: 'note://1', text: 'hello' }] });
    const ok = await runStep(s, { resource: 'note://1', expect: { text: 'hell' } }, bound);
    expect(ok.problem).toBeUndefined();
    expect(ok.arguments).toBeUndefined();
  });

  it('gets a prompt with its arguments: a wrong message count fails, naming the request', async () => {
    const { s } = session('empty');
    const asked: unknown[] = [];
    s.getPrompt = async (name: string, args?: Record<string, string>) => (asked.push([name, args]), { messages: [] });
    const r = recording();
    const out = await runStep(s, { prompt: 'greet', arguments: { who: 'x' }, expect: { messages: 1 } }, r.bound);
    expect(asked).toEqual([['greet', { who: 'x' }]]);
    expect(r.whats).toEqual(['prompts/get greet']);
    expect(out.problem).toBe(
      'expected 1 messages, got 0 · sent prompts/get {"name":"greet","arguments":{"who":"x"}} · answer {"messages":[]}',
    );
    expect(out.arguments).toBeUndefined();
    s.getPrompt = async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] });
    expect((await runStep(s, { prompt: 'greet', expect: { messages: 1, text: 'hi' } }, bound)).problem).toBeUndefined();
  });

  it('no re-send when the arguments were configured or sent as {}: the refusal is the answer', async () => {
    const error = Object.assign(new Error('Invalid params'), { code: -32602 });
    const configured = session('omit', error);
    const out = await runStep(configured.s, { tool: 'echo', arguments: { txt: 'x' } }, bound);
    expect(configured.calls).toEqual([['echo', { txt: 'x' }]]);
    expect(out.emptyRetry).toBeUndefined();
    expect(out.answer).toEqual({ error: { code: -32602 } });
    const empty = session('empty', error);
    const second = await runStep(empty.s, { tool: 'status' }, bound);
    expect(empty.calls).toEqual([['status', {}]]);
    expect(second.emptyRetry).toBeUndefined();
    expect(second.problem).toMatch(
      /^answered with error -32602: Invalid params · sent tools\/call \{"name":"status","arguments":\{\}\} \(no arguments configured: sent \{\}\)/,
    );
  });

  it('a {} that is answered but still fails the expectation: recorded as refused, the first refusal kept', async () => {
    const { s, calls } = session('omit');
    const out = await runStep(s, { tool: 'status', expect: { text: 'something else' } }, bound);
    expect(calls).toEqual([
      ['status', undefined],
      ['status', {}],
    ]);
    expect(out.emptyRetry).toBe('refused');
    expect(out.problem).toBe(
      `returned isError: ${JSON.stringify(REJECT_OMITTED)} · sent tools/call {"name":"status"} (arguments omitted) · answer ` +
        JSON.stringify({ content: [{ type: 'text', text: REJECT_OMITTED }], isError: true }),
    );
  });

  it('a refusal without arguments that is not invalid params: no re-send', async () => {
    const { s, calls } = session('omit');
    s.callTool = async (name: string, args?: Record<string, unknown>) => (
      calls.push([name, args]),
      { isError: true, content: [{ type: 'text', text: 'boom' }] }
    );
    const out = await runStep(s, { tool: 'status', expect: { text: 'ok' } }, bound);
    expect(calls).toEqual([['status', undefined]]);
    expect(out.emptyRetry).toBeUndefined();
  });

  it('a prompt refused without `arguments` (-32602) is re-sent once with {}: the step fails naming the cause', async () => {
    const { s } = session('omit');
    const sent: unknown[] = [];
    const refusal = 'MCP error -32602: Invalid arguments for prompt greet: expected object, received undefined';
    s.getPrompt = async (name: string, args: Record<string, string> | undefined) => {
      sent.push([name, args]);
      if (args === undefined) throw Object.assign(new Error(refusal), { code: -32602 });
      return { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] };
    };
    const out = await runStep(s, { prompt: 'greet' }, bound);
    expect(sent).toEqual([
      ['greet', undefined],
      ['greet', {}],
    ]);
    expect(out.emptyRetry).toBe('accepted');
    expect(out.problem).toBe(
      `rejects a prompts/get without \`arguments\`; accepts \`{}\`: answered with error -32602: ${refusal} · sent prompts/get {"name":"greet"} (arguments omitted) · answer ` +
        JSON.stringify({ error: { code: -32602, message: refusal } }),
    );
    // Refused with {} as well: the refusal as it was, recorded as refused.
    s.getPrompt = async () => {
      throw Object.assign(new Error(refusal), { code: -32602 });
    };
    const both = await runStep(s, { prompt: 'greet' }, bound);
    expect(both.emptyRetry).toBe('refused');
    expect(both.problem).toMatch(/^answered with error -32602: /);
    // Configured arguments, or another error: no re-send.
    sent.length = 0;
    s.getPrompt = async (name: string, args: Record<string, string> | undefined) => {
      sent.push([name, args]);
      throw Object.assign(new Error('nope'), { code: -32602 });
    };
    expect((await runStep(s, { prompt: 'greet', arguments: { who: 'x' } }, bound)).emptyRetry).toBeUndefined();
    expect(sent).toEqual([['greet', { who: 'x' }]]);
  });

  it("1.0.x's -1 and -2 (connection closed, timeout) are not answers either", async () => {
    for (const code of [-1, -2]) {
      const { s } = session('empty', Object.assign(new Error('gone'), { code }));
      await expect(runStep(s, { tool: 'x' }, bound)).rejects.toThrow('gone');
      await expect(runStep(s, { tool: 'x', expect: { isError: true } }, bound)).rejects.toThrow('gone');
    }
    const { s } = session('empty');
    s.callTool = () => Promise.reject(null);
    await expect(runStep(s, { tool: 'x', expect: { isError: true } }, bound)).rejects.toBeNull();
  });

  it('a JSON-RPC error taken as isError is quoted as the text block it stands for', async () => {
    const { s } = session('empty', Object.assign(new Error('Unknown tool: nope'), { code: -32602 }));
    const out = await runStep(s, { tool: 'nope', expect: { isError: true, text: 'something else' } }, bound);
    expect(out.problem).toMatch(
      /· answer \{"isError":true,"content":\[\{"type":"text","text":"Unknown tool: nope"\}\],"jsonRpcError":-32602\}$/,
    );
  });

  it('quotes an answer of exactly the bound whole', async () => {
    const { s } = session('empty');
    const base = JSON.stringify({ content: [{ type: 'text', text: '' }] }).length;
    s.callTool = async () => ({ content: [{ type: 'text', text: 'y'.repeat(400 - base) }] });
    const out = await runStep(s, { tool: 't', expect: { text: 'z' } }, bound);
    const answer = out.problem!.split(' · answer ')[1]!;
    expect(answer.length).toBe(400);
    expect(answer.endsWith('"}]}')).toBe(true);
  });
});
