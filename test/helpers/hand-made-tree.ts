// A small hand-made node_modules as npm leaves a cell (no npm): for the tree cache's tests and the handed-back
// tree's. A test file calls `afterAll(removeTemps)` (a module shared by files of one worker registers no hook itself).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const dirs: string[] = [];

/** Removes every directory `temp` made so far. */
export async function removeTemps(): Promise<void> {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export async function temp(prefix = 'mm-tree-cache-'): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A cell as npm leaves it: a dependency, the package under test (`pkg`), bin links, the hidden lockfile. */
export async function cell(): Promise<string> {
  const dir = await temp();
  const nm = path.join(dir, 'node_modules');
  mkdirSync(path.join(nm, 'dep/lib'), { recursive: true });
  mkdirSync(path.join(nm, 'pkg/bin'), { recursive: true });
  mkdirSync(path.join(nm, '.bin'));
  writeFileSync(path.join(nm, 'dep/package.json'), '{"name":"dep","version":"1.0.0"}');
  writeFileSync(path.join(nm, 'dep/lib/index.js'), 'module.exports = 1;\n', { mode: 0o755 });
  writeFileSync(path.join(nm, 'pkg/bin/x.js'), '#!/usr/bin/env node\n');
  symlinkSync('../dep/lib/index.js', path.join(nm, '.bin/dep'));
  symlinkSync('../pkg/bin/x.js', path.join(nm, '.bin/pkg'));
  writeFileSync(path.join(nm, '.package-lock.json'), '{}');
  return dir;
}
