// A copy of a cell's tree for a group of phases run side by side: real copies where a server keeps its state (the
// package under test, the cell's own files), hard links for the dependencies (docs/performance.md, session 10).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { errorMessage, fail, ok, type Result } from '../../util/result.js';

const run = promisify(execFile);

/**
 * A new directory beside `cellDir` holding its tree: every top-level entry but the driver's `.mcp-matrix` copied,
 * `node_modules` as hard links (GNU `cp -al`), and the package under test's directory copied for real. A server that
 * writes into a dependency's file in place writes into the cell's tree, as it does when phases run in turn; the
 * tree-return check and the lockfile re-check see it as they do then.
 */
export async function copyCellTree(cellDir: string, packageDir: string): Promise<Result<string>> {
  const dir = await mkdtemp(`${cellDir}.side-`).catch((error: unknown) => error as Error);
  if (dir instanceof Error) return fail('infrastructure', `cannot make a copy of the cell's tree: ${errorMessage(dir)}`);
  try {
    const entries = (await readdir(cellDir)).filter((e) => e !== '.mcp-matrix' && e !== 'node_modules');
    if (entries.length) await run('cp', ['-a', ...entries.map((e) => path.join(cellDir, e)), dir]);
    await run('cp', ['-al', path.join(cellDir, 'node_modules'), path.join(dir, 'node_modules')]);
    const own = path.relative(cellDir, packageDir);
    if (own.startsWith('node_modules' + path.sep)) {
      await rm(path.join(dir, own), { recursive: true, force: true });
      await run('cp', ['-a', packageDir, path.join(dir, own)]);
    }
    return ok(dir);
  } catch (error) {
    await removeCopy(dir);
    return fail('infrastructure', `cannot make a copy of the cell's tree: ${errorMessage(error)}`);
  }
}

/** The file, in a copy's `.mcp-matrix`, made once the copy is whole and before any server starts: its mtime is the line. */
export const COPIED_MARK = 'copied';

/**
 * An entry of `copy` (its driver's `.mcp-matrix` left out) changed after `mark` was made, as a path in the copy: a
 * server wrote into its tree (its package, the cell's files, node_modules, a dependency's file through its hard link),
 * which in turn the next phases' servers would see. Undefined: nothing written. A copy that cannot be checked says so.
 */
export async function writtenSince(copy: string, mark: string): Promise<string | undefined> {
  const skip = path.join(copy, '.mcp-matrix');
  try {
    const found = await run('find', [copy, '-mindepth', '1', '-path', skip, '-prune', '-o', '-newer', mark, '-print', '-quit']);
    const first = found.stdout.split('\n')[0];
    return first ? path.relative(copy, first) : undefined;
  } catch (error) {
    return `a copy that could not be checked (${errorMessage(error)})`;
  }
}

/** A copy's removal; a failure leaves it to the run directory's removal. */
export async function removeCopy(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
}
