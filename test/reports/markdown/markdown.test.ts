import { describe, expect, test } from 'vitest';
import { renderMarkdown, renderTable } from '../../../src/reports/index.js';
import { FOUR_CELLS, makeRun } from '../helpers/make-run.js';

const HEADER =
  '| Pin (role) | Tools | Resources | Resource templates | Prompts | protocol | leaked handles | stdio | HTTP (401 + round trip) | bind refusal | conformance suite | time |';

describe('renderTable', () => {
  test('a passing 4-cell run renders the ADR table', () => {
    expect(renderTable(makeRun())).toBe(
      [
        HEADER,
        '| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | --- | --- | --- |',
        '| 1.24.0 (lower supported boundary) | 5 | — | 2 | 2 | 2025-06-18 | none | ok | ok | ok | ok | 5.0 s |',
        '| latest@1 → 1.32.2 (latest supported 1.x) | 5 | — | 2 | 2 | 2025-06-18 | none | ok | ok | ok | ok | 5.0 s |',
        '| 2.0.0 (representative 2.x) · adapter @modelcontextprotocol/node 2.0.0 | 5 | — | 2 | 2 | 2025-06-18 | none | ok | ok | ok | ok | 5.0 s |',
        '| latest@2 → 2.1.0 (latest supported 2.x) · adapter @modelcontextprotocol/node 2.1.0 | 5 | — | 2 | 2 | 2025-06-18 | none | ok | ok | ok | ok | 5.0 s |',
      ].join('\n'),
    );
  });

  test('disabled phases show n/a, never ok', () => {
    const [floor] = FOUR_CELLS;
    const run = makeRun([{ ...floor!, phases: { bind: { verdict: 'skipped' }, leaks: { verdict: 'skipped' } } }]);
    const row = renderTable(run).split('\n')[2];
    // One row: nothing is constant across rows, Node.js and the package version stay in the table.
    expect(row).toBe(
      '| 1.24.0 (lower supported boundary) | v22.11.0 | 0.3.0 | 5 | — | 2 | 2 | 2025-06-18 | n/a | ok | ok | n/a | ok | 5.0 s |',
    );
    expect(run.verdict).toBe('passed');
  });

  test('a phase left out of the config reads "skipped (not configured)", one set to false "skipped (disabled)"', () => {
    const [floor] = FOUR_CELLS;
    const run = makeRun([
      {
        ...floor!,
        phases: { http: { verdict: 'skipped', message: 'not configured' }, bind: { verdict: 'skipped', message: 'disabled' } },
      },
    ]);
    const row = renderTable(run).split('\n')[2];
    expect(row).toContain('| ok | skipped (not configured) | skipped (disabled) |');
    expect(run.verdict).toBe('passed');
  });

  test('allowed failure and stale allowance are marked', () => {
    const [, , rep, latest] = FOUR_CELLS;
    const run = makeRun([
      { ...rep!, allowedToFail: true, phases: { http: { verdict: 'failed', message: 'no 401' } } },
      { ...latest!, allowedToFail: true },
    ]);
    const [, , allowed, stale] = renderTable(run).split('\n');
    expect(allowed).toContain('| 2.0.0 (representative 2.x) · adapter @modelcontextprotocol/node 2.0.0 — allowed to fail |');
    expect(allowed).toContain('| ok | FAIL (allowed) | ok |');
    expect(stale).toContain('— STALE ALLOWANCE: passed while allowedToFail |');
    expect(run.exitCode).toBe(1);
    const md = renderMarkdown(run);
    expect(md).toContain('### v2-latest · stale allowance');
    expect(md).toContain('**FAIL (allowed)**: no 401');
  });

  test('not measured phases and cells without a result', () => {
    const [floor, v1] = FOUR_CELLS;
    const run = makeRun([{ ...floor!, phases: { http: { verdict: 'not-measured', message: 'registry down' } } }, v1!]);
    run.cells.pop();
    const [, , measured, missing] = renderTable(run).split('\n');
    expect(measured).toContain('| none | ok | not measured | ok |');
    expect(missing).toBe(
      '| latest@1 → 1.32.2 (latest supported 1.x) — no result | — | — | — | — | — | not measured | not measured | not measured | not measured | not measured | — |',
    );
  });

  test('a --cell run shows only its selected cells; a lost selected cell is not measured', () => {
    const run = makeRun();
    run.plan.selected = ['v2-rep'];
    run.cells = [];
    const rows = renderTable(run).split('\n').slice(2);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^\| 2\.0\.0 \(representative 2\.x\) · adapter @modelcontextprotocol\/node 2\.0\.0 — no result \|/);
  });

  test('leaked handles: a count, and FAIL when the phase failed', () => {
    const [floor] = FOUR_CELLS;
    const leak = { owner: 'server:stdio', type: 'Timeout', location: 'dist/server.js:42', createdBy: 'setInterval' };
    const run = makeRun([
      { ...floor!, phases: { leaks: { verdict: 'failed', message: '1 live handle' } }, summary: { leakedHandles: [leak] } },
    ]);
    expect(renderTable(run)).toContain('| 2025-06-18 | FAIL · 1 | ok |');
    expect(renderMarkdown(run)).toContain('- Timeout created by setInterval at dist/server.js:42 (server:stdio)');
  });
});

