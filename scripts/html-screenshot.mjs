// Screenshots a report's matrix.html in headless Chromium (the system's `chromium`, or MCP_MATRIX_CHROMIUM),
// opened from file:// as a reader opens it: `node scripts/html-screenshot.mjs reports/axes` writes
// reports/axes/matrix.png (the picture the README shows). Exits 1 when the page logs an error.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node scripts/html-screenshot.mjs <report dir> (holding matrix.html)\n');
  process.exit(2);
}
const executablePath =
  process.env.MCP_MATRIX_CHROMIUM ||
  execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(pathToFileURL(path.resolve(dir, 'matrix.html')).href);
  await page.screenshot({ path: path.join(dir, 'matrix.png'), fullPage: true });
} finally {
  await browser.close();
}
for (const p of problems) process.stderr.write(`matrix.html: ${p}\n`);
process.stdout.write(`wrote ${path.join(dir, 'matrix.png')}\n`);
process.exit(problems.length ? 1 : 0);
