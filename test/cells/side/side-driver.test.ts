import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupSpec, loneSpec, measuredPhases, sideBySideFits } from '../../../src/cells/side/side-driver.js';
import { copyCellTree, removeCopy, writtenSince } from '../../../src/cells/side/tree-copy.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';

const command = (bin: string) => ({ bin, args: ['--port', '{port}'], env: { DATA: '{cellDir}/data' } });
const spec = (): DriverSpec =>
  ({
    cellDir: '/run/cell-latest-1',
    packageDir: '/run/cell-latest-1/node_modules/srv',
    workDir: '/run/cell-latest-1/.mcp-matrix/variants/v',
    probe: '/run/cell-latest-1/.mcp-matrix/driver/probe/probe.js',
    baseEnv: { MCP_MATRIX_CELL: 'latest-1' },
    standIns: { bind: { phase: 'bind', verdict: 'passed', durationMs: 0 } },
    phases: {
      stdio: { command: command('/run/cell-latest-1/node_modules/srv/bin.js') },
      http: { command: command('/run/cell-latest-1/node_modules/srv/bin.js') },
      bind: false,
      conformance: { command: command('/usr/local/bin/server') },
      leaks: { graceMs: 1000 },
    },
  }) as unknown as DriverSpec;

describe('the driver specs of phases run side by side', () => {
  it('measures only the phases on and not stood in for', () => {
    expect(measuredPhases(spec())).toEqual(['stdio', 'http', 'conformance']);
  });

  it('a group runs its phases only, on its copy (every path into the cell moved), with tags of its own', () => {
    const group = groupSpec(spec(), ['http'], '/run/cell-latest-1.side-x', 1);
    expect(group).toMatchObject({
      cellDir: '/run/cell-latest-1.side-x',
      packageDir: '/run/cell-latest-1.side-x/node_modules/srv',
      workDir: '/run/cell-latest-1.side-x/.mcp-matrix',
      probe: '/run/cell-latest-1/.mcp-matrix/driver/probe/probe.js',
      tagPrefix: 'latest-1~side-2:',
      phases: { stdio: false, bind: false, conformance: false, leaks: { graceMs: 1000 } },
    });
    expect(group.phases.http && group.phases.http.command).toEqual(command('/run/cell-latest-1.side-x/node_modules/srv/bin.js'));
    // A server outside the cell stays where it is; the stand-ins stay for the phases no group runs.
    expect(groupSpec(spec(), ['conformance'], '/c', 2).phases.conformance).toMatchObject({ command: command('/usr/local/bin/server') });
    expect(group.standIns).toEqual(spec().standIns);
  });

  it("the lone run is the cell's own spec with only the phases to confirm (and leaks)", () => {
    const lone = loneSpec(spec(), ['stdio']);
    expect(lone).toEqual({ ...spec(), phases: { ...spec().phases, http: false, conformance: false } });
  });

  it('side by side only when asked, with fewer variants at once than cores, on Linux', () => {
    const linux = process.platform === 'linux';
    expect(sideBySideFits({ sideBySide: true }, 1, 2)).toBe(linux);
    expect(sideBySideFits({ sideBySide: true }, 2, 2)).toBe(false);
    expect(sideBySideFits({ sideBySide: true }, 4, 2)).toBe(false);
    expect(sideBySideFits({ sideBySide: false }, 1, 8)).toBe(false);
    expect(sideBySideFits({}, 1, 8)).toBe(linux);
  });
});

