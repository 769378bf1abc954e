// The only module that knows which SDK major the cell has. It loads the cell's client (bare specifiers
// resolve from <cell>/.mcp-matrix/driver, i.e. the cell's node_modules, never the harness's) and
// smooths over every client-side difference the phases would otherwise branch on.

import type { ClientSpec } from './protocol.js';

const RECONNECT = { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 };

export type Listable = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** A request the server sent to the client, and what the client answered (`result`, `error <code> …`). */
export interface SeenRequest {
  method: string;
  answer: string;
}

export interface ClientOptions extends ClientSpec {
  /** Every server→client request, as it arrives; its `answer` is filled in when the client replies. */
  onServerRequest?(seen: SeenRequest): void;
}

export const DEFAULT_CLIENT: ClientSpec = { capabilities: {}, roots: [], noArguments: 'empty' };

/** What the phases may call; every method is bounded by `timeoutMs` through the SDK's own option. */
export interface McpSession {
  /** What a tool step without `arguments` sends (the steps describe the request from it). */
  readonly noArguments: ClientSpec['noArguments'];
  connect(transport: unknown): Promise<void>;
  capabilities(): Record<string, unknown>;
  serverInfo(): { name?: string; version?: string } | undefined;
  protocolVersion(): string | undefined;
  /** Every page; `null` when the server did not advertise the capability (nothing is requested). */
  list(kind: Listable): Promise<Record<string, unknown>[] | null>;
  /** `args` undefined: the request has no `arguments` field at all. */
  callTool(name: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>>;
  readResource(uri: string): Promise<Record<string, unknown>>;
  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Record<string, unknown>>;
  ping(): Promise<void>;
  terminateSession(): Promise<void>;
  close(): Promise<void>;
}

export interface SdkAdapter {
  major: number;
  session(timeoutMs: number): McpSession;
  httpTransport(url: string, headers: Record<string, string>): unknown;
}

type AnyFn = (...args: unknown[]) => Promise<unknown>;
export type Ctor = new (...args: unknown[]) => Record<string, AnyFn | unknown>;

const CAPABILITY: Record<Listable, string> = {
  tools: 'tools',
  resources: 'resources',
  resourceTemplates: 'resources',
  prompts: 'prompts',
};
const METHOD: Record<Listable, string> = {
  tools: 'listTools',
  resources: 'listResources',
  resourceTemplates: 'listResourceTemplates',
  prompts: 'listPrompts',
};
const MAX_PAGES = 1000;

// A variable specifier keeps TypeScript (and the harness's own SDK) out of the resolution.
const load = (specifier: string): Promise<Record<string, unknown>> => import(specifier) as Promise<Record<string, unknown>>;

export async function loadAdapter(major: number, client: ClientOptions = DEFAULT_CLIENT): Promise<SdkAdapter> {
  let Client: Ctor;
  let HttpTransport: Ctor;
  // v2 keys request handlers by method name, v1 by its zod schema.
  let rootsKey: unknown = 'roots/list';
  if (major >= 2) {
    const mod = await load('@modelcontextprotocol/client');
    Client = mod.Client as Ctor;
    HttpTransport = mod.StreamableHTTPClientTransport as Ctor;
  } else {
    Client = (await load('@modelcontextprotocol/sdk/client/index.js')).Client as Ctor;
    // Absent before 1.10: only the http phase needs it, and it says so.
    const http = await load('@modelcontextprotocol/sdk/client/streamableHttp.js').catch(() => ({}) as Record<string, unknown>);
    HttpTransport = http.StreamableHTTPClientTransport as Ctor;
    if (client.capabilities.roots) rootsKey = (await load('@modelcontextprotocol/sdk/types.js')).ListRootsRequestSchema;
  }
  if (typeof Client !== 'function') throw new Error(`the cell's SDK (major ${major}) exports no Client`);
  return {
    major,
    session: (timeoutMs) => createSession(Client, major, timeoutMs, client, rootsKey),
    httpTransport(url, headers) {
      if (typeof HttpTransport !== 'function') throw new Error(`the cell's SDK (major ${major}) has no StreamableHTTPClientTransport`);
      // Short reconnection delays: some 1.x clients (1.23) schedule an SSE reconnect timer when the session
      // ends that close() does not clear; it must drain quickly so the driver's own-handle check stays exact.
      return new HttpTransport(new URL(url), { requestInit: { headers }, reconnectionOptions: RECONNECT });
    },
  };
}

/**
 * Exported for tests: wraps any `Client` class with the normalised surface. The client declares the configured
 * capabilities and answers `roots/list` when it declares `roots`; the SDK itself answers `ping`, and -32601 to
 * any other server request, so no server request is left hanging.
 */
export function createSession(
  Client: Ctor,
  major: number,
  timeoutMs: number,
  options: ClientOptions = DEFAULT_CLIENT,
  rootsKey: unknown = 'roots/list',
): McpSession {
  // 1.0.0 crashes without the options argument.
  const client = new Client({ name: 'mcp-matrix-driver', version: '0.1.0' }, { capabilities: options.capabilities });
  if (options.capabilities.roots) {
    const roots = options.roots.map((r) => ({ ...r }));
    (client.setRequestHandler as (key: unknown, handler: () => unknown) => void).call(client, rootsKey, () => ({ roots }));
  }
  const call = (method: string, ...args: unknown[]): Promise<unknown> => (client[method] as AnyFn).apply(client, args);
  const opts = { timeout: timeoutMs };
  let transport: Record<string, unknown> | undefined;
  let negotiated: string | undefined;
  let info: { name?: string; version?: string } | undefined;

  const session: McpSession = {
    noArguments: options.noArguments,
    async connect(t) {
      transport = t as Record<string, unknown>;
      observe(transport, {
        onInitialize(result) {
          if (typeof result.protocolVersion === 'string') negotiated = result.protocolVersion;
          if (result.serverInfo && typeof result.serverInfo === 'object') info = result.serverInfo as typeof info;
        },
        onServerRequest: (seen) => options.onServerRequest?.(seen),
      });
      await call('connect', t, opts);
    },
    capabilities: () => (client.getServerCapabilities as () => Record<string, unknown> | undefined)?.call(client) ?? {},
    serverInfo: () => (client.getServerVersion as () => typeof info)?.call(client) ?? info,
    protocolVersion() {
      const v2 = client.getNegotiatedProtocolVersion as (() => string | undefined) | undefined;
      return v2?.call(client) ?? negotiated ?? (transport?.protocolVersion as string | undefined);
    },
    async list(kind) {
      // v2 prints to stdout for an unadvertised capability and v1 throws -32601: ask only when advertised.
      if (!session.capabilities()[CAPABILITY[kind]]) return null;
      const items: Record<string, unknown>[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        // v2 walks every page itself when given no cursor; v1 returns one page and a nextCursor.
        const result = (await call(METHOD[kind], cursor ? { cursor } : undefined, opts)) as Record<string, unknown>;
        items.push(...((result[kind] as Record<string, unknown>[] | undefined) ?? []));
        const next = result.nextCursor;
        if (typeof next !== 'string' || next === '' || seen.has(next)) break;
        seen.add(next);
        cursor = next;
      }
      return items;
    },
    async callTool(name, args) {
      const params = args === undefined ? { name } : { name, arguments: args };
      // v1: (params, resultSchema?, options?); v2: (params, options?). A wrong guess throws on v1, is ignored on v2.
      const result = major >= 2 ? await call('callTool', params, opts) : await call('callTool', params, undefined, opts);
      return result as Record<string, unknown>;
    },
    async readResource(uri) {
      return (await call('readResource', { uri }, opts)) as Record<string, unknown>;
    },
    async getPrompt(name, args) {
      return (await call('getPrompt', args ? { name, arguments: args } : { name }, opts)) as Record<string, unknown>;
    },
    async ping() {
      await call('ping', opts);
    },
    async terminateSession() {
      const terminate = transport?.terminateSession as (() => Promise<void>) | undefined;
      if (terminate) await terminate.call(transport);
    },
    async close() {
      await call('close');
      if (process.env.MCP_MATRIX_TEST_LEAK_HANDLE === '1') leakHandleForTest();
    },
  };
  return session;
}

type Message = { id?: unknown; method?: unknown; result?: Record<string, unknown>; error?: { code?: unknown; message?: unknown } } | null;

/**
 * Wraps `start` and `send` so that, on any transport, the initialize response is seen (v1 has no
 * negotiated-version getter) and every server→client request is recorded with the client's answer.
 */
function observe(
  transport: Record<string, unknown>,
  on: { onInitialize(result: Record<string, unknown>): void; onServerRequest(seen: SeenRequest): void },
): void {
  const pending = new Map<unknown, SeenRequest>();
  const start = transport.start as (() => Promise<void>) | undefined;
  if (typeof start === 'function') {
    transport.start = async function (this: Record<string, unknown>) {
      const handler = transport.onmessage as ((message: unknown, extra?: unknown) => void) | undefined;
      if (handler) {
        transport.onmessage = (message: unknown, extra?: unknown) => {
          const m = message as Message;
          const result = m?.result;
          if (result && typeof result.protocolVersion === 'string' && result.capabilities) on.onInitialize(result);
          if (typeof m?.method === 'string' && m.id !== undefined && m.id !== null) {
            const seen: SeenRequest = { method: m.method, answer: 'unanswered' };
            pending.set(m.id, seen);
            on.onServerRequest(seen);
          }
          handler(message, extra);
        };
      }
      return start.call(transport);
    };
  }
  const send = transport.send as ((message: unknown, ...rest: unknown[]) => Promise<void>) | undefined;
  if (typeof send !== 'function') return;
  transport.send = function (this: unknown, message: unknown, ...rest: unknown[]) {
    const m = message as Message;
    const seen = m && m.method === undefined ? pending.get(m.id) : undefined;
    if (seen) {
      pending.delete(m!.id);
      seen.answer = m!.error ? `error ${String(m!.error.code)} ${String(m!.error.message ?? '')}`.trim() : 'result';
    }
    return send.call(transport, message, ...rest);
  };
}

let leakedForTest = false;

/**
 * Test-only (MCP_MATRIX_TEST_LEAK_HANDLE=1, read by nothing but the driver): leaves one timer of the
 * driver's own client open, so that the leaks phase's own-handle check can be seen to fail.
 */
function leakHandleForTest(): void {
  if (leakedForTest) return;
  leakedForTest = true;
  setInterval(() => {}, 60_000);
}

/** One check for an HTTP 401 across every client version (see sdk-majors §3.3). */
export function isUnauthorized(error: unknown): boolean {
  const e = error as { status?: unknown; code?: unknown; message?: unknown; name?: unknown; constructor?: { name?: string } } | null;
  if (!e || typeof e !== 'object') return false;
  return (
    e.status === 401 ||
    e.code === 401 ||
    /HTTP 401/.test(String(e.message ?? '')) ||
    e.name === 'UnauthorizedError' ||
    e.constructor?.name === 'UnauthorizedError'
  );
}
