import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { escapeData, escapeProperty, groupLines, renderAnnotations, renderStepSummary } from '../../src/reports/index.js';
import { capAnnotations, renderMergeErrorAnnotations, renderMergeErrorSummary } from '../../src/reports/github.js';
import { parseResultsText } from '../../src/reports/json/load.js';
import type { RunResult } from '../../src/results/types.js';
import { FOUR_CELLS, makeRun } from './helpers/make-run.js';

/** A real run's results.json: `mcp-matrix run --config fixtures/broken/<fixture>/matrix.config.ts` (conformance off). */
function fixtureRun(fixture: string): RunResult {
  const loaded = parseResultsText(readFileSync(new URL(`./fixtures/${fixture}.results.json`, import.meta.url), 'utf8'));
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.run;
}

/** An annotation's kind, title and message, unescaped. */
function parsed(line: string): { kind: string; title: string; message: string } {
  const m = /^::(error|warning) title=([^:]*)::(.*)$/.exec(line);
  if (!m) throw new Error(`not an annotation: ${line}`);
  const un = (t: string): string => decodeURIComponent(t);
  return { kind: m[1]!, title: un(m[2]!), message: un(m[3]!) };
}

describe('workflow commands', () => {
  test('escaping of data and properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });

  test('one ::error per failed phase, warnings for allowed and not measured', () => {
    const [floor, v1, rep] = FOUR_CELLS;
    const run = makeRun([
      { ...floor!, phases: { stdio: { verdict: 'failed', message: 'bad: 50%\nnext line', step: 'initialize' } } },
      { ...v1!, phases: { http: { verdict: 'not-measured', message: 'registry down' } } },
      { ...rep!, allowedToFail: true, phases: { bind: { verdict: 'failed', message: 'listened' } } },
    ]);
    const lines = renderAnnotations(run);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      '::error title=mcp-matrix v1-floor · stdio failed::1.24.0 (lower supported boundary): bad: 50%25%0Anext line%0Astep: initialize%0Arepro: npx mcp-matrix run --cell v1-floor',
    );
    expect(lines[1]).toMatch(/^::warning title=mcp-matrix v1-latest · http not measured::/);
    expect(lines[2]).toMatch(/^::warning title=mcp-matrix v2-rep · bind failed \(allowed\)::/);
    for (const line of lines) expect(line).not.toMatch(/[\r\n]/);
  });

  test('a passing run has no annotations; a stale allowance has one', () => {
    expect(renderAnnotations(makeRun())).toEqual([]);
    const [floor] = FOUR_CELLS;
    const [line] = renderAnnotations(makeRun([{ ...floor!, allowedToFail: true }]));
    expect(line).toMatch(/^::error title=mcp-matrix v1-floor%3A stale allowance::/);
  });

  test('cell ids with : and , are escaped in the title', () => {
    const run = makeRun([{ id: 'a:b,c', pin: '1.24.0', version: '1.24.0', major: 1, phases: { bind: { verdict: 'failed' } } }]);
    expect(renderAnnotations(run)[0]).toMatch(/^::error title=mcp-matrix a%3Ab%2Cc · bind failed::/);
  });

  test('groupLines folds and neutralises workflow commands in server output', () => {
    const lines = groupLines('cell v1-floor\n::x', ['ok', '  ::add-mask::secret', 'a\n::set-output name=x::y', 'x ##[error]y']);
    expect(lines[0]).toBe('::group::cell v1-floor%0A::x');
    expect(lines.at(-1)).toBe('::endgroup::');
    const inner = lines.slice(1, -1);
    expect(inner).toHaveLength(5);
    for (const line of inner) {
      expect(line.trimStart().startsWith('::')).toBe(false);
      expect(line).not.toContain('##[');
    }
  });

  test('step summary: the table and the failures, without the environment', () => {
    const [floor] = FOUR_CELLS;
    const summary = renderStepSummary(makeRun([{ ...floor!, phases: { http: { verdict: 'failed', message: 'no 401' } } }]));
    expect(summary).toContain('| Pin (role) |');
    expect(summary).toContain('### v1-floor · http');
    expect(summary).not.toContain('## Environment');
  });
});

