import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ClientCannotRead,
  clientPackage,
  createSession,
  DEFAULT_CLIENT,
  isUnauthorized,
  type Ctor,
} from '../../../src/driver/client/adapter.js';
import type { SeenRequest } from '../../../src/driver/client/adapter-observe.js';
import { unreadable } from '../../../src/driver/client/adapter-unreadable.js';
import { olderThan } from '../../../src/driver/client/adapter-version.js';

/** What real clients threw for an unknown content type (`video`) and a text item without `text`. */
const RECORDED = JSON.parse(readFileSync(new URL('../fixtures/client-read-errors.json', import.meta.url), 'utf8')) as Record<
  string,
  { major: number; video: unknown; field: unknown }
> & { answers: { video: unknown; field: unknown } };

const PAGES: Record<string, { tools: { name: string }[]; nextCursor?: string }> = {
  start: { tools: [{ name: 'a' }], nextCursor: 'p2' },
  p2: { tools: [{ name: 'b' }], nextCursor: 'p3' },
  p3: { tools: [{ name: 'c' }] },
};

function fakeClient(capabilities: Record<string, unknown>) {
  const calls: unknown[][] = [];
  class FakeClient {
    constructor(...args: unknown[]) {
      calls.push(['new', ...args]);
    }
    getServerCapabilities() {
      return capabilities;
    }
    async listTools(params?: { cursor?: string }) {
      calls.push(['listTools', params]);
      return PAGES[params?.cursor ?? 'start'];
    }
    async listPrompts(params?: unknown) {
      calls.push(['listPrompts', params]);
      return { prompts: [] };
    }
    async callTool(...args: unknown[]) {
      calls.push(['callTool', ...args]);
      return { content: [] };
    }
  }
  return { Client: FakeClient as unknown as Ctor, calls };
}

describe('createSession', () => {
  it('always passes client options (1.0.0 crashes without them)', () => {
    const { Client, calls } = fakeClient({});
    createSession(Client, 1, 1000);
    expect(calls[0]).toEqual(['new', { name: 'mcp-matrix-driver', version: '0.1.0' }, { capabilities: {} }]);
  });

  it('walks every page with `cursor ? {cursor} : undefined`', async () => {
    const { Client, calls } = fakeClient({ tools: {} });
    const s = createSession(Client, 1, 1000);
    expect((await s.list('tools'))?.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(calls.filter((c) => c[0] === 'listTools').map((c) => c[1])).toEqual([undefined, { cursor: 'p2' }, { cursor: 'p3' }]);
  });

  it('does not ask for a capability the server did not advertise', async () => {
    const { Client, calls } = fakeClient({ tools: {} });
    const s = createSession(Client, 2, 1000);
    expect(await s.list('prompts')).toBeNull();
    expect(calls.some((c) => c[0] === 'listPrompts')).toBe(false);
  });

  it('puts callTool options where each major expects them', async () => {
    for (const major of [1, 2]) {
      const { Client, calls } = fakeClient({ tools: {} });
      await createSession(Client, major, 1234).callTool('t', { x: 1 });
      const call = calls.find((c) => c[0] === 'callTool')!;
      const expected =
        major === 1
          ? [{ name: 't', arguments: { x: 1 } }, undefined, { timeout: 1234 }]
          : [{ name: 't', arguments: { x: 1 } }, { timeout: 1234 }];
      expect(call.slice(1)).toEqual(expected);
    }
  });
});

/** A client that, like the SDK's Protocol, answers a server request from its handlers, else with -32601. */
function protocolClient() {
  const handlers = new Map<unknown, () => unknown>();
  const made: { options?: unknown } = {};
  class ProtocolClient {
    transport: Record<string, (m?: unknown) => unknown> | undefined;
    constructor(_info: unknown, options: unknown) {
      made.options = options;
      handlers.set('ping', () => ({}));
    }
    setRequestHandler(key: unknown, handler: () => unknown) {
      handlers.set(key, handler);
    }
    async connect(t: Record<string, (m?: unknown) => unknown>) {
      this.transport = t;
      t.onmessage = (m: unknown) => {
        const req = m as { id?: number; method: string };
        if (req.id === undefined) return;
        const handler = handlers.get(req.method);
        void t.send!(
          handler
            ? { jsonrpc: '2.0', id: req.id, result: handler() }
            : { jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'Method not found' } },
        );
      };
      await t.start!();
    }
  }
  return { Client: ProtocolClient as unknown as Ctor, handlers, made };
}

function fakeTransport() {
  const sent: unknown[] = [];
  const t: Record<string, unknown> = {
    async start() {},
    async send(m: unknown) {
      sent.push(m);
    },
  };
  return { t, sent, deliver: (m: unknown) => (t.onmessage as (m: unknown) => void)(m) };
}

