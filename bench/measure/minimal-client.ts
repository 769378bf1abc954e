// The floor for a cell's server work: the same server processes, driven by the least client that can
// do the same requests (raw JSON-RPC over stdio, raw fetch over HTTP). No SDK, no probe, no checks
// beyond what is needed to keep going. Times come back split the way the harness splits its phases:
//   stdio     spawn → ping answered            (harness: stdio phase)
//   stdioExit stdin closed → server exited     (harness: part of leaks)
//   http      spawn → session DELETE answered  (harness: http phase)
//   httpExit  SIGTERM → server exited          (harness: part of leaks)
//   bind      spawn → server exited            (harness: bind phase)
//
// Use: import { runMinimal } from './minimal-client.js', or
//      node bench/.build/measure/minimal-client.js <spec.json>   (prints the timings as JSON)
// spec: { bin, cwd, baseEnv?, steps, stdio: {args, env}, http: {args, env, path, host}, bind: {args, env, dropEnv} }
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';

const PROTOCOL = '2025-11-25';
const CLIENT = { name: 'mcp-matrix-bench-minimal', version: '0.0.0' };

type Env = Record<string, string>;
type Values = Record<string, string>;
type Json = Record<string, unknown>;
type Step = { tool: string; arguments?: Json } | { resource: string } | { prompt: string; arguments?: Json };
export interface MinimalSpec {
  bin: string;
  cwd: string;
  baseEnv?: Env;
  steps?: Step[];
  stdio: { args?: string[]; env?: Env };
  http?: { args?: string[]; env?: Env; path?: string; host?: string };
  bind?: { args?: string[]; env?: Env; dropEnv?: string[] };
}
interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
interface Rpc {
  id?: number;
  method?: string;
  result?: Json;
  error?: { message: string };
}

const now = (): number => performance.now();
const sub = (values: Values, text: string): string => text.replace(/\{(host|port|token)\}/g, (m, k: string) => values[k] ?? m);

function start(spec: MinimalSpec, args: string[], env: Env): { child: ChildProcessWithoutNullStreams; exited: Promise<Exit> } {
  const child = spawn(process.execPath, [spec.bin, ...args], { cwd: spec.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.stderr.resume();
  return { child, exited };
}

function envFor(spec: MinimalSpec, extra: Env | undefined, values: Values, drop: string[] = []): Env {
  const env = { ...(spec.baseEnv ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }) };
  for (const [k, v] of Object.entries(extra ?? {})) env[k] = sub(values, v);
  for (const k of drop) delete env[k];
  return env;
}

function stepRequest(step: Step): [string, Json] {
  if ('tool' in step) return ['tools/call', { name: step.tool, arguments: step.arguments ?? {} }];
  if ('resource' in step) return ['resources/read', { uri: step.resource }];
  return ['prompts/get', { name: step.prompt, arguments: step.arguments ?? {} }];
}

// ---------- stdio ----------
export async function stdioRun(spec: MinimalSpec) {
  const t0 = now();
  const { child, exited } = start(spec, spec.stdio.args ?? [], envFor(spec, spec.stdio.env, {}));
  const pending = new Map<number, { resolve: (r: Json) => void; reject: (e: Error) => void; method: string }>();
  let id = 0;
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      let msg: Rpc;
      try {
        msg = JSON.parse(line) as Rpc;
      } catch {
        continue;
      }
      const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (p) {
        pending.delete(msg.id!);
        if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p.resolve(msg.result ?? {});
      } else if (msg.method && msg.id !== undefined) {
        // A server request (roots, sampling …): answer empty so it never waits on us.
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} })}\n`);
      }
    }
  });
  void exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`server exited during ${p.method}`));
  });
  const request = (method: string, params?: Json): Promise<Json> =>
    new Promise((resolve, reject) => {
      const rid = ++id;
      pending.set(rid, { resolve, reject, method });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: rid, method, ...(params ? { params } : {}) })}\n`);
    });
  const notify = (method: string): boolean => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  const listAll = async (method: string, key: string): Promise<unknown[]> => {
    const items: unknown[] = [];
    let cursor: unknown;
    do {
      const r = await request(method, cursor ? { cursor } : {});
      items.push(...((r[key] as unknown[] | undefined) ?? []));
      cursor = r.nextCursor;
    } while (cursor);
    return items;
  };

  const init = await request('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: CLIENT });
  notify('notifications/initialized');
  const caps = (init.capabilities ?? {}) as Record<string, unknown>;
  const counts: Record<string, number> = {};
  if (caps.tools) counts.tools = (await listAll('tools/list', 'tools')).length;
  if (caps.resources) {
    counts.resources = (await listAll('resources/list', 'resources')).length;
    counts.resourceTemplates = (await listAll('resources/templates/list', 'resourceTemplates')).length;
  }
  if (caps.prompts) counts.prompts = (await listAll('prompts/list', 'prompts')).length;
  for (const step of spec.steps ?? []) await request(...stepRequest(step));
  await request('ping');
  const t1 = now();
  child.stdin.end();
  const exit = await exited;
  const t2 = now();
  return { stdioMs: t1 - t0, stdioExitMs: t2 - t1, counts, protocolVersion: init.protocolVersion as string | undefined, exit };
}

