// The floor for a cell's server work: the same server processes, driven by the least client that can
// do the same requests (raw JSON-RPC over stdio, raw fetch over HTTP). No SDK, no probe, no checks
// beyond what is needed to keep going. Times come back split the way the harness splits its phases:
//   stdio     spawn → ping answered            (harness: stdio phase)
//   stdioExit stdin closed → server exited     (harness: part of leaks)
//   http      spawn → session DELETE answered  (harness: http phase)
//   httpExit  SIGTERM → server exited          (harness: part of leaks)
//   bind      spawn → server exited            (harness: bind phase)
//
// Use: import { runMinimal } from './minimal-client.mjs', or
//      node bench/minimal-client.mjs <spec.json>   (prints the timings as JSON)
// spec: { bin, cwd, baseEnv?, steps, stdio: {args, env}, http: {args, env, path, host}, bind: {args, env, dropEnv} }
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';

const PROTOCOL = '2025-11-25';
const CLIENT = { name: 'mcp-matrix-bench-minimal', version: '0.0.0' };

const now = () => performance.now();
const sub = (values, text) => text.replace(/\{(host|port|token)\}/g, (m, k) => values[k] ?? m);

function start(spec, args, env) {
  const child = spawn(process.execPath, [spec.bin, ...args], { cwd: spec.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.stderr.resume();
  return { child, exited };
}

function envFor(spec, extra, values, drop = []) {
  const env = { ...(spec.baseEnv ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }) };
  for (const [k, v] of Object.entries(extra ?? {})) env[k] = sub(values, v);
  for (const k of drop) delete env[k];
  return env;
}

function stepRequest(step) {
  if ('tool' in step) return ['tools/call', { name: step.tool, arguments: step.arguments ?? {} }];
  if ('resource' in step) return ['resources/read', { uri: step.resource }];
  return ['prompts/get', { name: step.prompt, arguments: step.arguments ?? {} }];
}

// ---------- stdio ----------
export async function stdioRun(spec) {
  const t0 = now();
  const { child, exited } = start(spec, spec.stdio.args ?? [], envFor(spec, spec.stdio.env, {}));
  const pending = new Map();
  let id = 0;
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const p = msg.id !== undefined && pending.get(msg.id);
      if (p) {
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p.resolve(msg.result);
      } else if (msg.method && msg.id !== undefined) {
        // A server request (roots, sampling …): answer empty so it never waits on us.
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} })}\n`);
      }
    }
  });
  exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`server exited during ${p.method}`));
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const rid = ++id;
      pending.set(rid, { resolve, reject, method });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: rid, method, ...(params ? { params } : {}) })}\n`);
    });
  const notify = (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  const listAll = async (method, key) => {
    const items = [];
    let cursor;
    do {
      const r = await request(method, cursor ? { cursor } : {});
      items.push(...(r[key] ?? []));
      cursor = r.nextCursor;
    } while (cursor);
    return items;
  };

  const init = await request('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: CLIENT });
  notify('notifications/initialized');
  const caps = init.capabilities ?? {};
  const counts = {};
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
  return { stdioMs: t1 - t0, stdioExitMs: t2 - t1, counts, protocolVersion: init.protocolVersion, exit };
}

// ---------- http ----------
function freePort(host) {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(host, port, exited, timeoutMs = 10_000) {
  const deadline = now() + timeoutMs;
  let gone = false;
  exited.then(() => (gone = true));
  while (!gone && now() < deadline) {
    const ok = await new Promise((resolve) => {
      const sock = net.connect({ host, port });
      sock.once('connect', () => (sock.destroy(), resolve(true)));
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`port ${port} never answered`);
}

async function readRpc(res) {
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (!text) return undefined;
  if (type.includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter(Boolean);
    return data.length ? JSON.parse(data.at(-1)) : undefined;
  }
  return JSON.parse(text);
}

export async function httpRun(spec) {
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
    const headers = { ...auth, 'mcp-protocol-version': init.result.protocolVersion, ...(session ? { 'mcp-session-id': session } : {}) };
    let id = 1;
    const post = async (method, params) => {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, ...(params ? { params } : {}) }),
      });
      const msg = await readRpc(res);
      if (!msg || msg.error) throw new Error(`${method}: ${msg?.error?.message ?? `HTTP ${res.status}`}`);
      return msg.result;
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
      tools: tools.tools?.length,
      exit,
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

// ---------- bind ----------
export async function bindRun(spec) {
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

export async function runMinimal(spec) {
  const stdio = await stdioRun(spec);
  const http = spec.http ? await httpRun(spec) : undefined;
  const bind = spec.bind ? await bindRun(spec) : undefined;
  const out = {
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
  out.totalMs = out.stdioMs + out.stdioExitMs + out.httpMs + out.httpExitMs + out.bindMs;
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  runMinimal(spec).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exitCode = 1;
    },
  );
}