describe('the configurable client', () => {
  const roots = [{ uri: 'file:///work/a', name: 'a' }];

  it('declares the configured capabilities and answers roots/list with the configured roots', async () => {
    const { Client, made } = protocolClient();
    const seen: SeenRequest[] = [];
    const s = createSession(
      Client,
      2,
      1000,
      { capabilities: { roots: {}, sampling: {} }, roots, noArguments: 'empty', onServerRequest: (r) => seen.push(r) },
      'roots/list',
    );
    expect(made.options).toEqual({ capabilities: { roots: {}, sampling: {} } });
    const { t, sent, deliver } = fakeTransport();
    await s.connect(t);
    deliver({ jsonrpc: '2.0', id: 1, method: 'roots/list' });
    deliver({ jsonrpc: '2.0', id: 2, method: 'ping' });
    deliver({ jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: {} });
    deliver({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { roots } },
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
    ]);
    // Notifications are not requests; every request is recorded with its answer.
    expect(seen).toEqual([
      { method: 'roots/list', answer: 'result' },
      { method: 'ping', answer: 'result' },
      { method: 'sampling/createMessage', answer: 'error -32601 Method not found' },
    ]);
  });

  it('keys the roots handler as the major expects (v1: the zod schema it was given)', () => {
    const { Client, handlers } = protocolClient();
    const schema = { shape: 'ListRootsRequestSchema' };
    createSession(Client, 1, 1000, { capabilities: { roots: {} }, roots, noArguments: 'empty' }, schema);
    expect(handlers.has(schema)).toBe(true);
    expect(handlers.has('roots/list')).toBe(false);
  });

  it('without the roots capability registers no roots handler: roots/list gets -32601', async () => {
    const { Client, handlers } = protocolClient();
    const seen: SeenRequest[] = [];
    const s = createSession(Client, 2, 1000, { ...DEFAULT_CLIENT, roots, onServerRequest: (r) => seen.push(r) });
    expect(handlers.has('roots/list')).toBe(false);
    const { t, sent, deliver } = fakeTransport();
    await s.connect(t);
    deliver({ jsonrpc: '2.0', id: 'r1', method: 'roots/list' });
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'r1', error: { code: -32601, message: 'Method not found' } }]);
    expect(seen).toEqual([{ method: 'roots/list', answer: 'error -32601 Method not found' }]);
  });

  it('sends a call without arguments as it is given, with no arguments field', async () => {
    const { Client, calls } = fakeClient({ tools: {} });
    await createSession(Client, 2, 1000).callTool('t', undefined);
    await createSession(Client, 2, 1000).callTool('t', {});
    expect(calls.filter((c) => c[0] === 'callTool').map((c) => c[1])).toEqual([{ name: 't' }, { name: 't', arguments: {} }]);
  });
});

describe('isUnauthorized', () => {
  it('recognises every 401 shape of every client version', () => {
    expect(isUnauthorized(new Error('Error POSTing to endpoint (HTTP 401): nope'))).toBe(true);
    expect(isUnauthorized(Object.assign(new Error('Streamable HTTP error'), { code: 401 }))).toBe(true);
    expect(isUnauthorized(Object.assign(new Error('x'), { name: 'SdkHttpError', status: 401, code: 'CLIENT_HTTP_NOT_IMPLEMENTED' }))).toBe(
      true,
    );
    class UnauthorizedError extends Error {}
    expect(isUnauthorized(new UnauthorizedError('Unauthorized'))).toBe(true);
    expect(isUnauthorized(Object.assign(new Error('Unauthorized'), { name: 'UnauthorizedError' }))).toBe(true);
  });

  it('does not mistake other failures for a 401', () => {
    expect(isUnauthorized(Object.assign(new Error('x'), { status: 403 }))).toBe(false);
    expect(isUnauthorized(new Error('HTTP 404'))).toBe(false);
    expect(isUnauthorized(null)).toBe(false);
    expect(isUnauthorized('401')).toBe(false);
  });
});

