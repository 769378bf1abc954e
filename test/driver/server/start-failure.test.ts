import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashRecord } from '../../../src/driver/probe/probe-crashes.js';
import { fatalReport, portInUse, spawnFailure, startFailure } from '../../../src/driver/server/start-failure.js';

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

  it("falls back to Node's report of an uncaught error in stderr when the probe saw nothing (a server the probe did not reach)", () => {
    const stderr =
      "node:internal/modules/cjs/loader:1207\n  throw err;\n\nError: Cannot find module './nope'\nRequire stack:\n- /c/x.cjs {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/c/x.cjs' ]\n}\n\nNode.js v20.20.2\n";
    expect(startFailure([], stderr, 1, true)).toMatchObject({
      kind: 'could-not-start',
      source: 'stderr',
      cause: "Error: Cannot find module './nope' (MODULE_NOT_FOUND)",
    });
    expect(
      startFailure(
        [],
        "file:///c/b.mjs:1\nconst x = ;\n          ^\n\nSyntaxError: Unexpected token ';'\n    at y\n\nNode.js v22.23.5\n",
        1,
        true,
      ),
    ).toMatchObject({
      cause: "SyntaxError: Unexpected token ';'",
    });
    expect(startFailure([], 'refusing to bind 0.0.0.0 without MCP_SERVER_TOKEN\n', 2, true)).toBeUndefined();
  });

  it('a load error the server logged and handled is not evidence (issue 25): no report of an uncaught error ends it', () => {
    const logged =
      "keytar not available, keeping credentials in memory: Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'keytar' imported from /c/s.mjs\n    at packageResolve (node:internal/modules/esm/resolve:873:9) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n";
    expect(startFailure([], logged, 2, true)).toBeUndefined();
    // Logged at column 0, as `console.error(e)` prints it: still no trailer, still no evidence.
    expect(startFailure([], `${logged.slice(logged.indexOf('Error ['))}refusing to bind 0.0.0.0\n`, 2, true)).toBeUndefined();
    // A later uncaught error that is not a load error does not borrow the logged one's code.
    expect(
      startFailure([], `${logged.slice(logged.indexOf('Error ['))}\nRangeError: bad port\n    at z\n\nNode.js v20.20.2\n`, 1, true),
    ).toBeUndefined();
  });

  it("a crash the server's own handler took is not one; the same error re-recorded because the handler exited at once is", () => {
    const typeError = crash('TypeError', "Cannot read properties of undefined (reading 'start')");
    expect(startFailure([{ ...typeError, handled: true }], '', 2, true)).toBeUndefined();
    expect(startFailure([{ ...crash('Error', 'x', 'ERR_MODULE_NOT_FOUND'), handled: true }], '', 2, true)).toBeUndefined();
    expect(
      startFailure(
        [
          { ...typeError, handled: true },
          { ...typeError, exitedInHandler: true },
        ],
        '',
        1,
        true,
      ),
    ).toEqual({
      kind: 'crashed',
      cause: "TypeError: Cannot read properties of undefined (reading 'start')",
      source: 'probe',
    });
    expect(startFailure([{ ...typeError, handled: 'yes' }], '', 1, true)).toMatchObject({ kind: 'crashed' });
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
  // Made in beforeAll, not when the file is collected: a run that filters these tests out (vitest -t, a mutation
  // run) collects the file but runs no hook, and a directory made at collection was left in /tmp.
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mm-spawn-'));
  });
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

