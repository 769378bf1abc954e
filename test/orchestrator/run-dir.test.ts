// The end of a run: a run directory that cannot be removed is said once, as a warning with its cause,
// never swallowed (a leftover seen once in CI had no recorded cause).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunDir } from '../../src/orchestrator/run-dir.js';
import { OWNER_FILE } from '../../src/cells/install/workspace.js';

const undo: (() => void)[] = [];
afterAll(() => undo.forEach((f) => f()));

/** An immutable file (chattr +i) makes its directory unremovable, even for root; not every file system has it. */
function canPin(): boolean {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mm-chattr-probe-'));
  const file = path.join(dir, 'f');
  writeFileSync(file, '');
  const ok = spawnSync('chattr', ['+i', file]).status === 0;
  if (ok) spawnSync('chattr', ['-i', file]);
  rmSync(dir, { recursive: true, force: true });
  return ok;
}

describe('run directory', () => {
  it('is removed at the end of a run, with no warning', async () => {
    const warnings: string[] = [];
    const opened = await openRunDir(undefined, false, (l) => warnings.push(l));
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    await opened.value.close(undefined, false);
    expect(existsSync(opened.value.dir)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it.runIf(canPin())('one that cannot be removed is a warning naming the directory and the cause', async () => {
    const warnings: string[] = [];
    const opened = await openRunDir(undefined, false, (l) => warnings.push(l));
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    const dir = opened.value.dir;
    const pinned = path.join(dir, 'cell-x', 'pinned');
    execFileSync('mkdir', ['-p', path.dirname(pinned)]);
    writeFileSync(pinned, '');
    writeFileSync(path.join(dir, OWNER_FILE), '{}');
    execFileSync('chattr', ['+i', pinned]);
    undo.push(() => {
      spawnSync('chattr', ['-i', pinned]);
      rmSync(dir, { recursive: true, force: true });
    });
    await opened.value.close(undefined, false);
    expect(warnings).toHaveLength(1);
    // Node's rm reports the file it could not take (its code is rimraf's last try, ENOTDIR here, EPERM elsewhere).
    expect(warnings[0]).toMatch(new RegExp(`^could not remove the run directory ${dir}: E[A-Z]+: .*${pinned}`));
    expect(warnings[0]).toContain(`the next run in ${os.tmpdir()} sweeps it`);
  });
});
