// The driver's own hygiene: after every server is gone, the driver must hold no resource it did not
// hold at start (the IPC channel is in the baseline). Extra ones are named through the probe.

import { liveHandles, normaliseType, type ProbeHandle } from './probe.js';

export function activeResources(): string[] {
  return typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo() : [];
}

const WRAP: Record<string, string> = { Pipe: 'PipeWrap', TTY: 'TTYWrap', TCP: 'TCPSocketWrap' };

/**
 * The driver's own stdio streams and IPC channel, as resource names. Node creates process.stderr
 * lazily (even net.Socket#destroy touches it), so these appear mid-run without being a leak.
 */
export function ownStdio(): string[] {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  const out: string[] = [];
  for (const h of handles as { fd?: number; _handle?: { fd?: number; constructor?: { name?: string } }; constructor?: { name?: string } }[]) {
    const inner = h === process.channel ? h : h._handle;
    const fd = inner?.fd ?? h.fd;
    if (h !== process.channel && !(typeof fd === 'number' && fd >= 0 && fd <= 2)) continue;
    const name = WRAP[inner?.constructor?.name ?? ''];
    if (name) out.push(name);
  }
  return out;
}

/** Multiset difference: what is active now that was not at the baseline. */
export function extraResources(baseline: string[], now: string[]): string[] {
  const left = new Map<string, number>();
  for (const name of baseline) left.set(name, (left.get(name) ?? 0) + 1);
  const extra: string[] = [];
  for (const name of now) {
    const n = left.get(name) ?? 0;
    if (n > 0) left.set(name, n - 1);
    else extra.push(name);
  }
  return extra;
}

function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Gives closing sockets a bounded moment (polling, not a fixed sleep), then names what is left. */
export async function driverLeaks(baseline: string[], settleMs = 1000): Promise<ProbeHandle[]> {
  const deadline = Date.now() + settleMs;
  const measure = (): string[] => extraResources([...baseline, ...ownStdio()], activeResources());
  let extra = measure();
  while (extra.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await nextTick();
    extra = measure();
  }
  if (!extra.length) return [];
  const known = liveHandles();
  const out: ProbeHandle[] = [];
  for (const name of extra) {
    const index = known.findIndex((h) => normaliseType(h.type) === normaliseType(name));
    out.push(index >= 0 ? known.splice(index, 1)[0]! : { type: name });
  }
  return out;
}