describe('renderMarkdown', () => {
  test('title names verdict, date, package, short sha512 and config hash', () => {
    const first = renderMarkdown(makeRun()).split('\n')[0];
    expect(first).toBe('# mcp-matrix: PASSED · 2026-08-25 · `@acme/notes-mcp@0.3.0` · sha512 `Q2FmZWJhYmVE` · config `9f86d081884c`');
  });

  test('a failed phase gets a section with step, stderr, noise and repro', () => {
    const [floor] = FOUR_CELLS;
    const run = makeRun([
      {
        ...floor!,
        phases: {
          stdio: {
            verdict: 'failed',
            message: 'tools/call add-note: expected text "saved"',
            step: 'tools/call add-note',
            stderrTail: 'Error: disk full\n    at save (dist/store.js:9)',
            stdoutNoise: ['debug: started'],
          },
        },
      },
    ]);
    const md = renderMarkdown(run);
    const section = md.slice(md.indexOf('### v1-floor · stdio'), md.indexOf('## Environment'));
    expect(section).toContain('**FAIL**: tools/call add-note: expected text "saved"');
    expect(section).toContain('- Step: tools/call add-note');
    expect(section).toContain('```text\nError: disk full\n    at save (dist/store.js:9)\n```');
    expect(section).toContain('```text\ndebug: started\n```');
    expect(section).toContain('Reproduce:\n\n```sh\nnpx mcp-matrix run --cell v1-floor\n```');
    expect(md.startsWith('# mcp-matrix: FAILED')).toBe(true);
  });

  test('environment section lists SDK packages, install and lockfile', () => {
    const md = renderMarkdown(makeRun());
    expect(md).toContain('- Host: Node v22.11.0 · npm 10.9.0 · linux x64');
    expect(md).toContain('sha512 `sha512-Q2FmZWJhYmVEZWFkQmVlZjAxMjM0NTY3ODlhYmNkZWY=`');
    expect(md).toContain('| @modelcontextprotocol/node | 2.0.0 | node_modules/@modelcontextprotocol/node |');
    expect(md).toContain('- Installed in 8.4 s, 1 attempt · lockfile sha256 `' + 'ab'.repeat(32) + '`');
    expect(md).not.toContain('## Failures');
  });

  test('environment section lists the SDK copies the running servers loaded', () => {
    const run = makeRun();
    run.cells[0]!.environment!.loadedSdk = [
      {
        server: 'stdio',
        probe: true,
        nodeBin: true,
        answered: true,
        copies: [{ name: '@modelcontextprotocol/sdk', version: '1.24.0', path: 'node_modules/@modelcontextprotocol/sdk' }],
      },
      { server: 'http', probe: true, nodeBin: true, answered: true, copies: [] },
      { server: 'http', probe: false, nodeBin: false, answered: true, copies: [] },
    ];
    const md = renderMarkdown(run);
    expect(md).toContain('| server | loaded SDK package | version | path |');
    expect(md).toContain('| stdio | @modelcontextprotocol/sdk | 1.24.0 | node_modules/@modelcontextprotocol/sdk |');
    expect(md).toContain('| http | none (answered without loading an SDK copy) | | |');
    expect(md).toContain('| http | not observed (the probe did not load) | | |');
  });

  test('is deterministic', () => {
    expect(renderMarkdown(makeRun())).toBe(renderMarkdown(makeRun()));
  });
});

