// conformance phase: the official conformance suite (`@modelcontextprotocol/conformance`, pinned by the
// harness) as a second judge, against this cell's own HTTP server started as the http phase starts it.
// Each scenario the harness found runnable without the suite's fixture tools (src/cells/conformance-catalogue.ts)
// is run alone (`conformance server --url … --scenario <name>`), one after another (a server may serve one
// session at a time; the next one's process, started meanwhile, waits loaded for its turn: ../suite-gate.ts),
// and judged from the suite's own checks.json: a FAILURE check fails the scenario, a run
// that left no checks is not-measured. A scenario whose endpoint needs a capability the server does not
// advertise in `initialize` is not run. The suite sends no auth header: with a bearer token, a loopback proxy
// of the driver adds it (auth-proxy.ts); with OAuth, a valid JWT minted by the run's authorization server.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PhaseResult } from '../../results/types.js';
import { proxiedUrl, startAuthProxy, type AuthProxy } from '../http/auth-proxy.js';
import { commandFor, errorText, result, substitute, type DriverContext } from '../context.js';
import { fetchTokens } from '../http/oauth-discovery.js';
import { freePort, waitUntilListening } from '../http/listen-watch.js';
import { signalGroup } from '../server/proc.js';
import type { DriverSpec } from '../../contract/protocol.js';
import { endpointUrl } from '../http/endpoint.js';
import {
  advertises,
  judgeScenario,
  outOfScope,
  scenarioCheck,
  summarize,
  type ScenarioResult,
  type SuiteCheck,
} from './conformance-judging.js';

type ConformanceSpec = Exclude<DriverSpec['phases']['conformance'], false | undefined>;

export async function conformancePhase(ctx: DriverContext, spec: ConformanceSpec): Promise<PhaseResult> {
  const startedAt = Date.now();
  const token = randomBytes(24).toString('hex');
  ctx.redactor.add(token);
  const port = await freePort(spec.host);
  const serverUrl = endpointUrl(spec.host, port, spec.path);
  const details: Record<string, unknown> = {
    suite: { package: spec.suite.package, version: spec.suite.version, node: spec.suite.nodeVersion },
    url: serverUrl,
    auth: spec.auth ?? 'bearer',
    excluded: spec.excluded,
  };
  const values: Record<string, string> = { host: spec.host, port: String(port), token };
  // An OAuth resource server: the proxy adds a valid JWT from the run's authorization server, as the http round trip sends.
  let bearer = token;
  if (spec.auth === 'oauth') {
    const oauth = await oauthBearer(ctx, spec, port, serverUrl, values);
    if (oauth instanceof Error)
      return result('conformance', startedAt, { verdict: 'not-measured', step: 'authorization server', message: oauth.message, details });
    bearer = oauth;
  }
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, values);
  const proc = ctx.startServer('conformance', command, env);
  let proxy: AuthProxy | undefined;
  try {
    const ready = await waitUntilListening(proc, spec.host, port, spec.readyTimeoutMs);
    if (!ready.ok)
      return result(
        'conformance',
        startedAt,
        { verdict: 'not-measured', step: ready.step, message: `the server did not start for the suite: ${ready.reason}`, details },
        proc,
      );
    let url = serverUrl;
    if (spec.auth !== 'none') {
      proxy = await startAuthProxy(new URL(serverUrl).origin, bearer, spec.host.includes(':') ? '::1' : '127.0.0.1');
      url = proxiedUrl(proxy.origin, serverUrl);
      const adds = spec.auth === 'oauth' ? "a valid JWT from the run's authorization server" : 'the run token';
      details.proxy = { url, adds: `Authorization: Bearer <${adds}>` };
    }
    const capabilities = await serverCapabilities(url, spec.timeoutMs);
    details.capabilities = capabilities instanceof Error ? { error: errorText(capabilities) } : capabilities;
    const outRoot = join(ctx.spec.workDir ?? join(ctx.spec.cellDir, '.mcp-matrix'), 'conformance');
    rmSync(outRoot, { recursive: true, force: true });
    const scenarios: ScenarioResult[] = [];
    const notAdvertised: { name: string; why: string }[] = [];
    const toRun = spec.scenarios.filter((scenario) => {
      if (!scenario.capability || capabilities instanceof Error || advertises(capabilities, scenario.capability)) return true;
      notAdvertised.push({ name: scenario.name, why: `the server does not advertise ${scenario.capability}` });
      return false;
    });
    // One after another, each in its own process; the next one is started while one runs and waits, loaded, for
    // its turn (suite-gate.ts), so a scenario's wall time is mostly its own requests rather than Node loading the suite.
    const launch = (i: number) => launchScenario(spec, toRun[i]!.name, url, join(outRoot, toRun[i]!.name), ctx.spec);
    let next = toRun.length ? launch(0) : undefined;
    try {
      for (let i = 0; i < toRun.length; i++) {
        const current = next!;
        next = i + 1 < toRun.length ? launch(i + 1) : undefined;
        const run = await current.turn();
        scenarios.push(toRun[i]!.unauthenticatedOnly && spec.auth !== 'none' ? outOfScope(run) : run);
      }
    } finally {
      next?.cancel();
    }
    details.scenarios = scenarios.map(({ name, verdict, level, message, durationMs }) => ({
      name,
      verdict,
      level,
      ...(message ? { message } : {}),
      durationMs,
    }));
    details.notAdvertised = notAdvertised;
    const judge = `${spec.suite.package}@${spec.suite.version}`;
    if (proxy) (details.proxy as Record<string, unknown>).forwarded = proxy.forwarded();
    const exit = proc.exitInfo;
    const summary = summarize(scenarios);
    return result(
      'conformance',
      startedAt,
      {
        ...summary,
        ...(scenarios.length ? { checks: scenarios.map((s) => scenarioCheck(s, judge)) } : {}),
        ...(exit && summary.verdict !== 'passed'
          ? { message: `${summary.message} (the server exited with ${exit.signal ?? `code ${exit.code}`} during the suite)` }
          : {}),
        details,
      },
      proc,
    );
  } finally {
    await proxy?.close();
    proc.terminate();
  }
}

