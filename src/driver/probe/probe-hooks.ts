// Module hooks the probe registers on Node versions without in-thread hooks (`module.register`,
// run off the main thread): every ES module resolution is noted, so the probe knows which SDK copy
// the server really loaded. Builtins only; a hook must never fail a resolution.

import { appendFileSync } from 'node:fs';
import { sdkNoter } from './sdk-load.js';

let note: (where: string) => void = () => {};

export function initialize(data: { names: string[]; file: string }): void {
  note = sdkNoter(data.names, (record) => {
    try {
      appendFileSync(data.file, JSON.stringify({ ...record, pid: process.pid }) + '\n');
    } catch {
      // The probe must never disturb the server.
    }
  });
}

type Next = (specifier: string, context: unknown) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: unknown, next: Next): Promise<{ url: string }> {
  const resolved = await next(specifier, context);
  note(resolved.url);
  return resolved;
}
