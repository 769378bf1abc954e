// matrix.html as text: self-contained (its own style and script, admitted by hash, nothing loaded), the
// grid's marks and words, the expandable details of a failure, the heat map of a cell's variants, hostile
// server text kept inert, ids safe from any cell name, and the size of 48 variants. The browser half is
// html.browser.test.ts.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseResults, renderHtml } from '../../src/reports/index.js';
import { anchor } from '../../src/reports/html/escape.js';
import type { RunResult } from '../../src/results/types.js';
import { CLIENT_NEW, CLIENT_OLD, FOUR_CELLS, makeRun, NODE_20, NODE_22, variantSpecs } from './helpers/make-run.js';

const EVIL = '</pre><script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "quoted" \'single\'';

function failingRun(): RunResult {
  const [floor, v1] = FOUR_CELLS;
  return makeRun([
    {
      ...floor!,
      phases: {
        stdio: {
          verdict: 'failed',
          step: 'tools/call crash',
          message: `the server exited with code 1 ${EVIL}`,
          stderrTail: `line one\nError: BROKEN ${EVIL}\n`,
          stdoutNoise: [`noise ${EVIL}`],
        },
        leaks: { verdict: 'failed', message: '1 live handle after stdin closed' },
      },
      summary: { leakedHandles: [{ owner: 'server:stdio', type: 'Timeout', createdBy: 'setInterval', location: `dist/${EVIL}.js:4` }] },
    },
    v1!,
  ]);
}

