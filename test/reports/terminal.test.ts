import { describe, expect, it } from 'vitest';
import { renderTerminalFailures, STDERR_LINES, stderrTail } from '../../src/reports/terminal.js';
import { makeRun } from './helpers/make-run.js';

describe('after the run, the terminal says why', () => {
  it('prints each failing phase message, its step, the server stderr tail and the repro', () => {
    const run = makeRun([
      {
        id: 'v1-floor',
        pin: '1.24.0',
        version: '1.24.0',
        major: 1,
        phases: {
          stdio: {
            verdict: 'failed',
            message: 'the server exited (code 1) before answering initialize',
            step: 'initialize',
            stderrTail: "node:internal/modules/esm/resolve:275\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/dist/index.js'\n",
          },
        },
      },
      { id: 'v2-rep', pin: '2.0.0', version: '2.0.0', major: 2 },
    ]);
    expect(renderTerminalFailures(run)).toEqual([
      'v1-floor · stdio: FAIL: the server exited (code 1) before answering initialize',
      '  step: initialize',
      '  server stderr (last 2 lines):',
      '  │ node:internal/modules/esm/resolve:275',
      "  │ Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/dist/index.js'",
      '  reproduce: npx mcp-matrix run --cell v1-floor',
    ]);
  });

  it('a not-measured phase is named as such, without a repro line (not the package’s failure)', () => {
    const run = makeRun([
      { id: 'c', pin: '1.24.0', version: '1.24.0', major: 1, phases: { http: { verdict: 'not-measured', message: 'port race' } } },
    ]);
    expect(renderTerminalFailures(run)).toEqual(['c · http: not measured: port race']);
  });

  it('bounds the stderr tail (lines and width) and strips terminal control codes', () => {
    const many = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const tail = stderrTail(`${many}\n\u001b[31m${'x'.repeat(1000)}\u001b[0m`);
    expect(tail).toHaveLength(STDERR_LINES);
    expect(tail.at(-1)).toBe(`${'x'.repeat(150)} … ${'x'.repeat(150)}`);
    // A long line keeps its end too: the file Node names after "imported from" is the cause.
    const path = `/tmp/cells/latest-1/node_modules/.pnpm/${'p'.repeat(300)}/node_modules/srv/dist/index.js`;
    const [line] = stderrTail(`Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from ${path}`);
    expect(line).toMatch(
      /^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package 'zod' imported from \/tmp\/cells\/.* … p+\/node_modules\/srv\/dist\/index\.js$/,
    );
    expect(line).toHaveLength(303);
    expect(tail[0]).toBe(`line ${40 - STDERR_LINES + 1}`);
  });

  it('a passing run prints nothing', () => {
    expect(renderTerminalFailures(makeRun())).toEqual([]);
  });
});
