import { describe, expect, test } from 'vitest';
import { renderJunit } from '../../src/reports/index.js';
import { FOUR_CELLS, makeRun } from './helpers/make-run.js';

/** A tiny well-formedness check: balanced tags, quoted attributes, only the five entities, no illegal chars. */
function checkXml(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const body = xml.slice(xml.indexOf('\n') + 1);
  // eslint-disable-next-line no-control-regex
  expect(body).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  expect(body).not.toContain(']]>');
  expect(body).not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+);)/);
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const m of body.matchAll(tag)) {
    expect(body.slice(last, m.index)).not.toMatch(/[<>]/);
    last = m.index + m[0].length;
    const [, close, name, , selfClose] = m;
    if (close) expect(stack.pop()).toBe(name);
    else if (!selfClose) stack.push(name!);
  }
  expect(body.slice(last)).not.toMatch(/[<>]/);
  expect(stack).toEqual([]);
}

const count = (xml: string, re: RegExp): number => xml.match(re)?.length ?? 0;

describe('renderJunit', () => {
  test('a testsuite per cell, a testcase per phase', () => {
    const xml = renderJunit(makeRun());
    checkXml(xml);
    expect(count(xml, /<testsuite /g)).toBe(4);
    expect(count(xml, /<testcase /g)).toBe(24);
    expect(xml).toContain(
      '<testsuite name="v1-latest (latest@1 → 1.32.2 (latest supported 1.x))" tests="6" failures="0" errors="0" skipped="0" time="5.000"',
    );
    expect(xml).toContain('<testcase classname="v2-rep" name="stdio" time="1.000"/>');
    expect(xml).toContain('<testsuites name="mcp-matrix @acme/notes-mcp@0.3.0" tests="24" failures="0" errors="0" time="60.000">');
  });

  test('failure, error, skipped and allowed failure', () => {
    const [floor, v1, rep] = FOUR_CELLS;
    const xml = renderJunit(
      makeRun([
        { ...floor!, phases: { stdio: { verdict: 'failed', message: 'no tools', step: 'tools/list' } } },
        { ...v1!, phases: { http: { verdict: 'not-measured', message: 'registry down' }, bind: { verdict: 'skipped' } } },
        { ...rep!, allowedToFail: true, phases: { leaks: { verdict: 'failed', message: 'still running' } } },
      ]),
    );
    checkXml(xml);
    expect(xml).toContain(
      '<failure message="no tools" type="failure">\nno tools\nstep: tools/list\nrepro: npx mcp-matrix run --cell v1-floor',
    );
    expect(xml).toContain('<error message="registry down" type="not-measured">');
    expect(xml).toContain('<testcase classname="v1-latest" name="bind" time="1.000">\n      <skipped');
    expect(xml).toMatch(
      /<testcase classname="v2-rep" name="leaks" time="1.000">\n\s+<failure message="still running" type="allowed-failure">/,
    );
  });

  test('stale allowance is a failing testcase', () => {
    const [floor] = FOUR_CELLS;
    const xml = renderJunit(makeRun([{ ...floor!, allowedToFail: true }]));
    checkXml(xml);
    expect(xml).toContain('<testcase classname="v1-floor" name="allowance"');
    expect(xml).toContain('type="stale-allowance"');
  });

  test('escapes &, <, ]]>, quotes and strips illegal characters', () => {
    const [floor] = FOUR_CELLS;
    const nasty = 'a & b <c> ]]> "q" \'s\' \u0000\u0007\u001b[31mred\u001b[0m \ud800 end';
    const xml = renderJunit(
      makeRun([
        {
          ...floor!,
          phases: { stdio: { verdict: 'failed', message: nasty, stderrTail: `<![CDATA[ ${nasty} ]]>`, stdoutNoise: [nasty] } },
        },
      ]),
    );
    checkXml(xml);
    expect(xml).toContain('message="a &amp; b &lt;c&gt; ]]&gt; &quot;q&quot; &apos;s&apos; red  end"');
    expect(xml).toContain('&lt;![CDATA[ a &amp; b &lt;c&gt; ]]&gt;');
    expect(xml).not.toContain('\u001b');
  });
});