const read = (file: string): RunResult => {
  const parsed = parseResults(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.run;
};

// Seconds of CPU per test (big reports rendered and written); beside test:unit under load 27 up to 9 s seen: a hang guard
// well above that, not the unit project's 20 s.
describe('renderHtml', { timeout: 60_000 }, () => {
  test('self-contained: one inline style and one inline script, each admitted by its hash; nothing to load', () => {
    const html = renderHtml(failingRun());
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html.match(/<style\b/g)).toHaveLength(1);
    expect(html).not.toMatch(/<(link|iframe|object|embed|img|base)\b/i);
    expect(html).not.toMatch(/<[a-z][^>]*\s(src|href)="?(https?:|\/\/)/i);
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)![1]!.replace(/&#39;/g, "'");
    expect(csp).toContain(`default-src 'none'`);
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(csp).toContain(`style-src ${hash(style)}`);
  });

  test('deterministic: the same results render the same bytes', () => {
    expect(renderHtml(failingRun())).toBe(renderHtml(failingRun()));
  });

  test('server text is escaped everywhere: no tag, attribute or entity of its own survives', () => {
    const html = renderHtml(failingRun());
    expect(html).not.toContain('<script>window');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</pre><script');
    expect(html).toContain(
      // In element content only `& < >` mean anything; quotes stay (an attribute value escapes them too: attr()).
      '&lt;/pre&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror="window.pwned=2"&gt; &amp; "quoted" \'single\'',
    );
    expect(html).not.toMatch(/<[a-z]+ [^>]*onerror=/);
  });

  test('a failing square: mark and word, a closed panel with the message, step, stderr, stdout, handles, repro', () => {
    const html = renderHtml(failingRun());
    const square = /<td class="sq s-fail problem" id="sq-v1-floor--stdio"[\s\S]*?<\/td>\s*<td class="sq/.exec(html)![0];
    expect(square).toContain('aria-controls="p-v1-floor--stdio"');
    expect(square).toContain('✗ FAIL</button>');
    expect(square).toContain('<div class="panel" id="p-v1-floor--stdio" hidden>');
    expect(square).toContain('<section class="detail" id="v-v1-floor--stdio">');
    expect(square).toContain('<dt>Step</dt><dd>tools/call crash</dd>');
    expect(square).toContain('Server stderr (last 2 lines, masked)');
    expect(square).toContain('Error: BROKEN &lt;/pre&gt;');
    expect(square).toContain('noise &lt;/pre&gt;');
    expect(square).toContain('<code>npx mcp-matrix run --cell v1-floor</code>');
    const leaks = /id="v-v1-floor--leaks"[\s\S]*?<\/section>/.exec(html)![0];
    expect(leaks).toContain('<h5>Live handles</h5><ul><li>Timeout created by setInterval at dist/&lt;/pre&gt;');
    // A passing square says so in words too, and has nothing to open.
    expect(html).toMatch(/<td class="sq s-pass" id="sq-v1-latest--stdio"[^>]*><span class="word">✓ ok<\/span><\/td>/);
    // The row of a failing cell is kept by "failures only"; a passing row is not.
    expect(html).toContain('<tr class="row problem" id="cell-v1-floor">');
    expect(html).toContain('<tr class="row" id="cell-v1-latest">');
  });

  test('the header names the package, tarball sha, commit, harness, Node and time; the failures list links each failure', () => {
    const run = failingRun();
    run.plan.package.commit = 'abc1234';
    const html = renderHtml(run);
    for (const fact of [
      '@acme/notes-mcp@0.3.0',
      run.plan.tarball.sha512,
      'abc1234',
      'mcp-matrix 0.1.0',
      'v22.11.0',
      '2026-08-25T10:00:00.000Z',
    ])
      expect(html).toContain(fact);
    expect(html).toContain('Failures (2)');
    expect(html).toContain('<a href="#v-v1-floor--stdio" data-open="">v1-floor · stdio</a>');
    expect(html).toContain('<h2>Surface parity</h2>');
  });

  test('sub-checks of a phase are listed in its square, a warning expands too', () => {
    const run = makeRun([
      {
        ...FOUR_CELLS[0]!,
        phases: {
          http: {
            verdict: 'passed',
            checks: [
              {
                id: 'origin',
                outcome: 'failed',
                level: 'warn',
                requirement: 'MUST',
                message: 'a foreign Origin got 200 (want 403)',
                short: '200 (want 403)',
              },
              { id: 'round-trip', outcome: 'passed', level: 'require', message: 'tools/call echo answered' },
            ],
          },
        },
      },
    ]);
    const html = renderHtml(run);
    const square = /<td class="sq s-warn" id="sq-v1-floor--http"[\s\S]*?<\/td>\s*<td class="sq/.exec(html)![0];
    expect(square).toContain('! ok · warn origin 200 (want 403)</button>');
    expect(square).toContain('<tr class="s-warn"><td class="m">! warn</td><td>origin</td><td>a foreign Origin got 200 (want 403)</td>');
    expect(square).toContain('<tr class="s-pass"><td class="m">✓ pass</td><td>round-trip</td>');
    // A warning is no failure: the row is not kept by "failures only".
    expect(html).toContain('<tr class="row" id="cell-v1-floor">');
    // The sub-check table: one row per check, its requirement, a mark and a word per cell.
    const table = /<section id="checks">[\s\S]*?<\/section>/.exec(html)![0];
    expect(table).toContain('<tr class="row"><th scope="row">http › origin</th><td class="src">MUST</td><td class="s-warn">! warn</td>');
    expect(table).toContain('<th scope="row">http › round-trip</th><td class="src">harness</td><td class="s-pass">✓ pass</td>');
  });

  test('a lifecycle sub-check that passed says what the server did, and is a pass: in its square and in the sub-check table', () => {
    const cancellation = {
      id: 'cancellation',
      outcome: 'passed',
      level: 'require',
      message: 'notifications/cancelled for `tools/call wait`: the cancelled call was dropped',
      evidence: { behaviour: 'dropped' },
    } as const;
    const stdio = (verdict: 'passed' | 'failed') => ({
      verdict,
      ...(verdict === 'failed' ? { message: 'boom' } : {}),
      checks: [cancellation],
    });
    const run = makeRun([
      { ...FOUR_CELLS[0]!, phases: { stdio: stdio('failed') } },
      { ...FOUR_CELLS[1]!, phases: { stdio: stdio('passed') } },
    ]);
    const html = renderHtml(run);
    expect(html).toContain('<tr class="s-pass"><td class="m">✓ pass (dropped)</td><td>cancellation</td>');
    expect(html).not.toMatch(/<tr class="s-fail"><td class="m">✗ pass/);
    const table = /<section id="checks">[\s\S]*?<\/section>/.exec(html)![0];
    expect(table).toContain(
      '<th scope="row">stdio › cancellation</th><td class="src">harness</td><td class="s-pass">✓ pass (dropped)</td><td class="s-pass">✓ pass (dropped)</td>',
    );
  });

  test('a planned cell without a result (an interrupted run) is not measured in every square, never passed', () => {
    const run = makeRun(FOUR_CELLS, { interrupted: true });
    run.cells = run.cells.filter((c) => c.id !== 'v2-latest');
    const html = renderHtml(run);
    expect(html).toContain('<tr class="row problem" id="cell-v2-latest">');
    expect(html).toMatch(/<td class="sq s-nm problem" id="sq-v2-latest--stdio"[^>]*><button[^>]*>\? not measured<\/button>/);
    expect(html).toContain('no result was recorded for the stdio phase (the cell stopped before it ran)');
    expect(html).toContain('The run was interrupted');
  });

  test('a run without sub-checks has no sub-check table; a schema 1 results.json renders', () => {
    expect(renderHtml(makeRun())).not.toContain('id="checks"');
    const html = renderHtml(read('test/reports/fixtures/results-v1.json'));
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<table class="grid" id="grid">');
  });

  test('with axes each square is a heat map of client × Node; the failing corner links to its details', () => {
    const failing = 'v2-latest~client-1.0.0~node-20';
    const specs = variantSpecs(
      { [failing]: { phases: { stdio: { verdict: 'failed', message: 'Promise.withResolvers is not a function' } } } },
      undefined,
      [CLIENT_OLD, CLIENT_NEW],
      [NODE_20, NODE_22],
    );
    const html = renderHtml(makeRun(specs));
    const square = /<td class="sq s-fail problem" id="sq-v2-latest--stdio"[\s\S]*?<\/td>\s*<td class="sq/.exec(html)![0];
    expect(square).toContain('<th class="corner">client \\ Node</th><th>20</th><th>22</th>');
    expect(square).toContain(`<td class="mini s-fail"><a href="#v-${anchor(failing)}--stdio"`);
    expect(square.match(/<td class="mini s-pass">/g)).toHaveLength(3);
    expect(square).toContain('✗ 1 FAIL · ✓ 3 ok</button>');
    expect(square).toContain(`<section class="detail" id="v-${anchor(failing)}--stdio">`);
    expect(html).toMatch(/<td class="sq s-pass" id="sq-v1-latest--stdio"[^>]*><table class="heat">/);
  });

  test('ids: any cell name gives a distinct id made of safe characters', () => {
    expect(anchor('latest-2~client-1.0.0~node-22')).toBe('latest-2~client-1.0.0~node-22');
    const names = ['a b', 'a_20_b', 'a"><script>', 'a/b', 'a_b'];
    const ids = names.map(anchor);
    expect(new Set(ids).size).toBe(names.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._~-]+$/);
  });
});

