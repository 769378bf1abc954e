// matrix.html in a real browser (headless Chromium, test/helpers/browser.ts), opened from file:// as a
// reader would open it: the reports of real runs, written by the same code as `mcp-matrix report`.
// - failing: test/reports/fixtures/crash-on-tool.results.json, from `mcp-matrix run --config
//   fixtures/broken/crash-on-tool/matrix.config.ts` (stdio fails at tools/call crash; http warns), and
//   test/reports/fixtures/node22-api.results.json from the node22-api fixture (Node axis [20, 22]: the Node 20
//   corner fails stdio);
// - passing: reports/axes/results.json (48 variants) and reports/results.json (4 cells).
// Each page: no console error, no request leaves file://; a failure expands in place and is read; the "failures
// only" filter; keyboard moves; a link to one result opens it; hostile server text stays inert. Screenshots go to
// MM_SCREENSHOTS (default test-output/html/).

import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseResults, writeReportFiles } from '../../src/reports/index.js';
import { anchor } from '../../src/reports/html/escape.js';
import type { RunResult } from '../../src/results/types.js';
import { launchChromium, watchPage } from '../helpers/browser.js';
import { FOUR_CELLS, makeRun } from './helpers/make-run.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SHOTS = process.env.MM_SCREENSHOTS ?? path.join(ROOT, 'test-output', 'html');

let browser: Browser;
let work: string;
beforeAll(async () => {
  browser = await launchChromium();
  work = await mkdtemp(path.join(tmpdir(), 'mm-html-'));
  mkdirSync(SHOTS, { recursive: true });
  // Chromium's start on a loaded machine: a hang guard, not a speed check.
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function load(file: string): Promise<RunResult> {
  const parsed = parseResults(await readFile(path.join(ROOT, file), 'utf8'));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.run;
}

/** Writes the run's reports as `report` does and opens its matrix.html from file:// (plus `hash`). */
async function open(name: string, run: RunResult, hash = ''): Promise<{ page: Page; problems: string[] }> {
  const out = path.join(work, name);
  await writeReportFiles(run, out);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // Every wait of playwright's (a load, a click, a full-page shot) as a hang guard, not its 30 s default.
  page.setDefaultTimeout(90_000);
  const problems = watchPage(page);
  await page.goto(`${pathToFileURL(path.join(out, 'matrix.html')).href}${hash}`);
  await page.waitForLoadState('load');
  return { page, problems };
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, name), fullPage: true });

