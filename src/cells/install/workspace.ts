// A fresh directory per cell, outside the repository, so nothing resolves from the harness's node_modules.
// Each run directory records its owner (owner.json: the run's cookie, which names the owner's pid), so
// a later run can tell a dead run's debris from a live run's work.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const RUN_DIR_PREFIX = 'mcp-matrix-';
export const OWNER_FILE = 'owner.json';

export interface RunDirOwner {
  pid: number;
  cookie: string;
  startedAt: string;
  /** Kept on purpose (--keep): never swept while one of its `homes` still links into it (or it has none). */
  kept?: boolean;
  /** The kept cells' homes (`<cwd>/cells/<id>`, links into this directory): see kept.ts. */
  homes?: string[];
}

export async function createRunDir(cookie?: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), RUN_DIR_PREFIX));
  if (cookie) {
    const owner: RunDirOwner = { pid: process.pid, cookie, startedAt: new Date().toISOString() };
    // A full disk may refuse the owner file: the empty directory must not stay behind.
    await writeFile(path.join(dir, OWNER_FILE), `${JSON.stringify(owner)}\n`).catch(async (error: unknown) => {
      await rm(dir, { recursive: true, force: true });
      throw error;
    });
  }
  return dir;
}

export function readOwner(runDir: string): RunDirOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path.join(runDir, OWNER_FILE), 'utf8')) as Partial<RunDirOwner>;
    return typeof owner.pid === 'number' && typeof owner.cookie === 'string' ? (owner as RunDirOwner) : undefined;
  } catch {
    return undefined;
  }
}

/** --keep: the directory outlives its run on purpose, so no later run may sweep it while its homes link into it. */
export function markKept(runDir: string, homes: string[] = []): void {
  const owner = readOwner(runDir);
  if (owner)
    writeFileSync(path.join(runDir, OWNER_FILE), `${JSON.stringify({ ...owner, kept: true, ...(homes.length ? { homes } : {}) })}\n`);
}

/** A cell's directory inside the run directory. */
export function cellDirOf(runDir: string, cellId: string): string {
  return path.join(runDir, `cell-${cellId}`);
}

export async function createCellDir(
  runDir: string,
  cellId: string,
  packageName: string,
  tarball: string,
  installSet: Record<string, string>,
): Promise<string> {
  const dir = cellDirOf(runDir, cellId);
  await mkdir(dir, { recursive: true });
  const manifest = {
    name: 'mcp-matrix-cell',
    private: true,
    description: `mcp-matrix cell ${cellId}`,
    dependencies: { [packageName]: `file:${tarball}`, ...installSet },
  };
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Quiet, reproducible installs: no audit/fund noise, no update check, no lifecycle surprises from the cell itself.
  await writeFile(path.join(dir, '.npmrc'), 'fund=false\naudit=false\nupdate-notifier=false\nprefer-offline=true\n');
  return dir;
}

const removing = new Map<string, Promise<void>>();

/** One removal per directory at a time: a forced exit joins a removal in progress instead of racing it. */
export function removeDir(dir: string): Promise<void> {
  let pending = removing.get(dir);
  if (!pending) {
    pending = rm(dir, { recursive: true, force: true, maxRetries: 3 }).finally(() => removing.delete(dir));
    removing.set(dir, pending);
  }
  return pending;
}

/** The owner record goes last: a removal cut short (a forced exit, kill -9) still leaves a directory the next run can sweep. */
export function removeRunDir(runDir: string): Promise<void> {
  const key = `${runDir}${path.sep}`;
  let pending = removing.get(key);
  if (!pending) {
    pending = (async () => {
      const entries = await readdir(runDir).catch(() => [] as string[]);
      await Promise.all(entries.filter((e) => e !== OWNER_FILE).map((e) => removeDir(path.join(runDir, e)).catch(() => undefined)));
      await removeDir(runDir);
    })().finally(() => removing.delete(key));
    removing.set(key, pending);
  }
  return pending;
}

/**
 * Removes the run dir within `ms`; what is left then is renamed (`<run dir>.removing`, so nothing
 * resolves into it) and handed to a detached remover that exits when done: an interrupted run ends
 * without waiting for a slow disk (unlinking a cell's node_modules can take seconds). The owner
 * record goes last, so if the remover dies the next run sweeps the rest.
 */
export async function removeRunDirWithin(runDir: string, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([removeRunDir(runDir).catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
  if (!existsSync(runDir)) return;
  const trash = `${runDir}.removing`;
  try {
    renameSync(runDir, trash);
  } catch {
    return; // the next run sweeps it
  }
  const script = `const fs=require('fs'),p=require('path'),d=process.argv[1];for(const e of fs.readdirSync(d))if(e!==${JSON.stringify(OWNER_FILE)})fs.rmSync(p.join(d,e),{recursive:true,force:true,maxRetries:3});fs.rmSync(d,{recursive:true,force:true,maxRetries:3})`;
  spawn(process.execPath, ['-e', script, trash], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '' } }).unref();
}
