// Why an http server is not answering on its port: another process holds the port (a race, retried,
// never judged), a descendant that left the group holds it (still the server's own listener), or it
// never listened there (say where it did listen, and whether it looks stdio-only).

import type { PortRace } from '../../results/types.js';
import { SERVER_TAG_VAR } from '../../contract/cookie.js';
import type { DriverContext } from '../context.js';
import { listensOf, type SeenListen } from '../http/listen-watch.js';
import { environOf, portHolder } from '../server/proc.js';
import type { HttpSpec } from '../../contract/protocol.js';
import type { ServerProcess } from '../server/process.js';
import { portInUse } from '../server/start-failure.js';

/** A server that held its port and then failed a second listen there: its own doing, never a port race. */
export const LISTENS_TWICE = (port: number): string =>
  `the probe saw it listen on port ${port}, then a second listen there fail with EADDRINUSE: it listens twice on its port, so the port was taken by itself, not by another process`;

/** How long a server that never listened gets to show it is a stdio server (exit on stdin EOF). */
const STDIN_EOF_WAIT_MS = 2000;

/** The server's port was taken by someone else: retried, never judged. */
export type { PortRace };

/** The port's holder when it carries this server's tag (inherited whatever its group or session). */
export function ownDescendant(ctx: DriverContext, proc: ServerProcess, port: number): { pid: number; cmdline: string } | null {
  const tag = ctx.servers.find((s) => s.proc === proc)?.tag;
  const holder = portHolder(port);
  if (!tag || !holder || environOf(holder.pid)?.get(SERVER_TAG_VAR) !== tag) return null;
  return { pid: holder.pid, cmdline: holder.cmdline.slice(0, 200) };
}

/**
 * Another process holds the port: its listener answered (named with its holder when /proc tells),
 * or the server's stderr says EADDRINUSE on that port (the same evidence rule as the bind phase's).
 */
export function portRace(
  stderr: string,
  port: number,
  ready: { step: string; reason: string },
  holderOf: (port: number) => { pid: number; cmdline: string } | null = portHolder,
): PortRace | null {
  if (ready.step === 'port identity') {
    const holder = holderOf(port);
    const who = holder ? ` (held by pid ${holder.pid}: ${holder.cmdline.slice(0, 120)})` : '';
    return { port, cause: `${ready.reason}${who}` };
  }
  if (portInUse([], stderr, port)) {
    return { port, cause: `port ${port} is already in use (EADDRINUSE in the server's stderr)` };
  }
  return null;
}

/**
 * A listen on the requested host that only /proc shows (no probe record to date it), found after a wait the driver
 * was stalled across: whether it came within the bound is unknown, so it is not measured (with its cause), not late.
 */
export function listenUndated(proc: ServerProcess, spec: HttpSpec, port: number, stalledMs: number | undefined): string | null {
  if (stalledMs === undefined || !proc.running) return null;
  const here = listensOf(proc).filter((l) => l.port === port && l.address === spec.host);
  if (!here.length || here.some((l) => l.source === 'probe')) return null;
  return `it listens on ${spec.host}:${port} now, but the driver had no loop turn for ${stalledMs} ms across the end of its ${spec.readyTimeoutMs} ms wait (a loaded machine) and no probe record dates the listen: whether it came in time is unknown`;
}

/**
 * A server that never listened: say so, say where it did listen if anywhere (the requested port at
 * another address, or other ports), and when it looks stdio-only (listens nowhere, exits on stdin
 * EOF, or writes JSON-RPC to stdout) suggest `http: false`.
 */
export async function neverListened(proc: ServerProcess, spec: HttpSpec, port: number, reason: string): Promise<string> {
  const where = `${spec.host}:${port}`;
  if (!proc.running) return `${reason} (see its stderr)`;
  const listens = listensOf(proc);
  const list = (ls: SeenListen[]): string => [...new Set(ls.map((l) => `${l.address}:${l.port}`))].join(', ');
  const onPort = listens.filter((l) => l.port === port);
  // Seen there now, but it never answered while the harness waited: it listened after the wait ended (a probe record
  // dated in time was taken as ready by the wait; an undated one read after a stall is listenUndated's).
  if (onPort.some((l) => l.address === spec.host)) {
    return `never answered on ${where} within ${spec.readyTimeoutMs} ms, though it listens there now (it listened after the wait ended): if it is that slow to start, raise http.readyTimeoutMs`;
  }
  if (onPort.length) {
    return `never listened on ${where} within ${spec.readyTimeoutMs} ms; it listened on ${list(onPort)}, not on the requested host ${spec.host}: check that http.args pass {host}`;
  }
  // What is left is on other ports.
  if (listens.length) {
    return `never listened on ${where} within ${spec.readyTimeoutMs} ms; it listens on ${list(listens)} instead: check that http.args pass {port} and {host}`;
  }
  const signs: string[] = [];
  if (proc.noise.lines.some((l) => /^\s*\{.*"jsonrpc"\s*:\s*"2\.0"/.test(l))) signs.push('it wrote JSON-RPC to stdout');
  // A stdio server ends when its stdin does; the stop request proper (SIGTERM) stays the leaks phase's.
  proc.child.stdin?.end();
  if (await proc.waitExit(STDIN_EOF_WAIT_MS)) signs.push('it exited when its stdin closed');
  const head = `never listened on ${where} within ${spec.readyTimeoutMs} ms, nor on any other TCP port`;
  if (signs.length) {
    return `${head}; it looks stdio-only (${signs.join(', ')}): it ignored http.args. If the server has no HTTP transport, set \`http: false\``;
  }
  return `${head}: check that http.args start its HTTP transport, or set \`http: false\` if it is stdio-only`;
}
