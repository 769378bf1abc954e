// The driver's own hygiene: after every server is gone, the driver must hold no resource it did not
// hold at start (the IPC channel is in the baseline). Extra ones are named through the probe.

import { identifiedHandles, normaliseType, ownStdio, type ProbeHandle } from './probe.js';

/** A handle the driver holds that it did not at start; `asyncId` when the probe saw it created. */
export type DriverHandle = ProbeHandle & { asyncId?: number };

export function activeResources(): string[] {
  return typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo() : [];
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
export async function driverLeaks(baseline: string[], settleMs = 1000): Promise<DriverHandle[]> {
  const deadline = Date.now() + settleMs;
  const measure = (): string[] => extraResources([...baseline, ...ownStdio([0, 1, 2])], activeResources());
  let extra = measure();
  while (extra.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await nextTick();
    extra = measure();
  }
  if (!extra.length) return [];
  // Newest first: of several handles of one type, those the baseline held are the older ones.
  const known: DriverHandle[] = identifiedHandles([0, 1, 2]).sort((x, y) => y.asyncId - x.asyncId);
  const out: DriverHandle[] = [];
  for (const name of extra) {
    const index = known.findIndex((h) => normaliseType(h.type) === normaliseType(name));
    out.push(index >= 0 ? known.splice(index, 1)[0]! : { type: name });
  }
  return out;
}