describe('annotation limits (GitHub shows at most 10 per kind per step)', () => {
  const errors = (n: number) => Array.from({ length: n }, (_, i) => `::error title=t${i}::m${i}`);

  test('up to 9: all of them; past 9: the first 9, then "N more: see the summary"', () => {
    expect(capAnnotations(errors(9))).toEqual(errors(9));
    const capped = capAnnotations(errors(14));
    expect(capped).toHaveLength(10);
    expect(capped.slice(0, 9)).toEqual(errors(9));
    expect(capped[9]).toBe('::error title=mcp-matrix::5 more: see the summary');
    expect(capAnnotations(Array.from({ length: 11 }, () => '::warning title=w::x'))[9]).toBe(
      '::warning title=mcp-matrix::2 more: see the summary',
    );
  });

  test('every failing phase of a big matrix: 10 annotations, the rest in the summary', () => {
    const specs = Array.from({ length: 12 }, (_, i) => ({
      ...FOUR_CELLS[0]!,
      id: `c${i}`,
      phases: { stdio: { verdict: 'failed' as const, message: `boom ${i}` } },
    }));
    const run = makeRun(specs);
    expect(renderAnnotations(run)).toHaveLength(12);
    expect(capAnnotations(renderAnnotations(run))).toHaveLength(10);
    for (let i = 0; i < 12; i++) expect(renderStepSummary(run)).toContain(`boom ${i}`);
  });

  test('merge errors: one annotation each (escaped), the list in the summary', () => {
    const e = ['cell v1 (pin 1.0.0) has no evidence: no piece contains it', 'a: b, c'];
    expect(renderMergeErrorAnnotations(e)).toEqual([
      '::error title=mcp-matrix merge::cell v1 (pin 1.0.0) has no evidence: no piece contains it',
      '::error title=mcp-matrix merge::a: b, c',
    ]);
    expect(renderMergeErrorSummary(e)).toContain('- cell v1 (pin 1.0.0) has no evidence: no piece contains it\n');
  });
});