describe('size: 48 variants stay under 1 MB', { timeout: 60_000 }, () => {
  test('the axes evidence (reports/axes/results.json, 48 variants)', () => {
    const run = read('reports/axes/results.json');
    expect(run.cells).toHaveLength(48);
    expect(Buffer.byteLength(renderHtml(run))).toBeLessThan(1_000_000);
  });

  test('48 variants that all fail stdio and leaks, each with 12 long stderr lines, noise and handles', () => {
    const run = read('reports/axes/results.json');
    const long = Array.from({ length: 40 }, (_, i) => `stderr line ${i} ${'x'.repeat(400)}`).join('\n');
    for (const cell of run.cells) {
      const stdio = cell.phases.find((p) => p.phase === 'stdio')!;
      Object.assign(stdio, {
        verdict: 'failed',
        message: 'm'.repeat(500),
        step: 'tools/call add',
        stderrTail: long,
        stdoutNoise: Array(50).fill('n'.repeat(400)),
      });
      Object.assign(
        cell.phases.find((p) => p.phase === 'leaks')!,
        { verdict: 'failed', message: 'live handles', stderrTail: long },
      );
      cell.summary.leakedHandles = Array.from({ length: 10 }, (_, i) => ({
        owner: 'server:stdio',
        type: 'Timeout',
        location: `dist/server.js:${i}`,
        createdBy: 'setInterval',
      }));
    }
    expect(Buffer.byteLength(renderHtml(run))).toBeLessThan(1_000_000);
  });
});
