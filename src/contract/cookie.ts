// The run's cookie: every process the harness starts carries MCP_MATRIX_RUN, every server also MCP_MATRIX_SERVER.
// A child inherits both whatever its group or session, so leftovers are found in /proc/<pid>/environ.

import { randomBytes } from 'node:crypto';

export const RUN_COOKIE_VAR = 'MCP_MATRIX_RUN';
export const SERVER_TAG_VAR = 'MCP_MATRIX_SERVER';

/** `<owner pid>.<owner start time>.<random>`: a sweep can tell from the cookie alone whether its owner still lives. */
export function makeCookie(ownerPid: number, ownerStart: string | null): string {
  return `${ownerPid}.${ownerStart ?? '0'}.${randomBytes(6).toString('hex')}`;
}

export function cookieOwner(cookie: string): { pid: number; start: string } | null {
  const m = /^(\d+)\.(\d+)\.[0-9a-f]+$/.exec(cookie);
  return m ? { pid: Number(m[1]), start: m[2]! } : null;
}