describe('startFailure: every load code, each evidence source, exactly', () => {
  const LOAD = [
    'ERR_MODULE_NOT_FOUND',
    'MODULE_NOT_FOUND',
    'ERR_UNSUPPORTED_DIR_IMPORT',
    'ERR_UNKNOWN_FILE_EXTENSION',
    'ERR_REQUIRE_ESM',
    'ERR_PACKAGE_PATH_NOT_EXPORTED',
    'ERR_PACKAGE_IMPORT_NOT_DEFINED',
    'ERR_INVALID_PACKAGE_CONFIG',
    'ERR_INVALID_PACKAGE_TARGET',
    'ERR_UNSUPPORTED_ESM_URL_SCHEME',
    'ERR_IMPORT_ATTRIBUTE_MISSING',
    'ERR_IMPORT_ASSERTION_TYPE_MISSING',
  ];

  it.each(LOAD)('%s is "could not start", from the probe and from stderr', (code) => {
    expect(startFailure([crash('Error', 'cannot load x', code)], '', 1, true)).toEqual({
      kind: 'could-not-start',
      cause: `Error [${code}]: cannot load x`,
      source: 'probe',
    });
    expect(startFailure([], `Error [${code}]: cannot load x\n    at y {\n  code: '${code}'\n}\n\nNode.js v20.20.2\n`, 1, true)).toEqual({
      kind: 'could-not-start',
      cause: `Error [${code}]: cannot load x`,
      source: 'stderr',
    });
    // Logged, not uncaught: no evidence.
    expect(startFailure([], `Error [${code}]: cannot load x\n    at y\n`, 1, true)).toBeUndefined();
    // A code inside a longer word is not that code.
    expect(startFailure([], `Error: cannot load x (X${code})\n\nNode.js v20.20.2\n`, 1, true)).toBeUndefined();
  });

  it('a code unknown to Node, or on a deliberate error, is neither', () => {
    expect(startFailure([crash('Error', 'no', 'ERR_SOMETHING_ELSE')], '', 1, true)).toBeUndefined();
    expect(startFailure([crash('RangeError', 'bad')], '', 1, true)).toBeUndefined();
  });

  it('TypeError and ReferenceError are crashes, with or without a code', () => {
    expect(startFailure([crash('TypeError', 'x is not a function')], '', 1, true)).toEqual({
      kind: 'crashed',
      cause: 'TypeError: x is not a function',
      source: 'probe',
    });
    const ref = { type: 'crash', name: 'ReferenceError', message: 'y is not defined' };
    expect(startFailure([ref], '', 1, true)).toEqual({ kind: 'crashed', cause: 'ReferenceError: y is not defined', source: 'probe' });
  });

  it('reads a malformed record with defaults, and skips records that are not crashes', () => {
    expect(startFailure([{ type: 'crash', name: 5, code: 7, message: null }], '', 1, true)).toBeUndefined();
    expect(startFailure([{ type: 'crash', code: 'ERR_REQUIRE_ESM' }], '', 1, true)).toEqual({
      kind: 'could-not-start',
      cause: 'Error [ERR_REQUIRE_ESM]: ',
      source: 'probe',
    });
    expect(startFailure([{ type: 'crash', name: 'SyntaxError', code: 5 }], '', 1, true)).toEqual({
      kind: 'could-not-start',
      cause: 'SyntaxError: ',
      source: 'probe',
    });
    expect(startFailure([{ type: 'listen', name: 'SyntaxError', message: 'x' }], '', 1, true)).toBeUndefined();
    // The first crash that tells wins; a deliberate one before it is passed over.
    expect(
      startFailure([crash('Error', 'deliberate'), crash('TypeError', 'first'), crash('SyntaxError', 'second')], '', 1, true),
    ).toMatchObject({ cause: 'TypeError: first' });
  });

  it("stderr: the last uncaught error's first line, trimmed; its code from the brackets, else from the `code:` line below", () => {
    const T = '\nNode.js v22.23.5\n';
    expect(startFailure([], `Error [ERR_REQUIRE_ESM]: require() of ES Module   \n    at y${T}`, 1, true)).toEqual({
      kind: 'could-not-start',
      cause: 'Error [ERR_REQUIRE_ESM]: require() of ES Module',
      source: 'stderr',
    });
    expect(startFailure([], `Error: Cannot find module 'x'\n    at y {\n  code: 'MODULE_NOT_FOUND'\n}\n${T}`, 1, true)).toMatchObject({
      cause: "Error: Cannot find module 'x' (MODULE_NOT_FOUND)",
    });
    expect(startFailure([], `prefix\nSyntaxError: Unexpected end of input\nafter${T}`, 1, true)).toEqual({
      kind: 'could-not-start',
      cause: 'SyntaxError: Unexpected end of input',
      source: 'stderr',
    });
    // An indented or mid-line error is no report's first line.
    expect(startFailure([], `a SyntaxError: not at the start${T}`, 1, true)).toBeUndefined();
    expect(startFailure([], `  Error [ERR_REQUIRE_ESM]: nested${T}`, 1, true)).toBeUndefined();
    // The trailer is the whole line, with a full version.
    expect(startFailure([], 'SyntaxError: x\nNode.js v22\n', 1, true)).toBeUndefined();
    expect(startFailure([], 'SyntaxError: x\nsee Node.js v22.1.0\n', 1, true)).toBeUndefined();
    expect(startFailure([], 'SyntaxError: x\nNode.js v22.1.0  \n', 1, true)).toMatchObject({ cause: 'SyntaxError: x' });
    expect(startFailure([], 'SyntaxError: x\nNode.js v22.10.10\n', 1, true)).toMatchObject({ cause: 'SyntaxError: x' });
    expect(startFailure([], 'SyntaxError: x\nNode.js v22.1.0 said so\n', 1, true)).toBeUndefined();
    // The code line is a line of its own, not a phrase inside the message.
    expect(fatalReport("Error: bad: see code: 'MODULE_NOT_FOUND'\n\nNode.js v20.20.2\n")).toEqual({
      name: 'Error',
      line: "Error: bad: see code: 'MODULE_NOT_FOUND'",
    });
  });

  it('stderr: of several errors, the one right before the trailer; a trailer before any error is none', () => {
    expect(
      startFailure(
        [],
        "warn: Error: old\nError [ERR_REQUIRE_ESM]: logged\nTypeError: x   \n  code: 'ERR_REQUIRE_ESM'\n\nNode.js v20.20.2",
        1,
        true,
      ),
    ).toMatchObject({
      cause: 'TypeError: x (ERR_REQUIRE_ESM)',
    });
    expect(startFailure([], 'Node.js v20.20.2\nSyntaxError: after the trailer\n', 1, true)).toBeUndefined();
    expect(
      fatalReport("Error: Cannot find module 'x'\n    at y {\n  code: 'MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\ncode: 'OTHER'\n"),
    ).toEqual({
      name: 'Error',
      code: 'MODULE_NOT_FOUND',
      line: "Error: Cannot find module 'x'",
    });
    expect(fatalReport('RangeError: bad\n\nNode.js v20.20.2\n')).toEqual({ name: 'RangeError', line: 'RangeError: bad' });
    expect(fatalReport('')).toBeUndefined();
  });

  it("126/127: the last stderr line, trimmed; none when stderr is empty; the probe's record comes first", () => {
    expect(startFailure([], 'first\n  env: bun: No such file or directory  \n\n', 127, false)).toEqual({
      kind: 'could-not-start',
      cause: 'exit code 127 (a command it runs was not found): env: bun: No such file or directory',
      source: 'exit code',
    });
    expect(startFailure([], '', 126, false)).toEqual({
      kind: 'could-not-start',
      cause: 'exit code 126 (a command it runs is not executable)',
      source: 'exit code',
    });
    expect(startFailure([], '  \n', 127, false)).toMatchObject({ cause: 'exit code 127 (a command it runs was not found)' });
    expect(startFailure([], '', 128, false)).toBeUndefined();
    expect(startFailure([], '', 125, false)).toBeUndefined();
    expect(startFailure([crash('TypeError', 'x')], '', 127, false)).toMatchObject({ source: 'probe' });
  });
});

