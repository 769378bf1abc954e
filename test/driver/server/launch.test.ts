import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNodeScript, launchOf, launchOfShebang, splitString } from '../../../src/driver/server/launch.js';

const node = (flags: string[], env: Record<string, string> = {}) => ({ kind: 'node', flags, env });

describe('launchOfShebang: the `#!` line as Linux and env read it', () => {
  it.each([
    ['#!/usr/bin/env node', node([])],
    ['#!/usr/bin/env nodejs', node([])],
    ['#!/usr/bin/node', node([])],
    ['#! /usr/local/bin/node\r', node([])],
    ['#!/usr/bin/env -S node --expose-gc', node(['--expose-gc'])],
    ['#!/usr/bin/env -S node --import tsx', node(['--import', 'tsx'])],
    ['#!/usr/bin/env -S node --experimental-sqlite --no-warnings  ', node(['--experimental-sqlite', '--no-warnings'])],
    ['#!/usr/bin/env --split-string=node --expose-gc', node(['--expose-gc'])],
    ['#!/usr/bin/env -S NODE_ENV=production node --expose-gc', node(['--expose-gc'], { NODE_ENV: 'production' })],
    ['#!/usr/bin/env -S node --title="a b" # comment', node(['--title=a b'])],
    // The kernel passes the rest of the line as one argument: node gets "--a --b", as it would in a shell.
    ['#!/usr/bin/node --a --b', node(['--a --b'])],
    ['#!/usr/bin/node --expose-gc', node(['--expose-gc'])],
  ])('%s → the variant’s Node', (line, want) => {
    expect(launchOfShebang(line)).toEqual(want);
  });

  it.each([
    ['#!/bin/sh', '/bin/sh'],
    ['#!/usr/bin/env ts-node', 'ts-node'],
    ['#!/usr/bin/env babel-node', 'babel-node'],
    ['#!/usr/bin/env -S ts-node --esm', 'ts-node'],
    ['#!/usr/local/bin/ts-node', '/usr/local/bin/ts-node'],
    ['#!/usr/bin/env python3', 'python3'],
    // Without -S env looks for a program named "node --expose-gc": it fails, as in a shell.
    ['#!/usr/bin/env node --expose-gc', 'node --expose-gc'],
    // env's own options and expansions are env's to do.
    ['#!/usr/bin/env -S -i node', '/usr/bin/env'],
    ['#!/usr/bin/env -S node ${FLAGS}', '/usr/bin/env'],
    ['#!/usr/bin/env', '/usr/bin/env'],
  ])('%s → run as is (%s)', (line, interpreter) => {
    expect(launchOfShebang(line)).toEqual({ kind: 'as-is', interpreter });
  });

  it('an empty `#!` line names no interpreter', () => {
    expect(launchOfShebang('#!')).toEqual({ kind: 'as-is' });
  });
});

describe('splitString (env -S)', () => {
  it.each([
    ['a  b\tc', ['a', 'b', 'c']],
    [`'x y' "p q" r\\_s`, ['x y', 'p q', 'r s']],
    [`"a\\"b" 'c\\d'`, ['a"b', 'c\\d']],
    [`a\\tb a\\nb`, ['a\tb', 'a\nb']],
    [`a \\c b`, ['a']],
    [`'' b`, ['', 'b']],
    ['a #b c', ['a']],
    ['a#b', ['a#b']],
    ['', []],
  ])('%j → %j', (text, words) => {
    expect(splitString(text)).toEqual(words);
  });

  it.each([[`'open`], [`"open`], ['trail\\'], ['${X}'], ['"$X"']])('%j: left to env (null)', (text) => {
    expect(splitString(text)).toBeNull();
  });
});

describe('launchOf: a bin file', () => {
  // Made in beforeAll, not when the file is collected: a run that filters these tests out (vitest -t, a mutation
  // run) collects the file but runs no hook, and a directory made at collection was left in /tmp.
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mm-launch-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    chmodSync(p, 0o755);
    return p;
  };

  it('reads the `#!` line before the extension', () => {
    expect(launchOf(file('gc.js', '#!/usr/bin/env -S node --expose-gc\nx\n'))).toEqual(node(['--expose-gc']));
    expect(launchOf(file('ts.js', '#!/usr/bin/env ts-node\n'))).toEqual({ kind: 'as-is', interpreter: 'ts-node' });
    expect(isNodeScript(file('server', '#!/usr/bin/env node\n'))).toBe(true);
    expect(isNodeScript(file('wrapper', '#!/bin/sh\nexec node x.js\n'))).toBe(false);
  });

  it('without a `#!` line, a .js/.mjs/.cjs file is Node and anything else runs as is', () => {
    expect(launchOf(file('plain.mjs', 'export {}\n'))).toEqual(node([]));
    expect(isNodeScript(file('plain.cjs', ''))).toBe(true);
    expect(isNodeScript(file('plain.js', ''))).toBe(true);
    expect(launchOf(file('binary', '\x7fELF'))).toEqual({ kind: 'as-is' });
    expect(launchOf(join(dir, 'missing'))).toEqual({ kind: 'as-is' });
    expect(isNodeScript('/nonexistent/server.mjs')).toBe(true);
  });
});
