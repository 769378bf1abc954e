// After a cell's last variant its install must be as it was installed: a changed lockfile means the
// harness mutated the install under its variants, so none of them measured the pinned install.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CellResult } from '../../results/types.js';
import { decideCellResult } from '../verdict.js';
import { unmeasured } from '../not-measured.js';
import { sha256 } from '../../util/sha256.js';

/** sha256 of the cell's lockfile as it is now: npm's, else a strict leg's pnpm-lock.yaml (undefined when there is none). */
export async function lockfileSha256(cellDir: string): Promise<string | undefined> {
  const lock =
    (await readFile(path.join(cellDir, 'package-lock.json')).catch(() => undefined)) ??
    (await readFile(path.join(cellDir, 'pnpm-lock.yaml')).catch(() => undefined));
  return lock ? sha256(lock) : undefined;
}

/** The install's change since `installed` (its lockfile's sha256), named; undefined when unchanged. */
export async function recheckInstall(cellDir: string, installed: string | undefined): Promise<string | undefined> {
  if (installed === undefined) return undefined;
  const now = await lockfileSha256(cellDir);
  if (now === installed) return undefined;
  return `the cell's install changed while its variants ran (package-lock.json sha256 ${installed.slice(0, 12)}… → ${now ? `${now.slice(0, 12)}…` : 'removed'}): the harness mutated it, so no variant of this cell measured the pinned install`;
}

/** A row whose cell's install was mutated: its environment is not measured, naming the mutation. */
export function withMutatedInstall(row: CellResult, message: string): CellResult {
  const phases = row.phases.map((p) => (p.phase === 'environment' ? { ...unmeasured(p, message), step: 'lockfile re-check', message } : p));
  return { ...row, phases, ...decideCellResult(phases, row.allowedToFail) };
}