// Each test opens a page, clicks and takes full-page shots in Chromium: on a loaded machine that is seconds, so a hang
// guard well above the unit project's 20 s.
describe('matrix.html in Chromium', { timeout: 120_000 }, () => {
  test('a failing run: the failure expands in place and reads the server message, step and stderr', async () => {
    const { page, problems } = await open('crash', await load('test/reports/fixtures/crash-on-tool.results.json'));
    const square = page.locator('#sq-latest-1--stdio');
    // expect.poll's 1 s default is less than one call of Chromium's under load.
    await expect.poll(() => square.getAttribute('class'), { timeout: 60_000 }).toContain('s-fail');
    expect(await square.locator('.toggle').innerText()).toBe('✗ FAIL');
    const panel = page.locator('#p-latest-1--stdio');
    expect(await panel.isVisible()).toBe(false);
    await square.locator('.toggle').click();
    expect(await panel.isVisible()).toBe(true);
    expect(await square.locator('.toggle').getAttribute('aria-expanded')).toBe('true');
    const detail = panel.locator('#v-latest-1--stdio');
    expect(await detail.locator('p.msg').innerText()).toMatch(
      /^✗ FAIL: tools\/call crash: MCP error -32000: Connection closed \(the server exited with code 1/,
    );
    expect(await detail.locator('dd').nth(1).innerText()).toBe('tools/call crash');
    expect(await detail.locator('pre.stderr').innerText()).toContain('Error: BROKEN: crash in the crash tool');
    expect(await detail.locator('pre.repro').innerText()).toContain('--cell latest-1');
    // The http square warns (Origin and Host unchecked behind a token) and lists its sub-checks.
    await page.locator('#sq-latest-1--http .toggle').click();
    expect(await page.locator('#v-latest-1--http table.checks').innerText()).toMatch(/! warn\s+origin\s+a foreign Origin/);
    await shot(page, 'failing-expanded.png');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a failing run with a Node axis: the failing corner of the heat map opens its details; the filter keeps the failure', async () => {
    const { page, problems } = await open('node22', await load('test/reports/fixtures/node22-api.results.json'));
    const corner = page.locator('#sq-latest-1--stdio td.mini.s-fail a');
    expect(await corner.innerText()).toBe('✗');
    await corner.click();
    const id = `v-${anchor('latest-1~node-20')}--stdio`;
    expect(await page.locator(`[id="${id}"]`).isVisible()).toBe(true);
    expect(await page.locator(`[id="${id}"] p.msg`).innerText()).toContain('withResolvers');
    expect(new URL(page.url()).hash).toBe(`#${id}`);
    await page.locator('#failures-only').check();
    expect(await page.locator('#cell-latest-1').isVisible()).toBe(true);
    await shot(page, 'failing-axes-filtered.png');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a passing run of 48 variants: heat maps, and "failures only" leaves nothing but the note', async () => {
    const run = await load('reports/axes/results.json');
    const { page, problems } = await open('axes', run);
    // The grid: 4 cells × 6 phases (environment, stdio, http, bind, conformance, leaks) × 12 variants.
    expect(await page.locator('#grid tr.row').count()).toBe(4);
    expect(await page.locator('td.mini').count()).toBe(4 * 6 * 12);
    expect(await page.locator('#sq-floor-1--stdio .word').innerText()).toBe('✓ 12 ok');
    expect(await page.locator('h1').innerText()).toContain('✓ PASSED');
    expect(await page.locator('#surface').innerText()).toContain('identical on 48 variants');
    expect(await page.locator('#answers').innerText()).toContain('17 items identical on 48 variants');
    // The lifecycle sub-checks passed everywhere (each says what the server did): ok squares, nothing failing.
    for (const check of ['stdio › cancellation', 'stdio › repeated-initialize', 'http › cancellation', 'http › repeated-initialize'])
      expect(await page.locator('#checks tr.row', { hasText: check }).locator('td.s-pass').count()).toBe(4);
    await shot(page, 'passing-axes.png');
    await page.locator('#failures-only').check();
    expect(await page.locator('tr.row:visible').count()).toBe(0);
    expect(await page.locator('#none-failing').isVisible()).toBe(true);
    await shot(page, 'passing-axes-filtered.png');
    await page.locator('#failures-only').uncheck();
    expect(await page.locator('#grid tr.row:visible').count()).toBe(4);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('keyboard: arrows move between squares, Enter opens a failure, Escape closes it', async () => {
    const { page, problems } = await open('keys', await load('test/reports/fixtures/crash-on-tool.results.json'));
    await page.locator('#sq-latest-1--environment').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('sq-latest-1--stdio');
    await page.keyboard.press('Enter');
    expect(await page.locator('#p-latest-1--stdio').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.locator('#p-latest-1--stdio').isVisible()).toBe(false);
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('sq-latest-1--http');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a link to one result opens it; a link to one cell shows its row', async () => {
    const run = await load('test/reports/fixtures/crash-on-tool.results.json');
    const { page, problems } = await open('anchor', run, '#v-latest-1--stdio');
    expect(await page.locator('#v-latest-1--stdio').isVisible()).toBe(true);
    await page.goto(page.url().replace(/#.*$/, '#cell-latest-1'));
    expect(await page.locator('#cell-latest-1').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('hostile server text is shown as text: its <script> and onerror never run', async () => {
    const evil = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><b>bold</b>';
    const run = makeRun([
      { ...FOUR_CELLS[0]!, phases: { stdio: { verdict: 'failed', step: `tools/call ${evil}`, message: evil, stderrTail: evil } } },
      FOUR_CELLS[1]!,
    ]);
    const { page, problems } = await open('hostile', run);
    await page.locator('#sq-v1-floor--stdio .toggle').click();
    expect(await page.locator('#v-v1-floor--stdio p.msg').innerText()).toBe(`✗ FAIL: ${evil}`);
    expect(await page.locator('#v-v1-floor--stdio pre.stderr').innerText()).toBe(evil);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.locator('#v-v1-floor--stdio b, #v-v1-floor--stdio img').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