/**
 * The valid access token for this server from the run's authorization server (the http phase's rule for the
 * audience), with `{issuer}`, `{jwksUri}` and `{audience}` put into `values`; an Error is the harness's.
 */
async function oauthBearer(
  ctx: DriverContext,
  spec: ConformanceSpec,
  port: number,
  serverUrl: string,
  values: Record<string, string>,
): Promise<string | Error> {
  if (!spec.oauth || 'unavailable' in spec.oauth)
    return new Error(spec.oauth && 'unavailable' in spec.oauth ? spec.oauth.unavailable : 'the spec names no authorization server');
  const as = spec.oauth;
  ctx.redactor.add(as.tokensKey);
  const audience = as.audience ? substitute({ host: spec.host, port: String(port) }, as.audience) : serverUrl;
  Object.assign(values, { issuer: as.issuer, jwksUri: as.jwksUri, audience });
  const tokens = await fetchTokens(as.tokensUrl, as.tokensKey, audience, spec.timeoutMs);
  if (tokens instanceof Error) return tokens;
  for (const t of Object.values(tokens)) ctx.redactor.add(t);
  return tokens.valid;
}

/** The server's capabilities from one `initialize` (its session, if any, is deleted again). */
async function serverCapabilities(url: string, timeoutMs: number): Promise<Record<string, unknown> | Error> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-matrix-conformance', version: '0.1.0' } },
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const session = res.headers.get('mcp-session-id');
    if (session)
      await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session }, signal: AbortSignal.timeout(timeoutMs) })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    if (!res.ok) return new Error(`initialize answered HTTP ${res.status}`);
    const json = text.trimStart().startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data:') && l.includes('"result"'))
          ?.slice(5);
    const parsed = JSON.parse(json ?? '') as { result?: { capabilities?: Record<string, unknown> } };
    return parsed.result?.capabilities ?? new Error('initialize answered without capabilities');
  } catch (error) {
    return new Error(`initialize: ${errorText(error)}`);
  }
}

/** A scenario's suite process, started ahead: `turn()` lets it run (bounded) and judges it; `cancel()` ends it unrun. */
interface Launched {
  turn(): Promise<ScenarioResult>;
  cancel(): void;
}

/** One scenario in its own suite process, held at the gate until its turn; its checks.json read back. */
function launchScenario(spec: ConformanceSpec, name: string, url: string, outDir: string, driver: DriverSpec): Launched {
  mkdirSync(outDir, { recursive: true });
  // The gate a suite process waits at until its turn: shipped beside the probe, in the driver's directory.
  const gate = pathToFileURL(join(dirname(driver.probe), 'suite-gate.js')).href;
  const args = ['--import', gate, spec.suite.cli, 'server', '--url', url, '--scenario', name, '--output-dir', outDir];
  // NODE_COMPILE_CACHE: Node reads back the code it compiled for the suite's files (checked against each file's
  // source and Node's own version and flags before use), which saves ~12 % of a scenario's CPU, mostly loading.
  const env = { ...driver.baseEnv, NO_COLOR: '1', ...(spec.suite.compileCache ? { NODE_COMPILE_CACHE: spec.suite.compileCache } : {}) };
  // Its own group, killed whole on the timeout; the run's cookie in its env lets the harness sweep it whatever happens.
  const child = spawn(spec.suite.node, args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  child.stdin.on('error', () => undefined);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exit = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  const kill = () => {
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  };
  return {
    cancel: kill,
    turn: async () => {
      const started = Date.now();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, spec.timeoutMs);
      child.stdin.end();
      const ended = await exit;
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      const checks = readChecks(outDir);
      if (checks) return judgeScenario(name, checks, durationMs);
      const why = ended.error
        ? `the suite could not be started: ${errorText(ended.error)}`
        : timedOut
          ? `the suite did not finish within ${spec.timeoutMs} ms`
          : `the suite left no checks.json (exit ${ended.code}): ${output.trim().split('\n').slice(-3).join(' | ')}`;
      return { name, verdict: 'not-measured', message: why, checks: [], durationMs, level: 'require', specUrls: [] };
    },
  };
}

function readChecks(outDir: string): SuiteCheck[] | undefined {
  try {
    for (const entry of readdirSync(outDir)) {
      const file = join(outDir, entry, 'checks.json');
      try {
        const checks = JSON.parse(readFileSync(file, 'utf8')) as unknown;
        if (Array.isArray(checks)) return checks.filter((c): c is SuiteCheck => !!c && typeof (c as SuiteCheck).status === 'string');
      } catch {
        // not this entry
      }
    }
  } catch {
    // no output dir
  }
  return undefined;
}
