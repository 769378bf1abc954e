import { describe, expect, it } from 'vitest';
import { createSession, isUnauthorized, type Ctor } from '../../src/driver/adapter.js';

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
