// The command line that runs a cell's driver again, written beside each spec (`rerun`) and read back from a
// kept cell, so `--keep` can print how to reproduce a variant by hand.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';

/** Beside each spec: the command line that runs that driver again, from the cell's directory. */
export const RERUN_FILE = 'rerun';

/** `<node> <entry> <spec>`, each path relative to the cell when inside it (the cell may be entered through a link). */
export function rerunCommand(cellDir: string, entry: string, specFile: string, execPath?: string): string {
  const shown = (file: string) => {
    const rel = path.relative(cellDir, file);
    return shellWord(rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file);
  };
  return [execPath ? shellWord(execPath) : 'node', shown(entry), shown(specFile)].join(' ');
}

/** A word the shell takes as is (a `~` only inside it: at its start the shell would expand it), else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w./@+=:,-][\w./@~+=:,-]*$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Every driver run recorded in a kept cell (a `rerun` file under `.mcp-matrix`): the command lines that run them again. */
export function rerunsIn(cellDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, e.name);
      if (e.isFile() && e.name === RERUN_FILE) found.push(readFileSync(full, 'utf8').trim());
      else if (e.isDirectory() && depth > 0 && e.name !== 'driver' && e.name !== 'tmp') walk(full, depth - 1);
    }
  };
  walk(path.join(cellDir, '.mcp-matrix'), 2);
  return found.filter(Boolean);
}
