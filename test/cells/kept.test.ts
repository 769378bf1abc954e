// --keep's homes: `<cwd>/cells/<id>` links to each kept cell's directory; an earlier link is replaced,
// anything that is not a link is left alone, and homes of cells that were never made go.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { homeLinksInto, KEPT_HOME, linkKeptCells, pruneKeptHomes } from '../../src/cells/kept.js';

const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

function scratch(): { cwd: string; runDir: string; cell(id: string): string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mm-kept-'));
  temps.push(root);
  const cwd = path.join(root, 'work');
  const runDir = path.join(root, 'mcp-matrix-run');
  mkdirSync(cwd);
  const cell = (id: string) => {
    const dir = path.join(runDir, `cell-${id}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'marker'), id);
    return dir;
  };
  return { cwd, runDir, cell };
}

describe('kept cell homes', () => {
  it('links cells/<id> in the working directory to each cell directory', () => {
    const s = scratch();
    const homes = linkKeptCells(s.cwd, [
      { id: 'latest-1', dir: s.cell('latest-1') },
      { id: 'floor-2', dir: s.cell('floor-2') },
    ]);
    expect(KEPT_HOME).toBe('cells');
    expect([...homes.linked]).toEqual([
      ['latest-1', path.join(s.cwd, 'cells', 'latest-1')],
      ['floor-2', path.join(s.cwd, 'cells', 'floor-2')],
    ]);
    expect(homes.refused.size).toBe(0);
    expect(readFileSync(path.join(s.cwd, 'cells/latest-1/marker'), 'utf8')).toBe('latest-1');
    expect(lstatSync(path.join(s.cwd, 'cells/latest-1')).isSymbolicLink()).toBe(true);
    expect(homeLinksInto(path.join(s.cwd, 'cells/latest-1'), s.runDir)).toBe(true);
  });

  it('a later run replaces an earlier link; the earlier directory is untouched', () => {
    const s = scratch();
    const earlier = s.cell('old');
    linkKeptCells(s.cwd, [{ id: 'latest-1', dir: earlier }]);
    const later = path.join(path.dirname(s.runDir), 'mcp-matrix-later', 'cell-latest-1');
    mkdirSync(later, { recursive: true });
    const homes = linkKeptCells(s.cwd, [{ id: 'latest-1', dir: later }]);
    expect(homes.linked.get('latest-1')).toBe(path.join(s.cwd, 'cells', 'latest-1'));
    expect(readlinkSync(path.join(s.cwd, 'cells/latest-1'))).toBe(later);
    expect(homeLinksInto(path.join(s.cwd, 'cells/latest-1'), s.runDir)).toBe(false);
    expect(existsSync(path.join(earlier, 'marker'))).toBe(true);
  });

  it('leaves alone a cells/<id> that is not a link, and says so', () => {
    const s = scratch();
    const mine = path.join(s.cwd, 'cells', 'latest-1');
    mkdirSync(mine, { recursive: true });
    writeFileSync(path.join(mine, 'notes.txt'), 'my own');
    const homes = linkKeptCells(s.cwd, [{ id: 'latest-1', dir: s.cell('latest-1') }]);
    expect(homes.linked.size).toBe(0);
    expect(homes.refused.get('latest-1')).toBe(`${mine} exists and is not a link to a kept cell: left alone`);
    expect(readFileSync(path.join(mine, 'notes.txt'), 'utf8')).toBe('my own');
    expect(homeLinksInto(mine, s.runDir)).toBe(false);
  });

  it('prunes the homes of cells that were never made (an interrupt came first) and keeps the others', () => {
    const s = scratch();
    const made = s.cell('made');
    const homes = linkKeptCells(s.cwd, [
      { id: 'made', dir: made },
      { id: 'never', dir: path.join(s.runDir, 'cell-never') },
    ]);
    expect(homes.linked.size).toBe(2);
    expect(pruneKeptHomes(homes)).toEqual([path.join(s.cwd, 'cells', 'made')]);
    expect(() => lstatSync(path.join(s.cwd, 'cells/never'))).toThrow();
    expect(existsSync(path.join(s.cwd, 'cells/made/marker'))).toBe(true);
  });

  it('a missing home links nowhere', () => {
    const s = scratch();
    expect(homeLinksInto(path.join(s.cwd, 'cells/none'), s.runDir)).toBe(false);
  });
});
