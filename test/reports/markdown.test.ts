import { describe, expect, test } from 'vitest';
import { renderMarkdown, renderTable } from '../../src/reports/index.js';
import { FOUR_CELLS, makeRun } from './helpers/make-run.js';

const HEADER =
  '| Pin (role) | Node | package version | Tools | Resource templates | Prompts | protocol | leaked handles | stdio | HTTP (401 + round trip) | bind refusal | time |';

describe('renderTable', () => {
  test('a passing 4-cell run renders the ADR table', () => {
    expect(renderTable(makeRun())).toBe(
      [
        HEADER,
        '| --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- | --- |',
        '| 1.24.0 (lower supported boundary) | v22.11.0 | 0.3.0 | 5 | 2 | 2 | 2025-06-18 | none | ok | ok | ok | 5.0 s |',
        '| latest@1 → 1.32.2 (latest supported 1.x) | v22.11.0 | 0.3.0 | 5 | 2 | 2 | 2025-06-18 | none | ok | ok | ok | 5.0 s |',
        '| 2.0.0 (representative 2.x) · node 2.0.0 | v22.11.0 | 0.3.0 | 5 | 2 | 2 | 2025-06-18 | none | ok | ok | ok | 5.0 s |',
        '| latest@2 → 2.1.0 (latest supported 2.x) · node 2.1.0 | v22.11.0 | 0.3.0 | 5 | 2 | 2 | 2025-06-18 | none | ok | ok | ok | 5.0 s |',
      ].join('\n'),
    );
  });

  test('disabled phases show n/a, never ok', () => {
    const [floor] = FOUR_CELLS;
    const run = makeRun([{ ...floor!, phases: { bind: { verdict: 'skipped' }, leaks: { verdict: 'skipped' } } }]);
    const row = renderTable(run).split('\n')[2];
    expect(row).toBe('| 1.24.0 (lower supported boundary) | v22.11.0 | 0.3.0 | 5 | 2 | 2 | 2025-06-18 | n/a | ok | ok | n/a | 5.0 s |');
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
    expect(allowed).toContain('| 2.0.0 (representative 2.x) · node 2.0.0 — allowed to fail |');
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
      '| latest@1 → 1.32.2 (latest supported 1.x) — no result | — | 0.3.0 | — | — | — | — | not measured | not measured | not measured | not measured | — |',
    );
  });

  test('a --cell run shows only its selected cells; a lost selected cell is not measured', () => {
    const run = makeRun();
    run.plan.selected = ['v2-rep'];
    run.cells = [];
    const rows = renderTable(run).split('\n').slice(2);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^\| 2\.0\.0 \(representative 2\.x\) · node 2\.0\.0 — no result \|/);
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
