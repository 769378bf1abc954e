// The cell's package-lock.json, read and parsed once per cell: the environment's integrity check and the
// undeclared-import checks (who brought a package into npm's flat tree) both read it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../util/result.js';

/** An entry of the lockfile's `packages`, as far as the checks read it. */
export interface LockEntry {
  version?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export type CellLock =
  | { kind: 'absent' }
  /** npm wrote it: one that is not JSON is npm's or the machine's doing, never the package's. */
  | { kind: 'unreadable'; bytes: Buffer; why: string }
  | { kind: 'parsed'; bytes: Buffer; packages: Record<string, LockEntry> };

export async function readCellLock(cellDir: string): Promise<CellLock> {
  const bytes = await readFile(path.join(cellDir, 'package-lock.json')).catch(() => undefined);
  if (!bytes) return { kind: 'absent' };
  try {
    const json = JSON.parse(bytes.toString('utf8')) as { packages?: Record<string, LockEntry> } | null;
    return { kind: 'parsed', bytes, packages: json?.packages ?? {} };
  } catch (error) {
    return { kind: 'unreadable', bytes, why: errorMessage(error) };
  }
}
