// Headless Chromium from the system (Debian's `chromium` package; .ci/run installs it when missing), driven by
// playwright-core. MCP_MATRIX_CHROMIUM names another binary. No browser is downloaded by npm.

import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';

export function chromiumPath(): string {
  const named = process.env.MCP_MATRIX_CHROMIUM;
  if (named) return named;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim().split('\n')[0]!;
  } catch {
    throw new Error('no chromium on PATH: install it (apt-get install -y --no-install-recommends chromium) or set MCP_MATRIX_CHROMIUM');
  }
}

/** Launched with a hang guard, not playwright's 30 s: Chromium's start on a loaded machine takes seconds of CPU. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'], timeout: 120_000 });
}

/** Everything a page says went wrong: console errors, uncaught exceptions, and any request that is not a local file. */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file://')) problems.push(`request: ${r.url()}`);
  });
  return problems;
}
