import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crashRecord } from '../../src/driver/probe.js';
import { portInUse, spawnFailure, startFailure } from '../../src/driver/start-failure.js';

const crash = (name: string, message: string, code?: string): Record<string, unknown> =>
  crashRecord(
    Object.assign(new (name === 'SyntaxError' ? SyntaxError : name === 'TypeError' ? TypeError : Error)(message), code ? { code } : {}),
    'uncaughtException',
  );

describe('startFailure: a crash while loading is not a refusal', () => {
  it('names a module that cannot be found, from the probe', () => {
    const records = [
      { type: 'listen', port: 1 },
      crash('Error', "Cannot find module '/c/dist/x.js' imported from /c/bin/s.js\nmore", 'ERR_MODULE_NOT_FOUND'),
    ];
    expect(startFailure(records, '', 1, true)).toEqual({
      kind: 'could-not-start',
      cause: "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/c/dist/x.js' imported from /c/bin/s.js",
      source: 'probe',
    });
  });

  it('a syntax error is could-not-start; a TypeError is a crash; a deliberate Error is neither', () => {
    expect(startFailure([crash('SyntaxError', "Unexpected token ';'")], '', 1, true)).toMatchObject({
      kind: 'could-not-start',
      cause: "SyntaxError: Unexpected token ';'",
    });
    expect(startFailure([crash('TypeError', "Cannot read properties of undefined (reading 'x')")], '', 1, true)).toMatchObject({
      kind: 'crashed',
    });
    expect(startFailure([crash('Error', 'refusing to bind 0.0.0.0 without a token')], '', 1, true)).toBeUndefined();
  });

  it('falls back to stderr when the probe saw nothing (a server the probe did not reach)', () => {
    const stderr =
      "node:internal/modules/cjs/loader:1207\n  throw err;\n\nError: Cannot find module './nope'\nRequire stack:\n- /c/x.cjs {\n  code: 'MODULE_NOT_FOUND',";
    expect(startFailure([], stderr, 1, true)).toMatchObject({
      kind: 'could-not-start',
      source: 'stderr',
      cause: "Error: Cannot find module './nope' (MODULE_NOT_FOUND)",
    });
    expect(startFailure([], "file:///c/b.mjs:1\nconst x = ;\n\nSyntaxError: Unexpected token ';'\n", 1, true)).toMatchObject({
      cause: "SyntaxError: Unexpected token ';'",
    });
    expect(startFailure([], 'refusing to bind 0.0.0.0 without MCP_SERVER_TOKEN\n', 2, true)).toBeUndefined();
  });

  it("reads 126/127 as the shell's cannot-execute only for a bin the harness did not run with Node", () => {
    expect(startFailure([], 'sh: 1: python9: not found\n', 127, false)).toEqual({
      kind: 'could-not-start',
      cause: 'exit code 127 (a command it runs was not found): sh: 1: python9: not found',
      source: 'exit code',
    });
    expect(startFailure([], '', 126, false)).toMatchObject({ cause: 'exit code 126 (a command it runs is not executable)' });
    expect(startFailure([], '', 127, true)).toBeUndefined();
    expect(startFailure([], '', 2, false)).toBeUndefined();
  });
});

describe('spawnFailure: the package is to blame, or the machine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mm-spawn-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const err = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`spawn x ${code}`), { code });

  it('names a missing #! interpreter, a missing bin, a bin that is not executable', () => {
    const bin = join(dir, 'server');
    writeFileSync(bin, '#!/opt/nowhere/bin/bun --smol\nconsole.log(1)\n');
    chmodSync(bin, 0o755);
    expect(spawnFailure(err('ENOENT'), bin, 'bin/server')).toEqual({
      verdict: 'failed',
      cause: 'the interpreter its #! line names, /opt/nowhere/bin/bun, does not exist (spawn ENOENT)',
    });
    expect(spawnFailure(err('ENOENT'), join(dir, 'gone'), 'bin/gone')).toEqual({
      verdict: 'failed',
      cause: 'bin/gone does not exist (spawn ENOENT)',
    });
    expect(spawnFailure(err('EACCES'), bin, 'bin/server')).toMatchObject({
      verdict: 'failed',
      cause: expect.stringContaining('not executable'),
    });
  });

  it('a machine that cannot start a process is not measured', () => {
    expect(spawnFailure(err('EAGAIN'), join(dir, 'server'), 'bin/server')).toMatchObject({
      verdict: 'not-measured',
      cause: expect.stringContaining('EAGAIN'),
    });
  });
});

describe('portInUse: EADDRINUSE on the harness port is a race, not a verdict', () => {
  const record = crashRecord(
    Object.assign(new Error('listen EADDRINUSE: address already in use 0.0.0.0:4123'), { code: 'EADDRINUSE' }),
    'uncaughtException',
  );
  it('from the probe or stderr, on that port only', () => {
    expect(portInUse([record], '', 4123)).toBe('listen EADDRINUSE: address already in use 0.0.0.0:4123');
    expect(portInUse([record], '', 41234)).toBeUndefined();
    expect(portInUse([], 'server: Error: listen EADDRINUSE: address already in use :::4123\n    at x\n', 4123)).toBe(
      'server: Error: listen EADDRINUSE: address already in use :::4123',
    );
    expect(portInUse([], 'refusing to bind 0.0.0.0:4123 without a token\n', 4123)).toBeUndefined();
  });
});
