// A kept driver run again by hand (src/cells/rerun.ts): its command, the words the shell would change, and every
// recorded run found in a kept cell.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rerunCommand, rerunsIn, shellWord } from '../../src/cells/rerun.js';

const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

describe('re-running a kept driver', () => {
  it('the command: paths inside the cell relative to it, others absolute; the variant’s Node when it has one', () => {
    expect(rerunCommand('/t/cell-a', '/t/cell-a/.mcp-matrix/driver/index.js', '/t/cell-a/.mcp-matrix/spec.json')).toBe(
      'node .mcp-matrix/driver/index.js .mcp-matrix/spec.json',
    );
    expect(
      rerunCommand(
        '/t/cell-a',
        '/t/clients/client-1.0.0/.mcp-matrix/driver/index.js',
        '/t/cell-a/.mcp-matrix/variants/a~client-1.0.0~node-22/spec.json',
        '/home/u/.cache/mcp-matrix/node/22.11.0-linux-x64/bin/node',
      ),
    ).toBe(
      '/home/u/.cache/mcp-matrix/node/22.11.0-linux-x64/bin/node /t/clients/client-1.0.0/.mcp-matrix/driver/index.js .mcp-matrix/variants/a~client-1.0.0~node-22/spec.json',
    );
  });

  it('words the shell would change are quoted', () => {
    expect(shellWord('/my dir/node')).toBe("'/my dir/node'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('~x')).toBe("'~x'");
    expect(shellWord('a~b')).toBe('a~b');
    expect(shellWord('$HOME')).toBe("'$HOME'");
  });

  it('finds every recorded driver run in a kept cell, not inside the shipped driver or the scratch dir', () => {
    const runDir = mkdtempSync(path.join(os.tmpdir(), 'mm-rerun-'));
    temps.push(runDir);
    const cell = path.join(runDir, 'cell-a');
    const put = (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(cell, rel)), { recursive: true });
      writeFileSync(path.join(cell, rel), `${text}\n`);
    };
    put('.mcp-matrix/rerun', 'node plain');
    put('.mcp-matrix/variants/a~client-1.0.0/rerun', 'node v1');
    put('.mcp-matrix/variants/a~node-22/rerun', 'node v2');
    put('.mcp-matrix/driver/rerun', 'not this');
    put('.mcp-matrix/tmp/rerun', 'nor this');
    expect(rerunsIn(cell)).toEqual(['node plain', 'node v1', 'node v2']);
    expect(rerunsIn(path.join(runDir, 'cell-none'))).toEqual([]);
  });
});
