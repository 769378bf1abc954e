// Escaped descendants: once a cell's servers are gone, a live process still carrying its server tag escaped its group
// (detached, setsid). Found by the cookie in /proc/<pid>/environ, named, killed; without /proc the details say so.

import { RUN_COOKIE_VAR, SERVER_TAG_VAR } from '../../contract/cookie.js';
import { carriers, type Carrier } from './proc.js';

export interface EscapedProcess {
  pid: number;
  cmdline: string;
  /** The MCP_MATRIX_SERVER tag it inherited: which server of which phase started it. */
  tag: string;
}

export const NO_PROC = 'no /proc: escaped descendants cannot be found by their environment; only each server’s process group was checked';

/** The cell's live tagged processes (null without /proc); `exact`: one server's tag only (`…#1` is no prefix of `…#12` then). */
export function findTagged(cookie: string, tagPrefix: string, exact = false): Carrier[] | null {
  const found = carriers(RUN_COOKIE_VAR, cookie, [SERVER_TAG_VAR]);
  return found && found.filter((c) => (exact ? c.vars[SERVER_TAG_VAR] === tagPrefix : c.vars[SERVER_TAG_VAR]?.startsWith(tagPrefix)));
}

function killHard(c: Carrier): void {
  // A leader of its own group takes the rest of its group with it (children that scrubbed their env too).
  for (const target of c.pgrp === c.pid ? [-c.pid, c.pid] : [c.pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Kill every tagged process of the cell; returns what was found, or null without /proc. Waits (bounded) until they are gone. */
export async function sweepTagged(cookie: string, tagPrefix: string, boundMs = 3000, exact = false): Promise<EscapedProcess[] | null> {
  const found = findTagged(cookie, tagPrefix, exact);
  if (!found) return null;
  const deadline = Date.now() + boundMs;
  let live = found;
  while (live.length && Date.now() < deadline) {
    live.forEach(killHard);
    await new Promise((r) => setTimeout(r, 20));
    live = findTagged(cookie, tagPrefix, exact) ?? [];
  }
  return found.map((c) => ({ pid: c.pid, cmdline: c.cmdline, tag: c.vars[SERVER_TAG_VAR]! }));
}

/** Synchronous last resort (the driver is exiting): signal every tagged process once. */
export function killTaggedNow(cookie: string, tagPrefix: string): void {
  for (const c of findTagged(cookie, tagPrefix) ?? []) killHard(c);
}
