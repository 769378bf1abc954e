// The only module that knows which client the driver runs (SDK major, exact version). It loads that client from the
// driver's own directory and smooths every client-side difference, so no phase branches on the SDK.

import { observe, type SeenRequest } from './adapter-observe.js';
import { installedVersion, olderThan } from './adapter-version.js';
import { unreadable } from './adapter-unreadable.js';
import type { ClientSpec } from '../../contract/protocol.js';

const RECONNECT = { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 };

export type Listable = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

export interface ClientOptions extends ClientSpec {
  /** Every server→client request, as it arrives; its `answer` is filled in when the client replies. */
  onServerRequest?(seen: SeenRequest): void;
}

export const DEFAULT_CLIENT: ClientSpec = { capabilities: {}, roots: [], noArguments: 'omit' };

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
  /** The last result that came over the wire (before any client parsing), then forgotten; undefined: none since. */
  takeWireResult?(): unknown;
  ping(): Promise<void>;
  terminateSession(): Promise<void>;
  close(): Promise<void>;
}

export interface SdkAdapter {
  major: number;
  /** `package@version` of the loaded client: what a failure caused by the client names. */
  client: string;
  /** Why this client cannot run the http phase (it has no Streamable HTTP transport), or null. */
  noHttp: string | null;
  /** A client that should have the transport (1.10.0+, 2.x) whose install does not: the http phase cannot load it. */
  httpLoadError: Error | null;
  /**
   * The protocol revision this client offers in `initialize` (its LATEST_PROTOCOL_VERSION): what the server answers
   * to it is the revision the cell negotiates, which the spec checks offer too. Undefined when the client has none.
   */
  protocolOffer: string | undefined;
  session(timeoutMs: number): McpSession;
  httpTransport(url: string, headers: Record<string, string>): unknown;
}

/** Which client to load: the major, and the exact version when the spec knows it. */
export interface ClientTarget {
  major: number;
  version?: string;
}

/** The client package of each major (what a client pin installs). */
export function clientPackage(major: number): string {
  return major >= 2 ? '@modelcontextprotocol/client' : '@modelcontextprotocol/sdk';
}

/** `StreamableHTTPClientTransport` first shipped in @modelcontextprotocol/sdk 1.10.0. */
export const STREAMABLE_HTTP_SINCE = '1.10.0';

/** A client's answer it could not parse: the message names the client, the protocol and what it could not read. */
export class ClientCannotRead extends Error {
  /** The result as it came over the wire (the client never returned it). */
  readonly answer: unknown;
  constructor(message: string, answer: unknown) {
    super(message);
    this.name = 'ClientCannotRead';
    this.answer = answer;
  }
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

export async function loadAdapter(target: number | ClientTarget, client: ClientOptions = DEFAULT_CLIENT): Promise<SdkAdapter> {
  const { major, version: given } = typeof target === 'number' ? { major: target, version: undefined } : target;
  const pkg = clientPackage(major);
  const entry = major >= 2 ? pkg : `${pkg}/client/index.js`;
  const version = given ?? installedVersion(pkg, entry);
  const label = `${pkg}@${version ?? '(version unknown)'}`;
  try {
    return await adapterFor(major, version, label, entry, client);
  } catch (error) {
    throw new Error(`could not load the client ${label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

async function adapterFor(
  major: number,
  version: string | undefined,
  label: string,
  entry: string,
  client: ClientOptions,
): Promise<SdkAdapter> {
  const pkg = clientPackage(major);
  let Client: Ctor;
  let HttpTransport: Ctor | undefined;
  let httpLoadError: Error | null = null;
  let noHttp: string | null = null;
  const lacksHttp = `the client ${label} has no Streamable HTTP transport (added in ${STREAMABLE_HTTP_SINCE})`;
  // v2 keys request handlers by method name, v1 by its zod schema.
  let rootsKey: unknown = 'roots/list';
  let offer: unknown;
  if (major >= 2) {
    const mod = await load(entry);
    Client = mod.Client as Ctor;
    HttpTransport = mod.StreamableHTTPClientTransport as Ctor;
    offer = mod.LATEST_PROTOCOL_VERSION;
  } else {
    offer = await load(`${pkg}/types.js`).then(
      (types) => types.LATEST_PROTOCOL_VERSION,
      () => undefined,
    );
    Client = (await load(entry)).Client as Ctor;
    if (version && olderThan(version, STREAMABLE_HTTP_SINCE)) noHttp = lacksHttp;
    else {
      try {
        HttpTransport = (await load(`${pkg}/client/streamableHttp.js`)).StreamableHTTPClientTransport as Ctor;
      } catch (error) {
        // A version we could not read that lacks the module is one of the clients before 1.10.
        if (!version && /MODULE_NOT_FOUND|PACKAGE_PATH_NOT_EXPORTED/.test(String((error as { code?: unknown }).code))) noHttp = lacksHttp;
        else
          httpLoadError = new Error(
            `could not load the Streamable HTTP transport of the client ${label}: ${error instanceof Error ? error.message : String(error)}`,
          );
      }
    }
    if (client.capabilities.roots) rootsKey = (await load(`${pkg}/types.js`)).ListRootsRequestSchema;
  }
  if (typeof Client !== 'function') throw new Error(`the client ${label} exports no Client`);
  return {
    major,
    client: label,
    noHttp,
    protocolOffer: typeof offer === 'string' ? offer : undefined,
    httpLoadError:
      httpLoadError ??
      (typeof HttpTransport === 'function' || noHttp ? null : new Error(`the client ${label} exports no StreamableHTTPClientTransport`)),
    session: (timeoutMs) => createSession(Client, major, timeoutMs, client, rootsKey, label),
    httpTransport(url, headers) {
      if (typeof HttpTransport !== 'function') throw new Error(noHttp ?? `the client ${label} exports no StreamableHTTPClientTransport`);
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
  label = clientPackage(major),
): McpSession {
  // 1.0.0 crashes without the options argument.
  const client = new Client({ name: 'mcp-matrix-driver', version: '0.1.0' }, { capabilities: options.capabilities });
  if (options.capabilities.roots) {
    const roots = options.roots.map((r) => ({ ...r }));
    (client.setRequestHandler as (key: unknown, handler: () => unknown) => void).call(client, rootsKey, () => ({ roots }));
  }
  let transport: Record<string, unknown> | undefined;
  let negotiated: string | undefined;
  let info: { name?: string; version?: string } | undefined;
  /** The last result that came over the wire: what a client that cannot parse it still shows. */
  let lastResult: unknown;
  const call = async (method: string, ...args: unknown[]): Promise<unknown> => {
    try {
      return await (client[method] as AnyFn).apply(client, args);
    } catch (error) {
      const unread = unreadable(error, major, lastResult);
      if (!unread) throw error;
      const protocol = session.protocolVersion() ?? 'unknown';
      throw new ClientCannotRead(
        `the client ${label} could not read the server's answer under the negotiated protocol ${protocol}: ${unread.what}` +
          (unread.type
            ? ` (the server sent content protocol ${protocol} does not have)`
            : ` (the answer does not match protocol ${protocol})`),
        lastResult,
      );
    }
  };
  const opts = { timeout: timeoutMs };

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
        onResult: (result) => (lastResult = result),
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
    takeWireResult() {
      const wire = lastResult;
      lastResult = undefined;
      return wire;
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
