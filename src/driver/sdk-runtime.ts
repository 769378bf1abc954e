// After a stdio or http phase: what its server actually loaded (from the probe's records), attached
// to the phase result so the orchestrator can rest the environment verdict on it.

import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { InstalledPackage, PhaseResult, SdkRuntime } from '../results/types.js';
import type { DriverContext } from './context.js';
import { withDetails } from '../contract/fields.js';
import { isNodeScript, type ServerProcess } from './server/process.js';

export function observeSdk(ctx: DriverContext, server: SdkRuntime['server'], proc: ServerProcess): SdkRuntime {
  const records = proc.probeRecords();
  const cell = real(ctx.spec.cellDir);
  const copies = new Map<string, InstalledPackage>();
  for (const r of records) {
    if (r.type !== 'sdk' || typeof r.path !== 'string' || typeof r.name !== 'string') continue;
    const inCell = r.path.startsWith(cell + sep);
    const where = inCell ? relative(cell, r.path) : r.path;
    copies.set(where, { name: r.name, version: typeof r.version === 'string' ? r.version : '?', path: where });
  }
  const probe = records.find((r) => r.type === 'probe');
  // The Node of the process that answered, not a launcher's; and the members the probe never saw.
  const { answering, unobserved } = ctx.answered.answering(
    proc,
    [...new Set([ctx.spec.cellDir, cell])],
    pathToFileURL(ctx.spec.probe).href,
  );
  const node = [...new Set(answering.flatMap((p) => (p.node ? [p.node] : [])))].join(' / ');
  return {
    server,
    probe: probe !== undefined,
    ...(node ? { node } : {}),
    nodeBin: isNodeScript(proc.options.bin),
    answered: ctx.answered.has(proc),
    copies: [...copies.values()].sort((a, b) => a.path.localeCompare(b.path)),
    ...(unobserved.length ? { unobserved } : {}),
  };
}

/** The phase result with what each of the phase's servers loaded. */
export function withSdkRuntime(ctx: DriverContext, result: PhaseResult): PhaseResult {
  const phase = result.phase;
  if (phase !== 'stdio' && phase !== 'http') return result;
  const observed = ctx.servers.filter((s) => s.role === phase).map((s) => observeSdk(ctx, phase, s.proc));
  if (observed.length === 0) return result;
  return withDetails(result, { sdkRuntime: observed });
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
