// A fresh directory per cell, outside the repository, so nothing resolves from the harness's node_modules.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const RUN_DIR_PREFIX = 'mcp-matrix-';

export async function createRunDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), RUN_DIR_PREFIX));
}

export async function createCellDir(
  runDir: string,
  cellId: string,
  packageName: string,
  tarball: string,
  installSet: Record<string, string>,
): Promise<string> {
  const dir = path.join(runDir, `cell-${cellId}`);
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

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}
