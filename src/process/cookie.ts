// The run's cookie on the orchestrator side: set once in this process's environment, so every process
// the run starts (npm, git, the driver, every server) inherits it; read back from /proc to find what
// is left of this run, or of a run whose owner died (see contract/cookie.ts for the format).
import { carriers, startTime, type Carrier } from '../driver/server/proc.js';
import { cookieOwner, makeCookie, RUN_COOKIE_VAR, SERVER_TAG_VAR } from '../contract/cookie.js';

export { RUN_COOKIE_VAR };

/** A fresh cookie for this run, in process.env from now on (a parent harness's cookie is replaced). */
export function startRunCookie(): string {
  const cookie = makeCookie(process.pid, startTime(process.pid));
  process.env[RUN_COOKIE_VAR] = cookie;
  return cookie;
}

export function currentCookie(): string | undefined {
  return process.env[RUN_COOKIE_VAR] || undefined;
}

/** Whether the process that made `cookie` still runs (same pid and same start time: a reused pid is not it). */
export function ownerAlive(cookie: string): boolean {
  const owner = cookieOwner(cookie);
  if (!owner) return true; // not ours to judge
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const start = startTime(owner.pid);
  return start === null || owner.start === '0' || start === owner.start;
}

function killNow(c: Carrier): void {
  for (const target of c.pgrp === c.pid ? [-c.pid, c.pid] : [c.pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * SIGKILL every live process carrying `cookie` (and, when given, a server tag starting with `tagPrefix`:
 * one cell's servers and whatever they started); synchronous, so it also serves the last moments of a
 * forced exit. Returns what it signalled, or null without /proc (then only tracked groups can be killed).
 */
export function killCarriers(cookie: string, tagPrefix?: string): Carrier[] | null {
  const found = carriers(RUN_COOKIE_VAR, cookie, [SERVER_TAG_VAR]);
  if (!found) return null;
  const mine = tagPrefix === undefined ? found : found.filter((c) => c.vars[SERVER_TAG_VAR]?.startsWith(tagPrefix));
  mine.forEach(killNow);
  return mine;
}

/**
 * killCarriers until none is left alive, within `boundMs`: on a loaded machine a SIGKILLed process can
 * take a moment to exit, and a run must not end while anything it started still runs. Returns what
 * was still alive at the bound (empty when everything is gone; null without /proc).
 */
export async function settleCarriers(cookie: string, boundMs: number): Promise<Carrier[] | null> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const left = killCarriers(cookie);
    if (!left || left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every live cookie whose owner is dead, with its carriers and their variables `also` (null without /proc). */
export function orphanedCarriers(also: string[] = []): Carrier[] | null {
  const found = carriers(RUN_COOKIE_VAR, undefined, also);
  if (!found) return null;
  const alive = new Map<string, boolean>();
  return found.filter((c) => {
    const cookie = c.vars[RUN_COOKIE_VAR]!;
    if (!alive.has(cookie)) alive.set(cookie, ownerAlive(cookie));
    return !alive.get(cookie);
  });
}

export { killNow as killCarrier };
