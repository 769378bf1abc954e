// The bind phase's judgements (bind.ts watches the server and gathers the facts): what an exit earns,
// what a request without a token tells of a listen that stayed open, and the messages that name the
// listen. Pure functions of the facts, so each outcome is tested without a server.

import type { BindDetails, BindOutcome, Verdict } from '../../results/types.js';
import { describeListen, listenAddress, type ClassifiedListen, type FailedListen, type Unauthenticated } from '../http/listen-watch.js';
import type { StartFailure } from '../server/start-failure.js';
import { bearerParams } from '../http/oauth-discovery.js';

/** How the phase ended, recorded as `details.outcome` (additive; the table reads `loopback-only`). */
export type { BindOutcome };

/** Cell paths in an error are noise: `node_modules/pkg/dist/x.js` reads better than `/tmp/…/cell-x/node_modules/…`. */
export function relative(text: string, dirs: string[]): string {
  let out = text;
  for (const dir of dirs) {
    const d = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // A path inside it loses the prefix; the directory itself (`imported from /tmp/…/cell/`) reads `.`.
    out = out.replace(new RegExp(`(file://)?${d}/(?=[^\\s'"])`, 'g'), '').replace(new RegExp(`(file://)?${d}/?`, 'g'), '.');
  }
  return out;
}

/**
 * What a request without a token got, and what that means. A refusal is a token of its own only when
 * it is one: a 403 that a loopback `Host` name turns into an answer is a Host allowlist (anyone who
 * sends that name gets in), and a 403 without a Bearer challenge may be an Origin or Host allowlist.
 */
export function observed(u: Unauthenticated, withLoopbackHost?: Unauthenticated & { host?: string }): string {
  if ('error' in u) return `; a request without a token got no HTTP answer (${u.error})`;
  if (
    u.status === 403 &&
    withLoopbackHost &&
    !('error' in withLoopbackHost) &&
    withLoopbackHost.status !== 401 &&
    withLoopbackHost.status !== 403
  ) {
    return `; a request without a token got HTTP 403, but HTTP ${withLoopbackHost.status} with \`Host: ${withLoopbackHost.host ?? 'localhost'}\`: a Host allowlist, not a token of its own (anyone who reaches it and sends a loopback Host name can use it)`;
  }
  // The Bearer challenge may stand among others (RFC 7235 §4.1), as the http phase reads it.
  if (u.status === 401 || (u.status === 403 && bearerParams(u.challenge ?? null))) {
    return `; a request without a token got HTTP ${u.status}, so it guards the socket with a token of its own`;
  }
  if (u.status === 403) {
    return '; a request without a token got HTTP 403 without a Bearer challenge: a Host or Origin allowlist, or a token of its own (not told apart)';
  }
  return `; a request without a token got HTTP ${u.status}: anyone who can reach it can use it`;
}

export function context(loopback: ClassifiedListen[]): string {
  return loopback.length ? `. Also on loopback (context, not a finding): ${loopback.map(listenAddress).join(', ')}` : '';
}

/** What is known once the server exited without a non-loopback listen seen while it ran. */
export interface ExitFacts {
  code: number | null;
  signal: string | null;
  /** A non-loopback listen the record shows after all (one just before exiting). */
  exposed: ClassifiedListen | undefined;
  /** A non-loopback listen that failed (the probe's record of its error): an attempt to expose itself. */
  attempted: FailedListen | undefined;
  /** The port the harness gave it. */
  port: number;
  loopback: ClassifiedListen[];
  /** EADDRINUSE on the harness's port (`portInUse`). */
  race: string | undefined;
  /** The start failure its records or stderr show (`startFailure`). */
  crash: StartFailure | undefined;
  /** What it was asked, for messages. */
  asked: string;
  /** The cell directory's names, dropped from paths in messages. */
  dirs: string[];
}

export interface ExitJudgement {
  outcome: BindOutcome;
  verdict: Verdict;
  step?: string;
  message?: string;
  /** Added to the result's details. */
  details?: Pick<BindDetails, 'listened' | 'attempted' | 'startFailure'>;
}

/** `tried to listen on 0.0.0.0:3000 (IPv4 wildcard: every interface) without a token (EADDRINUSE)`, and the port it was given if another. */
export function triedToListen(a: FailedListen, given: number): string {
  const what = describeListen({ ...a, source: 'probe' });
  const port = a.port === given ? '' : ` (it was given port ${given}, not ${a.port})`;
  return `tried to listen on ${what} without a token (${a.code})${port}`;
}

/** The outcome an exit earns: a listen, a race, a crash, exit 0 and a signal are not refusals; any other non-zero exit is. */
export function judgeExit(f: ExitFacts): ExitJudgement | { race: string } {
  if (f.exposed) {
    return {
      outcome: 'listened',
      verdict: 'failed',
      step: 'watch',
      message: `listened on ${describeListen(f.exposed)} before exiting (exit code ${f.code ?? f.signal}): ${f.asked}, it must refuse before any non-loopback socket opens${context(f.loopback)}`,
      details: { listened: { ...f.exposed } },
    };
  }
  if (f.attempted) {
    return {
      outcome: 'tried-to-listen',
      verdict: 'failed',
      step: 'watch',
      message: `${triedToListen(f.attempted, f.port)}, then exited (exit code ${f.code ?? f.signal}): ${f.asked}, it must refuse before it tries any non-loopback listen${context(f.loopback)}`,
      details: { attempted: { ...f.attempted } },
    };
  }
  if (f.race) return { race: relative(f.race, f.dirs) };
  if (f.crash) {
    const cause = relative(f.crash.cause, f.dirs);
    const how = f.code !== null ? `exit code ${f.code}` : `signal ${f.signal}`;
    const details = { startFailure: f.crash };
    return f.crash.kind === 'could-not-start'
      ? {
          outcome: 'could-not-start',
          verdict: 'failed',
          step: 'start',
          message: `could not start: ${cause} (${how}); a crash before its own code ran is not a refusal`,
          details,
        }
      : {
          outcome: 'crashed',
          verdict: 'failed',
          step: 'start',
          message: `crashed: ${cause} (${how}); an uncaught ${cause.split(/[\s:[]/)[0]} is not a refusal`,
          details,
        };
  }
  if (f.code === 0) return { outcome: 'exited-0', verdict: 'failed', step: 'exit code', message: 'exited 0: a refusal must exit non-zero' };
  if (f.code === null) {
    return {
      outcome: 'killed-by-signal',
      verdict: 'failed',
      step: 'exit code',
      message: `was killed by ${f.signal ?? 'a signal'}: a refusal must exit non-zero by itself`,
    };
  }
  return { outcome: 'refused', verdict: 'passed' };
}
