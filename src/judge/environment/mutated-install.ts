// After a cell's last variant its install must be as it was installed: a changed lockfile means the
// harness mutated the install under its variants, so none of them measured the pinned install.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CellResult } from '../../results/types.js';
import { decideCellResult } from '../verdict.js';
import { unmeasured } from '../not-measured.js';
import { sha256 } from '../../util/sha256.js';

/** The cell's lockfile as it is now: npm's, else a strict leg's pnpm-lock.yaml or yarn.lock (undefined when there is none). */
async function lockfileOf(cellDir: string): Promise<{ name: string; sha256: string } | undefined> {
  for (const name of ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock']) {
    const lock = await readFile(path.join(cellDir, name)).catch(() => undefined);
    if (lock) return { name, sha256: sha256(lock) };
  }
  return undefined;
}

/** sha256 of the cell's lockfile as it is now: npm's, else a strict leg's pnpm-lock.yaml (undefined when there is none). */
export async function lockfileSha256(cellDir: string): Promise<string | undefined> {
  return (await lockfileOf(cellDir))?.sha256;
}

/** The install's change since `installed` (its lockfile's sha256), named by the lockfile the cell has; undefined when unchanged. */
export async function recheckInstall(cellDir: string, installed: string | undefined): Promise<string | undefined> {
  if (installed === undefined) return undefined;
  const now = await lockfileOf(cellDir);
  if (now?.sha256 === installed) return undefined;
  return `the cell's install changed while its variants ran (${now?.name ?? 'its lockfile'} sha256 ${installed.slice(0, 12)}… → ${now ? `${now.sha256.slice(0, 12)}…` : 'removed'}): the harness mutated it, so no variant of this cell measured the pinned install`;
}

/** A row whose cell's install was mutated: its environment is not measured, naming the mutation. */
export function withMutatedInstall(row: CellResult, message: string): CellResult {
  const phases = row.phases.map((p) => (p.phase === 'environment' ? { ...unmeasured(p, message), step: 'lockfile re-check', message } : p));
  return { ...row, phases, ...decideCellResult(phases, row.allowedToFail) };
}