// The findings every other report shows (results.json, matrix.md, JUnit, SARIF) are annotated too: real runs
// of the fixtures of answer parity and the lifecycle sub-checks (fixtures/broken/*, docs/phases.md).
describe('answer parity and lifecycle sub-checks (real runs of fixtures/broken/*)', () => {
  test.each([
    ['answer-iserror-lost', /^stdio tools\/call fail: isError true on latest-1 \(1\.\d+\.\d+\); absent on latest-2 \(2\.\d+\.\d+\)$/],
    [
      'answer-mimetype-dropped',
      /^stdio tools\/call card: content\[1\]\.resource\.mimeType 'image\/png' on latest-1 \(1\.\d+\.\d+\); absent on latest-2 \(2\.\d+\.\d+\)$/,
    ],
    ['unknown-tool-shape', /^stdio unknown-tool: answer 'isError' on latest-1 \(1\.\d+\.\d+\); 'error' on latest-2 \(2\.\d+\.\d+\)$/],
  ])('%s: every cell passed, the answer difference that fails the run is an ::error of its own', (fixture, finding) => {
    const run = fixtureRun(fixture);
    expect(run.cells.map((c) => c.verdict)).toEqual(['passed', 'passed']);
    expect(run.exitCode).toBe(1);
    const annotations = renderAnnotations(run).map(parsed);
    // One per finding, as matrix.sarif's answers/parity results: nothing else fails the run.
    expect(annotations).toEqual(run.parity!.findings.map((f) => ({ kind: 'error', title: 'mcp-matrix: answer differs', message: f })));
    expect(annotations.some((a) => finding.test(a.message))).toBe(true);
    const summary = renderStepSummary(run);
    expect(summary).toContain('- differs: ');
    expect(summary).toContain('## Sub-checks');
  });

  test.each([
    [
      'cancel-crash',
      'cancellation',
      'notifications/cancelled for tools/call wait',
      /^latest@1 → 1\.\d+\.\d+ \(latest 1\.x\): after notifications\/cancelled for `tools\/call wait`, the server exited \(code 1\) \[harness, level require\]$/,
    ],
    [
      'init-kills-call',
      'repeated-initialize',
      'repeated initialize',
      /^latest@1 → 1\.\d+\.\d+ \(latest 1\.x\): a second initialize while `tools\/call wait` was in flight: the server accepts; the call in flight \(`tools\/call wait`\) was lost: no answer within 3000 ms \[harness, level require\]$/,
    ],
  ])('%s: the failed lifecycle sub-check of stdio and http is named in each ::error', (fixture, check, step, message) => {
    const run = fixtureRun(fixture);
    const annotations = renderAnnotations(run).map(parsed);
    const errors = annotations.filter((a) => a.kind === 'error');
    expect(errors.map((a) => a.title)).toEqual([
      `mcp-matrix latest-1 · stdio › ${check} failed`,
      `mcp-matrix latest-1 · http › ${check} failed`,
    ]);
    for (const e of errors) {
      const [first, ...rest] = e.message.split('\n');
      expect(first).toMatch(message);
      expect(rest).toEqual([`step: ${step}`, expect.stringMatching(/^repro: .* run --cell latest-1 --config fixtures\/broken\//)]);
    }
    // The http sub-checks the fixture's server fails at level warn (it checks neither Origin nor Host): warnings, after the errors.
    expect(annotations.filter((a) => a.kind === 'warning').map((a) => a.title)).toEqual([
      'mcp-matrix latest-1 · http › origin failed (warn)',
      'mcp-matrix latest-1 · http › host failed (warn)',
    ]);
    // The job summary has the sub-checks' table, the lifecycle rows with what the server did.
    const summary = renderStepSummary(run);
    expect(summary).toContain('## Sub-checks');
    expect(summary).toMatch(new RegExp(`\\| stdio › ${check} \\| harness \\| require \\| FAIL`));
    expect(summary).toMatch(
      /\| stdio › (cancellation|repeated-initialize) \| harness \| require \| pass \((dropped|answered|accepts|errors|closes)\) \|/,
    );
  });
});

describe("the run's own findings (makeRun)", () => {
  test('surface and answer differences, drift, a stale parity.allow and a lockstep error: one ::error each, before the warnings', () => {
    const [floor, v1] = FOUR_CELLS;
    const run = {
      ...makeRun([{ ...floor!, phases: { http: { verdict: 'not-measured', message: 'registry down' } } }, { ...v1! }]),
      surface: {
        cells: ['v1-floor', 'v1-latest'],
        findings: ['tool add: description a on v1-floor; b on v1-latest'],
        allowed: [],
        allow: [],
        drift: ['tool echo: removed'],
      },
      parity: {
        cells: ['v1-floor', 'v1-latest'],
        items: ['stdio tools/call add'],
        findings: ['stdio tools/call add: isError true on v1-floor; absent on v1-latest'],
        allowed: [],
        stale: ["parity.allow { item: 'stdio tools/call x' } matches no difference"],
        allow: [],
        drift: ['stdio tools/call add: isError absent → true (v1-floor)'],
      },
      lockstepErrors: ['lockstep: @modelcontextprotocol/server 2.1.0 and @modelcontextprotocol/client 2.0.0'],
    } satisfies RunResult;
    expect(renderAnnotations(run).map(parsed)).toEqual([
      { kind: 'error', title: 'mcp-matrix: surface differs', message: 'tool add: description a on v1-floor; b on v1-latest' },
      {
        kind: 'error',
        title: 'mcp-matrix: surface changed since mcp-surface.json',
        message: 'tool echo: removed\n(if the change is intended, commit it with run --update-surface)',
      },
      {
        kind: 'error',
        title: 'mcp-matrix: answer differs',
        message: 'stdio tools/call add: isError true on v1-floor; absent on v1-latest',
      },
      {
        kind: 'error',
        title: 'mcp-matrix: answer changed since mcp-surface.json',
        message: 'stdio tools/call add: isError absent → true (v1-floor)\n(if the change is intended, commit it with run --update-surface)',
      },
      {
        kind: 'error',
        title: 'mcp-matrix: stale parity.allow entry',
        message: "parity.allow { item: 'stdio tools/call x' } matches no difference",
      },
      {
        kind: 'error',
        title: 'mcp-matrix: lockstep',
        message: '@modelcontextprotocol/server 2.1.0 and @modelcontextprotocol/client 2.0.0',
      },
      expect.objectContaining({ kind: 'warning', title: 'mcp-matrix v1-floor · http not measured' }),
    ]);
  });

  test("a failed sub-check at level warn in a passing phase is a warning; an allowed cell's failed required one too", () => {
    const [floor, v1] = FOUR_CELLS;
    const origin = {
      id: 'origin',
      outcome: 'failed',
      level: 'warn',
      message: 'a foreign Origin got 200 (want 403)',
      step: 'request with a foreign Origin',
    } as const;
    const cancel = { id: 'cancellation', outcome: 'failed', level: 'require', message: 'the server exited (code 1)' } as const;
    const run = makeRun([
      { ...floor!, phases: { http: { verdict: 'passed', checks: [origin] } } },
      {
        ...v1!,
        allowedToFail: true,
        phases: { stdio: { verdict: 'failed', message: 'cancellation: …', step: 'cancel', checks: [cancel] } },
      },
    ]);
    expect(
      renderAnnotations(run).map((l) => {
        const a = parsed(l);
        return [a.kind, a.title, a.message.split('\n').slice(0, 2)];
      }),
    ).toEqual([
      [
        'warning',
        'mcp-matrix v1-floor · http › origin failed (warn)',
        [
          '1.24.0 (lower supported boundary): a foreign Origin got 200 (want 403) [harness, level warn]',
          'step: request with a foreign Origin',
        ],
      ],
      [
        'warning',
        'mcp-matrix v1-latest · stdio › cancellation failed (allowed)',
        ['latest@1 → 1.32.2 (latest supported 1.x): the server exited (code 1) [harness, level require]', 'step: cancel'],
      ],
    ]);
  });
});