// ---------- http ----------
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(host: string, port: number, exited: Promise<Exit>, timeoutMs = 10_000): Promise<void> {
  const deadline = now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!gone && now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ host, port });
      sock.once('connect', () => (sock.destroy(), resolve(true)));
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`port ${port} never answered`);
}

async function readRpc(res: Response): Promise<Rpc | undefined> {
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (!text) return undefined;
  if (type.includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter(Boolean);
    return data.length ? (JSON.parse(data.at(-1)!) as Rpc) : undefined;
  }
  return JSON.parse(text) as Rpc;
}

export async function httpRun(spec: MinimalSpec & { http: NonNullable<MinimalSpec['http']> }) {
  const host = spec.http.host ?? '127.0.0.1';
  const port = await freePort(host);
  const token = randomBytes(24).toString('hex');
  const values = { host, port: String(port), token };
  const url = `http://${host}:${port}${spec.http.path ?? '/mcp'}`;
  const t0 = now();
  const { child, exited } = start(
    spec,
    (spec.http.args ?? []).map((a) => sub(values, a)),
    envFor(spec, spec.http.env, values),
  );
  try {
    await waitForPort(host, port, exited);
    const tReady = now();
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: CLIENT },
    });
    const anon = await fetch(url, { method: 'POST', headers: base, body: initBody });
    await anon.arrayBuffer();
    const wrong = await fetch(url, {
      method: 'POST',
      headers: { ...base, authorization: `Bearer ${randomBytes(24).toString('hex')}` },
      body: initBody,
    });
    await wrong.arrayBuffer();
    const auth = { ...base, authorization: `Bearer ${token}` };
    const initRes = await fetch(url, { method: 'POST', headers: auth, body: initBody });
    const init = await readRpc(initRes);
    if (!init?.result) throw new Error(`initialize failed: HTTP ${initRes.status}`);
    const session = initRes.headers.get('mcp-session-id');
    const headers = {
      ...auth,
      'mcp-protocol-version': String(init.result.protocolVersion),
      ...(session ? { 'mcp-session-id': session } : {}),
    };
    let id = 1;
    const post = async (method: string, params?: Json): Promise<Json> => {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, ...(params ? { params } : {}) }),
      });
      const msg = await readRpc(res);
      if (!msg || msg.error) throw new Error(`${method}: ${msg?.error?.message ?? `HTTP ${res.status}`}`);
      return msg.result ?? {};
    };
    const n = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    await n.arrayBuffer();
    const tools = await post('tools/list', {});
    const call = (spec.steps ?? []).find((s) => 'tool' in s);
    if (call) await post(...stepRequest(call));
    await post('ping');
    const del = await fetch(url, { method: 'DELETE', headers });
    await del.arrayBuffer();
    const t1 = now();
    child.kill('SIGTERM');
    const exit = await exited;
    const t2 = now();
    return {
      httpMs: t1 - t0,
      httpReadyMs: tReady - t0,
      httpExitMs: t2 - t1,
      statuses: [anon.status, wrong.status, initRes.status, del.status],
      tools: (tools.tools as unknown[] | undefined)?.length,
      exit,
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

// ---------- bind ----------
export async function bindRun(spec: MinimalSpec & { bind: NonNullable<MinimalSpec['bind']> }) {
  const port = await freePort('0.0.0.0');
  const values = { host: '0.0.0.0', port: String(port), token: '' };
  const t0 = now();
  const { child, exited } = start(
    spec,
    (spec.bind.args ?? []).map((a) => sub(values, a)),
    envFor(spec, spec.bind.env, values, spec.bind.dropEnv ?? ['MCP_SERVER_TOKEN']),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const exit = await exited;
  clearTimeout(timer);
  return { bindMs: now() - t0, exit };
}

export type Minimal = Awaited<ReturnType<typeof runMinimal>>;

export async function runMinimal(spec: MinimalSpec) {
  const stdio = await stdioRun(spec);
  const http = spec.http ? await httpRun({ ...spec, http: spec.http }) : undefined;
  const bind = spec.bind ? await bindRun({ ...spec, bind: spec.bind }) : undefined;
  const base = {
    stdioMs: stdio.stdioMs,
    stdioExitMs: stdio.stdioExitMs,
    httpMs: http?.httpMs ?? 0,
    httpReadyMs: http?.httpReadyMs ?? 0,
    httpExitMs: http?.httpExitMs ?? 0,
    bindMs: bind?.bindMs ?? 0,
    counts: stdio.counts,
    protocolVersion: stdio.protocolVersion,
    httpStatuses: http?.statuses,
    bindExit: bind?.exit,
  };
  return { ...base, totalMs: base.stdioMs + base.stdioExitMs + base.httpMs + base.httpExitMs + base.bindMs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as MinimalSpec;
  runMinimal(spec).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exitCode = 1;
    },
  );
}
