// System errors that say the machine failed, not the package: a full disk, no file descriptors,
// no permission on a directory. Whatever step meets one, the cell is not measured, with this cause.
import { statfs } from 'node:fs/promises';

const CAUSES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  EMFILE: 'too many open files (the per-process limit, ulimit -n)',
  ENFILE: 'too many open files (the system-wide limit)',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOMEM: 'out of memory',
};

/** Codes that can only come from the machine, wherever they appear (npm's debug log included). */
export const MACHINE_CODES = ['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE'] as const;

/** Below this much free space a failed install is taken as a full disk. */
export const LOW_SPACE_BYTES = 16 * 1024 * 1024;

export function infraCause(code: string | undefined): string | undefined {
  return code ? CAUSES[code] : undefined;
}

/** `the disk is full (ENOSPC): <message>` for an exception the harness met itself, else undefined. */
export function describeInfraError(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const cause = typeof code === 'string' ? infraCause(code) : undefined;
  if (!cause) return undefined;
  return `${cause} (${code as string}): ${error instanceof Error ? error.message : String(error)}`;
}

/** The first machine-only code mentioned in `text`. */
export function machineCodeIn(text: string): (typeof MACHINE_CODES)[number] | undefined {
  return MACHINE_CODES.find((code) => new RegExp(`\\b${code}\\b`).test(text));
}

/** Free bytes for an unprivileged user on the file system holding `dir`; undefined when unknown. */
export async function freeBytes(dir: string): Promise<number | undefined> {
  try {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