describe('unreadable: what a client could not read, from its own validation error', () => {
  const FIELD: Record<string, string> = {
    '@modelcontextprotocol/sdk@1.0.0': 'content[0].text: Required',
    '@modelcontextprotocol/sdk@1.32.2': 'content[0].text: Invalid input: expected string, received undefined',
    '@modelcontextprotocol/client@2.4.0': 'content[0].text: Invalid input: expected string, received undefined',
  };
  it.each(Object.keys(FIELD))('%s: an unknown content type names the type; a missing field names its path', (client) => {
    const recorded = RECORDED[client]!;
    expect(unreadable(recorded.video, recorded.major, RECORDED.answers.video)).toEqual({
      what: 'content[0] has type "video", which this client does not know',
      type: 'video',
    });
    expect(unreadable(recorded.field, recorded.major, RECORDED.answers.field)).toEqual({ what: FIELD[client] });
  });

  it('names a field outside any union, or the whole result', () => {
    const missing = { name: 'ZodError', issues: [{ code: 'invalid_type', path: ['content'], message: 'Required' }] };
    expect(unreadable(missing, 1, {})).toEqual({ what: 'content: Required' });
    const notObject = { name: '$ZodError', issues: [{ code: 'invalid_type', path: [], message: 'Invalid input: expected object' }] };
    expect(unreadable(notObject, 1, 7)).toEqual({ what: 'the result: Invalid input: expected object' });
  });

  it('is null for every other failure: an error answer, a timeout, a lost connection, a v1 error with an INVALID_RESULT code', () => {
    expect(unreadable(Object.assign(new Error('MCP error -32602: Invalid tools/call result: []'), { code: -32602 }), 1, {})).toBeNull();
    expect(unreadable(Object.assign(new Error('Request timed out'), { code: 'REQUEST_TIMEOUT' }), 2, {})).toBeNull();
    expect(unreadable(new Error('Connection closed'), 1, {})).toBeNull();
    expect(
      unreadable(Object.assign(new Error('Invalid result for tools/call: [{"path":[]}]'), { code: 'INVALID_RESULT' }), 1, {}),
    ).toBeNull();
    expect(unreadable(Object.assign(new Error('Invalid result for tools/call: not json'), { code: 'INVALID_RESULT' }), 2, {})).toBeNull();
    expect(unreadable({ issues: [] }, 1, {})).toBeNull();
    expect(unreadable(null, 1, {})).toBeNull();
  });
});

describe('a session whose client cannot read an answer', () => {
  it('throws ClientCannotRead naming the client, the negotiated protocol and the content type, with the answer as sent', async () => {
    const recorded = RECORDED['@modelcontextprotocol/sdk@1.0.0']!;
    class OldClient {
      transport: Record<string, unknown> | undefined;
      async connect(t: Record<string, unknown>) {
        this.transport = t;
        t.onmessage = () => {};
        await (t.start as () => Promise<void>)();
      }
      async callTool() {
        // The answer arrives over the transport; the client's own validation then rejects it.
        const deliver = this.transport!.onmessage as (m: unknown) => void;
        deliver({ jsonrpc: '2.0', id: 1, result: RECORDED.answers.video });
        throw recorded.video;
      }
    }
    const s = createSession(OldClient as unknown as Ctor, 1, 1000, DEFAULT_CLIENT, 'roots/list', '@modelcontextprotocol/sdk@1.0.0');
    const { t, deliver } = fakeTransport();
    await s.connect(t);
    deliver({
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'x', version: '1' } },
    });
    const error = await s.callTool('find_doc', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientCannotRead);
    expect((error as ClientCannotRead).message).toBe(
      "the client @modelcontextprotocol/sdk@1.0.0 could not read the server's answer under the negotiated protocol 2024-11-05: " +
        'content[0] has type "video", which this client does not know (the server sent content protocol 2024-11-05 does not have)',
    );
    expect((error as ClientCannotRead).answer).toEqual(RECORDED.answers.video);
  });

  it('passes any other error through untouched', async () => {
    const boom = Object.assign(new Error('MCP error -32602: nope'), { code: -32602 });
    class Client {
      async callTool() {
        throw boom;
      }
    }
    await expect(createSession(Client as unknown as Ctor, 1, 1000).callTool('t', {})).rejects.toBe(boom);
  });
});

describe('client versions', () => {
  it('orders release versions numerically (1.9.0 is before 1.10.0, where Streamable HTTP arrived)', () => {
    expect(olderThan('1.9.0', '1.10.0')).toBe(true);
    expect(olderThan('1.0.0', '1.10.0')).toBe(true);
    expect(olderThan('1.10.0', '1.10.0')).toBe(false);
    expect(olderThan('1.10.2', '1.10.0')).toBe(false);
    expect(olderThan('1.32.2', '1.10.0')).toBe(false);
    expect(olderThan('2.0.0-beta.1', '1.10.0')).toBe(false);
  });

  it('names the client package of each major', () => {
    expect(clientPackage(1)).toBe('@modelcontextprotocol/sdk');
    expect(clientPackage(2)).toBe('@modelcontextprotocol/client');
  });
});
