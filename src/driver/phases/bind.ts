// bind phase: a non-loopback bind without a token must be refused before any socket opens. Watched
// while it runs (probe reports + /proc), not only afterwards; a listen, even brief, is a failure.

import type { PhaseResult } from '../../results/types.js';
import { commandFor, result, waitAtMost, type DriverContext } from '../context.js';
import { freePort, listensOf, type SeenListen } from '../listen-watch.js';
import type { DriverSpec } from '../protocol.js';

type BindSpec = Exclude<DriverSpec['phases']['bind'], false>;

const POLL_MS = 20;

function where(l: SeenListen): string {
  return `${l.address.includes(':') ? `[${l.address}]` : l.address}:${l.port}`;
}

export async function bindPhase(ctx: DriverContext, spec: BindSpec): Promise<PhaseResult> {
  const startedAt = Date.now();
  // The harness itself never listens outside loopback; a port free there is free for the wildcard too.
  const port = await freePort('127.0.0.1');
  // No token: `{token}` becomes empty and the token variables are dropped.
  const { command, env } = commandFor(spec.command, ctx.spec.baseEnv, { host: '0.0.0.0', port: String(port), token: '' }, spec.dropEnv);
  const proc = ctx.startServer('bind', command, env);
  const details: Record<string, unknown> = { port, pid: proc.pid };
  const fail = (step: string, message: string): PhaseResult =>
    result('bind', startedAt, { verdict: 'failed', step, message, details }, proc);

  const deadline = startedAt + spec.timeoutMs;
  let spawnError: Error | undefined;
  void proc.spawnError.then((e) => (spawnError = e));
  while (proc.running && Date.now() < deadline) {
    const seen = listensOf(proc)[0];
    if (seen) {
      await proc.kill();
      details.listened = seen;
      return fail('watch', `is listening on ${where(seen)} without a token: a non-loopback bind must be refused (killed it)`);
    }
    await waitAtMost(proc.exited, POLL_MS);
  }
  if (spawnError) return fail('spawn', `could not start ${command.bin}: ${spawnError.message}`);
  if (proc.running) {
    await proc.kill();
    return fail(
      'wait for exit',
      `still running after ${spec.timeoutMs} ms: a non-loopback bind without a token must exit non-zero (killed it)`,
    );
  }
  // Let its last stderr arrive; a grandchild holding the pipes must not hold us too.
  await waitAtMost(proc.closed, 500);
  const exit = proc.exitInfo!;
  const stderrLine = proc.stderr.tail(1);
  Object.assign(details, { exitCode: exit.code, signal: exit.signal, exitMs: exit.at - proc.startedAt, stderrLine });
  // The probe appends synchronously, so a listen just before exit is in the file by now.
  const seen = listensOf(proc)[0];
  if (seen) {
    details.listened = seen;
    return fail('watch', `listened on ${where(seen)} before refusing (exit code ${exit.code})`);
  }
  if (exit.code === 0) return fail('exit code', 'exited 0: a refusal must exit non-zero');
  if (exit.code === null) return fail('exit code', `was killed by ${exit.signal ?? 'a signal'}: a refusal must exit non-zero by itself`);
  return result('bind', startedAt, { verdict: 'passed', details }, proc);
}