describe('spawnFailure, exactly', () => {
  // Made in beforeAll, not when the file is collected: a run that filters these tests out (vitest -t, a mutation
  // run) collects the file but runs no hook, and a directory made at collection was left in /tmp.
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mm-spawn-exact-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const err = (code?: string): NodeJS.ErrnoException => Object.assign(new Error(`spawn x ${code ?? ''}`.trim()), code ? { code } : {});

  it('ENOENT on a bin that exists: its interpreter (the program, not its arguments) or the bin itself', () => {
    const env = join(dir, 'via-env');
    writeFileSync(env, '#!/usr/bin/env node\n');
    expect(spawnFailure(err('ENOENT'), env, 'bin/via-env')).toEqual({
      verdict: 'failed',
      cause: 'bin/via-env could not be executed (spawn ENOENT)',
    });
    const spaced = join(dir, 'spaced');
    writeFileSync(spaced, `#!  ${join(dir, 'nope')}   -x\nrest\n`);
    expect(spawnFailure(err('ENOENT'), spaced, 'bin/spaced')).toEqual({
      verdict: 'failed',
      cause: `the interpreter its #! line names, ${join(dir, 'nope')}, does not exist (spawn ENOENT)`,
    });
    const plain = join(dir, 'plain');
    writeFileSync(plain, 'echo #!/nowhere\n');
    expect(spawnFailure(err('ENOENT'), plain, 'bin/plain')).toEqual({
      verdict: 'failed',
      cause: 'bin/plain could not be executed (spawn ENOENT)',
    });
    // Only the first 256 characters are read: a #! line longer than that names a truncated program.
    const long = join(dir, 'long');
    writeFileSync(long, `#!/${'a'.repeat(300)}\n`);
    expect(spawnFailure(err('ENOENT'), long, 'bin/long').cause).toBe(
      `the interpreter its #! line names, /${'a'.repeat(253)}, does not exist (spawn ENOENT)`,
    );
    // A directory cannot be read as a file: no interpreter to blame.
    expect(spawnFailure(err('ENOENT'), dir, 'bin')).toEqual({ verdict: 'failed', cause: 'bin could not be executed (spawn ENOENT)' });
  });

  it('EACCES and ENOEXEC name the bin; anything else is the machine, with the code and message', () => {
    const bin = join(dir, 'x');
    writeFileSync(bin, 'x');
    expect(spawnFailure(err('EACCES'), bin, 'bin/x')).toEqual({
      verdict: 'failed',
      cause: 'bin/x (or its interpreter) is not executable (spawn EACCES)',
    });
    expect(spawnFailure(err('ENOEXEC'), bin, 'bin/x')).toEqual({
      verdict: 'failed',
      cause: 'bin/x is not an executable format and has no #! line (spawn ENOEXEC)',
    });
    expect(spawnFailure(err('EMFILE'), bin, 'bin/x')).toEqual({
      verdict: 'not-measured',
      cause: 'the machine could not start a process (spawn EMFILE: spawn x EMFILE)',
    });
    expect(spawnFailure(err(), bin, 'bin/x')).toEqual({
      verdict: 'not-measured',
      cause: 'the machine could not start a process (spawn error: spawn x)',
    });
  });
});

describe('portInUse, exactly', () => {
  it('needs both EADDRINUSE and the port as a whole number after a colon', () => {
    expect(portInUse([], 'listen EADDRINUSE 127.0.0.1 4123\n', 4123)).toBeUndefined();
    expect(portInUse([], 'address already in use 127.0.0.1:4123\n', 4123)).toBeUndefined();
    expect(portInUse([], 'x EADDRINUSE :41235\n', 4123)).toBeUndefined();
    expect(portInUse([], 'first\n  x EADDRINUSE [::1]:4123  \nx EADDRINUSE :4123 second\n', 4123)).toBe('x EADDRINUSE [::1]:4123');
  });

  it("reads only crash records with a string message; the probe's record before stderr", () => {
    const msg = 'listen EADDRINUSE: address already in use 0.0.0.0:4123';
    expect(portInUse([{ type: 'listen', message: msg }], '', 4123)).toBeUndefined();
    expect(portInUse([{ type: 'crash', message: 4123 }], '', 4123)).toBeUndefined();
    expect(
      portInUse(
        [
          { type: 'crash', message: 'other' },
          { type: 'crash', message: msg },
        ],
        `Error: ${msg}\n`,
        4123,
      ),
    ).toBe(msg);
  });
});
