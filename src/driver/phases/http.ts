// http phase: free loopback port and a random token; the server must answer 401 (with a Bearer
// challenge) without the token and with a wrong one, and a full SDK round trip with it; then SIGTERM.

import { randomBytes } from 'node:crypto';
import type { PhaseResult } from '../../results/types.js';
import { isUnauthorized, type McpSession } from '../adapter.js';
import { commandFor, errorText, result, StepTimeout, withTimeout, type DriverContext } from '../context.js';
import { stepLabel } from '../expectations.js';
import { freePort, waitUntilListening } from '../listen-watch.js';
import type { DriverSpec } from '../protocol.js';
import { runStep } from '../steps.js';

type HttpSpec = Exclude<DriverSpec['phases']['http'], false>;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'mcp-matrix-driver', version: '0.1.0' } },
};

interface Probe {
  status: number;
  wwwAuthenticate: string | null;
}

async function postInitialize(url: string, authorization: string | undefined, timeoutMs: number): Promise<Probe> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new StepTimeout(timeoutMs, 'an HTTP response')), timeoutMs);
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (authorization) headers.authorization = authorization;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE), signal: controller.signal });
    // Drain the body so the connection does not linger in the driver.
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate') };
  } finally {
    clearTimeout(timer);
  }
}

function refusal(probe: Probe, what: string): string | null {
  if (probe.status !== 401) return `${what}: expected HTTP 401, got ${probe.status} (the endpoint does not require the bearer token)`;
  if (!/^bearer\b/i.test(probe.wwwAuthenticate ?? '')) {
    return `${what}: HTTP 401 without a WWW-Authenticate: Bearer challenge (got ${JSON.stringify(probe.wwwAuthenticate)})`;
  }
  return null;
}

export async function httpPhase(ctx: DriverContext, spec: HttpSpec): Promise<PhaseResult> {
  const startedAt = Date.now();
  const details: Record<string, unknown> = {};
  let step = 'load the SDK client';
  const adapter = await ctx.adapter().catch((e: unknown) => e as Error);
  if (adapter instanceof Error) {
    return result('http', startedAt, { verdict: 'failed', step, message: `could not load the cell's SDK client: ${errorText(adapter)}` });
  }
  step = 'pick a port';
  const port = await freePort(spec.host);
  const token = randomBytes(24).toString('hex');
  ctx.redactor.add(token);
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, { host: spec.host, port: String(port), token });
  const hostInUrl = spec.host.includes(':') ? `[${spec.host}]` : spec.host;
  const url = `http://${hostInUrl}:${port}${spec.path.startsWith('/') ? spec.path : `/${spec.path}`}`;
  Object.assign(details, { port, url });

  step = 'spawn';
  const proc = ctx.startServer('http', command, env);
  details.pid = proc.pid;
  let session: McpSession | undefined;
  const fail = (message: string): PhaseResult => result('http', startedAt, { verdict: 'failed', step, message, details }, proc);
  try {
    const ready = await waitUntilListening(proc, spec.host, port, spec.readyTimeoutMs);
    if (!ready.ok) {
      step = ready.step;
      return fail(ready.reason);
    }
    Object.assign(details, { identity: ready.identity, readyMs: ready.ms });

    // The two refusals are independent requests: send them together.
    step = 'requests without a token and with a wrong one';
    const [anonymous, wrong] = await Promise.all([
      postInitialize(url, undefined, spec.timeoutMs),
      postInitialize(url, `Bearer ${randomBytes(24).toString('hex')}`, spec.timeoutMs),
    ]);
    step = 'request without a token';
    details.unauthenticated = anonymous;
    const noToken = refusal(anonymous, 'without a token');
    if (noToken) return fail(noToken);

    step = 'request with a wrong token';
    details.wrongToken = wrong;
    if (wrong.status !== 401) return fail(`with a wrong token: expected HTTP 401, got ${wrong.status}`);

    session = adapter.session(spec.timeoutMs + 1000);
    const s = session;
    const bounded = <T>(p: Promise<T>, what: string): Promise<T> => withTimeout(p, spec.timeoutMs, what);
    step = 'initialize';
    try {
      await bounded(s.connect(adapter.httpTransport(url, { Authorization: `Bearer ${token}` })), 'initialize');
      ctx.answered.add(proc);
    } catch (error) {
      if (isUnauthorized(error)) return fail(`initialize: the right token was refused with 401: ${errorText(error)}`);
      throw error;
    }
    details.protocolVersion = s.protocolVersion();
    step = 'list tools';
    const tools = await bounded(s.list('tools'), 'tools/list');
    details.tools = tools?.length ?? 0;
    const call = spec.steps.find((x) => 'tool' in x);
    if (call) {
      step = stepLabel(call);
      const outcome = await runStep(s, call, bounded);
      if (outcome.problem) return fail(`${step}: ${outcome.problem}`);
      details.call = { step: outcome.step, ms: outcome.ms };
    }
    step = 'ping';
    await bounded(s.ping(), 'ping');
    step = 'terminate session';
    await bounded(s.terminateSession(), 'session DELETE');
    details.roundTrip = true;
    return result('http', startedAt, { verdict: 'passed', details }, proc);
  } catch (error) {
    return fail(`${error instanceof StepTimeout ? '' : `${step}: `}${errorText(error)}`);
  } finally {
    if (session) await withTimeout(session.close(), 2000, 'client close').catch(() => {});
    proc.terminate();
  }
}