describe.runIf(process.platform === 'linux')("a copy of the cell's tree", () => {
  const root = mkdtempSync(join(tmpdir(), 'mm-tree-copy-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const cell = join(root, 'cell-latest-1');
  const files = {
    'package.json': '{}',
    'package-lock.json': '{}',
    'node_modules/dep/index.js': 'dep',
    'node_modules/@s/srv/bin.js': 'srv',
    'node_modules/@s/srv/state.json': '{}',
    '.mcp-matrix/driver/index.js': 'driver',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(cell, file, '..'), { recursive: true });
    writeFileSync(join(cell, file), text);
  }

  it('copies the package under test and the cell files, hard-links the dependencies, leaves the driver out; removed whole', async () => {
    const made = await copyCellTree(cell, join(cell, 'node_modules/@s/srv'));
    expect(made.ok).toBe(true);
    const copy = made.ok ? made.value : '';
    expect(copy.startsWith(`${cell}.side-`)).toBe(true);
    const inode = (dir: string, file: string) => statSync(join(dir, file)).ino;
    expect(inode(copy, 'node_modules/dep/index.js')).toBe(inode(cell, 'node_modules/dep/index.js'));
    for (const own of ['node_modules/@s/srv/state.json', 'node_modules/@s/srv/bin.js', 'package.json', 'package-lock.json']) {
      expect(inode(copy, own)).not.toBe(inode(cell, own));
      expect(readFileSync(join(copy, own), 'utf8')).toBe(files[own as keyof typeof files]);
    }
    expect(lstatSync(join(copy, 'node_modules/@s')).isDirectory()).toBe(true);
    expect(existsSync(join(copy, '.mcp-matrix'))).toBe(false);
    // A server that writes its own state in its copy leaves the cell's as it was.
    writeFileSync(join(copy, 'node_modules/@s/srv/state.json'), '{"written":true}');
    expect(readFileSync(join(cell, 'node_modules/@s/srv/state.json'), 'utf8')).toBe('{}');
    await removeCopy(copy);
    expect(existsSync(copy)).toBe(false);
  });

  it('tells a copy a server wrote into (its package, a new file, a dependency through its hard link) from one it did not', async () => {
    const made = await copyCellTree(cell, join(cell, 'node_modules/@s/srv'));
    const copy = made.ok ? made.value : '';
    // The mark made once the copy is whole; each write below dated a minute on, so it is newer whatever the clock's grain.
    const mark = join(copy, '.mcp-matrix/copied');
    mkdirSync(join(copy, '.mcp-matrix/tmp'), { recursive: true });
    writeFileSync(mark, '');
    const write = (file: string, text: string, at = Date.now() / 1000 + 60): void => {
      writeFileSync(file, text);
      utimesSync(file, at, at);
    };
    // The driver's own files (its spec, its servers' temp dirs) are not the tree.
    write(join(copy, '.mcp-matrix/tmp/scratch'), 'x');
    expect(await writtenSince(copy, mark)).toBeUndefined();
    write(join(copy, 'node_modules/@s/srv/state.json'), '{"n":1}');
    expect(await writtenSince(copy, mark)).toBe('node_modules/@s/srv/state.json');
    write(join(copy, 'node_modules/@s/srv/state.json'), '{}', 0);
    write(join(copy, 'package.json'), '{"written":true}');
    expect(await writtenSince(copy, mark)).toBe('package.json');
    write(join(copy, 'package.json'), '{}', 0);
    // A dependency's file written in place through the cell's tree is the same file in the copy.
    write(join(cell, 'node_modules/dep/index.js'), 'dep');
    expect(await writtenSince(copy, mark)).toBe('node_modules/dep/index.js');
    await removeCopy(copy);
  });

  it('a cell without node_modules cannot be copied: a typed failure, nothing left', async () => {
    const empty = join(root, 'cell-empty');
    mkdirSync(empty);
    const made = await copyCellTree(empty, join(empty, 'node_modules/x'));
    expect(made).toMatchObject({
      ok: false,
      error: { kind: 'infrastructure', message: expect.stringContaining("cannot make a copy of the cell's tree") },
    });
    expect(readFileSync(join(root, 'cell-latest-1/package.json'), 'utf8')).toBe('{}');
    expect(readdirSync(root).filter((e) => e.startsWith('cell-empty.side-'))).toEqual([]);
  });
});
