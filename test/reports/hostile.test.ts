// A hostile server controls messages, stderr, stdout, its protocol version and handle locations.
// None of it may add table columns or rows, open HTML, create links or headings, or close a fence.

import { describe, expect, test } from 'vitest';
import { renderMarkdown, renderStepSummary } from '../../src/reports/index.js';
import { FOUR_CELLS, makeRun } from './helpers/make-run.js';

const EVIL = 'boom | ## <script>alert(1)</script> \n [x](http://evil) ``` <img src=x onerror=alert(1)>';
const EVIL_LINES = '```\n# Heading\n| a | b |\n|---|---|\n````` \n<details open>\n~~~';

function hostileRun() {
  const [floor, v1] = FOUR_CELLS;
  const run = makeRun([
    {
      ...floor!,
      phases: {
        stdio: { verdict: 'failed', message: EVIL, step: `tools/call ${EVIL}`, stderrTail: EVIL_LINES, stdoutNoise: [EVIL, EVIL_LINES] },
        leaks: { verdict: 'failed', message: EVIL },
      },
      summary: {
        protocolVersion: EVIL,
        leakedHandles: [{ owner: EVIL, type: 'Timeout', location: EVIL, createdBy: EVIL }],
      },
    },
    v1!,
  ]);
  run.cells[0]!.environment!.sdkPackages.push({ name: EVIL, version: EVIL, path: EVIL });
  run.warnings.push(EVIL);
  return run;
}

/** The lines outside fenced code blocks (CommonMark: a fence closes with at least as many backticks). */
function outsideFences(md: string): string[] {
  const out: string[] = [];
  let fence = 0;
  for (const line of md.split('\n')) {
    const m = /^(`{3,})(.*)$/.exec(line);
    if (fence > 0) {
      if (m && m[1]!.length >= fence && m[2]!.trim() === '') fence = 0;
    } else if (m) fence = m[1]!.length;
    else out.push(line);
  }
  expect(fence).toBe(0);
  return out;
}

/** Cells of a table row, splitting on pipes that are not backslash-escaped. */
const cells = (row: string): number => row.split(/(?<!\\)\|/).length - 2;

describe('hostile server output', () => {
  for (const [name, render] of [
    ['renderMarkdown', renderMarkdown],
    ['renderStepSummary', renderStepSummary],
  ] as const) {
    test(`${name}: table keeps its shape`, () => {
      const lines = outsideFences(render(hostileRun()));
      const start = lines.findIndex((l) => l.startsWith('| Pin (role)'));
      const table = lines.slice(start, lines.indexOf('', start));
      expect(table).toHaveLength(4);
      for (const row of table) expect(cells(row)).toBe(table[0]!.split(' | ').length);
    });

    test(`${name}: no raw HTML, links or headings outside code blocks`, () => {
      const lines = outsideFences(render(hostileRun()));
      for (const line of lines) {
        expect(line).not.toMatch(/<(script|img|details)/i);
        expect(line).not.toMatch(/(?<!\\)\[x\]/);
        expect(line).not.toMatch(/(?<!\\)```/);
        if (line.startsWith('#')) expect(line).toMatch(/^(# mcp-matrix|## (Failures|Environment|Warnings)|### v1-(floor|latest)\b)/);
      }
    });
  }

  test('fences are longer than any backtick run inside them', () => {
    const md = renderMarkdown(hostileRun());
    expect(md).toContain('``````text\n```\n# Heading');
    expect(md).toContain('&lt;script&gt;');
  });

  test('the SDK table in the environment keeps three columns', () => {
    const lines = outsideFences(renderMarkdown(hostileRun()));
    const rows = lines.slice(lines.indexOf('## Environment')).filter((l) => l.startsWith('| '));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(cells(row)).toBe(3);
  });
});
