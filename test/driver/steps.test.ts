import { describe, expect, it } from 'vitest';
import { ClientCannotRead, type McpSession } from '../../src/driver/adapter.js';
import type { ClientSpec } from '../../src/driver/protocol.js';
import { describeRequest, runStep, toolArguments } from '../../src/driver/steps.js';
import { digest } from '../../src/driver/answer.js';

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
    expect(describeRequest({ prompt: 'p' }, 'empty')).toBe('prompts/get {"name":"p"}');
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
