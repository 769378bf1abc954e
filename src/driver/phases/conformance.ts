// conformance phase: the official conformance suite as a second judge, against the cell's own HTTP server.
// Each runnable scenario (cells/conformance/conformance-catalogue.ts) runs alone, one after another, in a shared
// suite process (conformance-runner.ts), judged from the suite's checks.json (docs/phases.md, "conformance").

import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceDetails, PhaseResultOf } from '../../results/types.js';
import { proxiedUrl, startAuthProxy, type AuthProxy } from '../http/auth-proxy.js';
import { commandFor, errorText, result, substitute, type DriverContext } from '../context.js';
import { fetchTokens } from '../http/oauth-discovery.js';
import { freePort, waitUntilListening } from '../http/listen-watch.js';
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
import { suiteRunner, type SuiteRunner } from './conformance-runner.js';

type ConformanceSpec = Exclude<DriverSpec['phases']['conformance'], false | undefined>;

export async function conformancePhase(ctx: DriverContext, spec: ConformanceSpec): Promise<PhaseResultOf<'conformance'>> {
  const startedAt = Date.now();
  const token = randomBytes(24).toString('hex');
  ctx.redactor.add(token);
  const port = await freePort(spec.host);
  const serverUrl = endpointUrl(spec.host, port, spec.path);
  const details: ConformanceDetails = {
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
  // The suite's process loads while the server starts; it runs no scenario before the server answers.
  const runner = spec.scenarios.length ? suiteRunner(spec, ctx.spec) : undefined;
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
    // One after another, in the suite's process started with the phase (conformance-runner.ts). One that ends that
    // process runs after the others, which then need no second process; each is reported in the suite's order.
    const ran: ScenarioResult[] = [];
    const order = [...toRun.keys()].sort((a, b) => Number(!!toRun[a]!.endsProcess) - Number(!!toRun[b]!.endsProcess));
    for (const i of order) {
      const scenario = toRun[i]!;
      const run = await runScenario(runner!, spec, scenario.name, url, join(outRoot, scenario.name));
      ran[i] = scenario.unauthenticatedOnly && spec.auth !== 'none' ? outOfScope(run) : run;
    }
    scenarios.push(...ran);
    details.scenarios = scenarios.map(({ name, verdict, level, message, durationMs }) => ({
      name,
      verdict,
      level,
      ...(message ? { message } : {}),
      durationMs,
    }));
    details.notAdvertised = notAdvertised;
    const judge = `${spec.suite.package}@${spec.suite.version}`;
    if (proxy && details.proxy) details.proxy.forwarded = proxy.forwarded();
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
    runner?.close();
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

/** One scenario through the suite's runner, judged from the checks.json it wrote into `outDir`. */
async function runScenario(runner: SuiteRunner, spec: ConformanceSpec, name: string, url: string, outDir: string): Promise<ScenarioResult> {
  mkdirSync(outDir, { recursive: true });
  const end = await runner.run(['server', '--url', url, '--scenario', name, '--output-dir', outDir], spec.timeoutMs);
  const checks = readChecks(outDir);
  if (checks) return judgeScenario(name, checks, end.durationMs);
  const why =
    end.ended === 'error'
      ? `the suite could not be started: ${errorText(end.error)}`
      : end.ended === 'timeout'
        ? `the suite did not finish within ${spec.timeoutMs} ms`
        : `the suite left no checks.json (exit ${end.code}): ${end.output.trim().split('\n').slice(-3).join(' | ')}`;
  return { name, verdict: 'not-measured', message: why, checks: [], durationMs: end.durationMs, level: 'require', specUrls: [] };
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
