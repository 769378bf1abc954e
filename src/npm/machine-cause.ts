// Whether an npm failure is the machine's (a full disk, too many open files, a path npm could not write), read
// from npm's code, its output, its debug log and the free space: the machine's fault is not-measured, never failed.
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { freeBytes, infraCause, LOW_SPACE_BYTES, machineCodeIn, megabytes } from '../util/infra.js';

/**
 * Why a non-network npm failure is the machine's, or undefined when it may be the package's: npm's
 * own code (ENOSPC, EMFILE, EACCES/EPERM on a path npm was writing …), a machine-only code anywhere
 * in npm's output or its debug log, or too little free space left where the cell lives.
 */
export async function machineCause(code: string, stderr: string, stdout: string, cellDir: string): Promise<string | undefined> {
  const where = /npm (?:error|ERR!) path (.+)/.exec(stderr)?.[1]?.trim();
  const own = where && isInside(where, path.dirname(cellDir)) ? " (the harness's own directory)" : '';
  const direct = infraCause(code);
  if (direct) return `${direct} (${code}${where ? ` on ${where}${own}` : ''}): npm install could not complete`;
  const log = /A complete log of this run can be found in:?\s*(\S+)/.exec(stderr)?.[1];
  const found = machineCodeIn(`${stderr}\n${stdout}`) ?? (log ? machineCodeIn(await readBounded(log)) : undefined);
  if (found)
    return `${infraCause(found)} (${found}, found in npm's ${log && !machineCodeIn(stderr + stdout) ? `debug log ${log}` : 'output'}): npm install failed with ${code} because of it`;
  const free = await freeBytes(cellDir);
  if (free !== undefined && free < LOW_SPACE_BYTES)
    return `the disk is full (only ${megabytes(free)} free where the cell lives, ${path.dirname(cellDir)}): npm install failed with ${code} because of it`;
  return undefined;
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** npm's debug log can be tens of MB; a cause is found near its end. */
async function readBounded(file: string, max = 64 * 1024 * 1024): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, max);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}