describe('the headline says why the run failed', () => {
  const [floor, v1, rep, latest] = FOUR_CELLS;
  const reasonLine = (md: string) => md.split('\n').find((l) => l.startsWith('**Why'));

  test('lockstep, in the lines under the headline (not only in Warnings)', () => {
    const lockstep = 'lockstep: the package declares @modelcontextprotocol/sdk ^1.30.0 but no cell pins 1.30.0';
    const run = makeRun([floor!, v1!], { lockstepErrors: [lockstep], warnings: [lockstep] });
    Object.assign(run, { verdict: 'failed', exitCode: 1 });
    const md = renderMarkdown(run);
    expect(md.split('\n').slice(0, 5).join('\n')).toContain(`**Why FAILED:** ${lockstep.replace(/\^/g, '^')}`);
  });

  test('stale allowance, missing cell and failed phases, each named', () => {
    const run = makeRun([
      { ...floor!, phases: { stdio: { verdict: 'failed', message: 'x' } } },
      { ...v1!, allowedToFail: true },
      rep!,
      latest!,
    ]);
    run.cells.pop();
    expect(reasonLine(renderMarkdown(run))).toBe(
      '**Why FAILED:** stale allowance: v1-latest passed but is marked allowedToFail; missing cell: v2-latest (no result); phases failed: v1-floor · stdio',
    );
  });

  test('not measured names the phases; a passing run has no reason line', () => {
    const run = makeRun([{ ...floor!, phases: { http: { verdict: 'not-measured', message: 'port' } } }, v1!]);
    expect(reasonLine(renderMarkdown(run))).toBe('**Why NOT MEASURED:** not measured: v1-floor · http');
    expect(reasonLine(renderMarkdown(makeRun()))).toBeUndefined();
  });
});

describe('constant values move to the header; the adapter and resources are columns of their own', () => {
  test('one Node.js and one package version on every row: said once under the headline, not in the table', () => {
    const md = renderMarkdown(makeRun());
    expect(md).toContain('\n\nNode.js v22.11.0 · package version 0.3.0 (every cell)\n');
    expect(renderTable(makeRun())).not.toContain('v22.11.0');
  });

  test('a value that differs between rows stays a column', () => {
    const run = makeRun();
    run.cells[1]!.environment!.node = 'v20.19.0';
    const table = renderTable(run);
    expect(table.split('\n')[0]).toContain('| Node.js | Tools |');
    expect(renderMarkdown(run)).toContain('\n\npackage version 0.3.0 (every cell)\n');
  });

  test('Resources is its own column, and the Node adapter is labelled as the adapter', () => {
    const [, , rep] = FOUR_CELLS;
    const run = makeRun([{ ...rep!, summary: { resources: 3 } }]);
    const [header, , row] = renderTable(run).split('\n');
    expect(header).toContain('| Tools | Resources | Resource templates |');
    expect(row).toContain('| 5 | 3 | 2 |');
    expect(row).toContain('2.0.0 (representative 2.x) · adapter @modelcontextprotocol/node 2.0.0 |');
    expect(row).not.toMatch(/· node /);
  });
});
