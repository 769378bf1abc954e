// The import boundary between the in-cell driver and the harness, through the repository's own eslint
// config: each kind of crossing is reported with its reason, and what the boundary allows is not.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BOUNDARY = 'mcp-matrix/driver-boundary';
// The repository's own config, with only the boundary rule run (the others are `npm run lint`'s, and linting all of
// src with every rule took ~35 s of this file on a loaded machine).
const eslint = new ESLint({ cwd: ROOT, ruleFilter: ({ ruleId }) => ruleId === BOUNDARY });

/** The boundary rule's messages for `code` placed at `file` (relative to the repository). */
async function crossings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === BOUNDARY).map((m) => m.message);
}

// Typed linting of the whole src tree takes seconds alone and much longer on a loaded 2-core machine (75.6 s for the
// whole tree at load ~43): a hang guard.
describe('driver boundary (eslint)', { timeout: 300_000 }, () => {
  it('the driver: node:* builtins and its own files pass', async () => {
    const code = `import { readFileSync } from 'node:fs';\nimport { runStep } from './steps.js';\nimport { x } from '../context.js';\nexport { readFileSync, runStep, x };\n`;
    expect(await crossings('src/driver/phases/new-phase.ts', code)).toEqual([]);
  });

  it('the driver: a bare package import is refused (the cell has only its SDK)', async () => {
    expect(await crossings('src/driver/new.ts', `import semver from 'semver';\nexport { semver };\n`)).toEqual([
      "The driver runs inside a cell: it imports only node:* builtins and its own files, not 'semver' (the cell's SDK is loaded by adapter.ts).",
    ]);
  });

  it('the driver: harness code is refused, from any depth', async () => {
    expect(await crossings('src/driver/new.ts', `import { decideCell } from '../judge/verdict.js';\nexport { decideCell };\n`)).toEqual([
      'The driver is its own program: it may not import src/judge/verdict.js (only node:*, src/driver/**, src/contract/**, and type-only src/results/types.ts).',
    ]);
    expect(await crossings('src/driver/phases/new.ts', `export { run } from '../../process/exec.js';\n`)).toEqual([
      'The driver is its own program: it may not import src/process/exec.js (only node:*, src/driver/**, src/contract/**, and type-only src/results/types.ts).',
    ]);
  });

  it('the driver: results types only with `import type`; the contract freely', async () => {
    expect(
      await crossings('src/driver/new.ts', `import type { PhaseResult } from '../results/types.js';\nexport type R = PhaseResult;\n`),
    ).toEqual([]);
    expect(await crossings('src/driver/phases/new.ts', `export type { Step } from '../../contract/config.js';\n`)).toEqual([]);
    // An inline `type` keeps the import statement (verbatimModuleSyntax): the module would load in the cell.
    expect(await crossings('src/driver/new.ts', `import { PHASES } from '../results/types.js';\nexport { PHASES };\n`)).toEqual([
      'The driver may import src/results/types.js only with `import type` (nothing of it exists in a cell).',
    ]);
  });

  it('the driver: only adapter.ts and suite-gate.ts load a module by a computed name', async () => {
    const code = `export const load = (s: string) => import(s);\n`;
    expect(await crossings('src/driver/client/adapter.ts', code)).toEqual([]);
    expect(await crossings('src/driver/probe/suite-gate.ts', code)).toEqual([]);
    expect(await crossings('src/driver/client/steps.ts', code)).toEqual([
      'Only src/driver/client/adapter.ts (the cell’s SDK) and src/driver/probe/suite-gate.ts (the conformance suite’s own imports, in its process) load modules by a computed name.',
    ]);
  });

  it('the harness: driver types pass, driver run-time code is refused', async () => {
    expect(
      await crossings('src/cells/new.ts', `import type { DriverSpec } from '../driver/protocol.js';\nexport type S = DriverSpec;\n`),
    ).toEqual([]);
    expect(await crossings('src/cells/new.ts', `import { Redactor } from '../driver/server/redact.js';\nexport { Redactor };\n`)).toEqual([
      'The harness ships the driver, it does not run its code: import src/driver/server/redact.js with `import type` (or run it in the driver).',
    ]);
    expect(await crossings('src/reports/new.ts', `export * from '../driver/surface.js';\n`)).toHaveLength(1);
  });

  it("the harness: process ownership shares the driver's /proc readers, and only those; the contract is shared", async () => {
    const code = `import { carriers } from '../driver/server/proc.js';\nimport { makeCookie } from '../contract/cookie.js';\nexport { carriers, makeCookie };\n`;
    expect(await crossings('src/process/cookie.ts', code)).toEqual([]);
    expect(await crossings('src/process/sweep.ts', code)).toHaveLength(1);
    expect(
      await crossings('src/process/cookie.ts', `import { Redactor } from '../driver/server/redact.js';\nexport { Redactor };\n`),
    ).toHaveLength(1);
  });

  it('the contract: ships with the driver, so it imports neither the driver nor the harness', async () => {
    expect(
      await crossings(
        'src/contract/new.ts',
        `import { randomBytes } from 'node:crypto';\nimport { CHECKS } from './checks.js';\nexport { randomBytes, CHECKS };\n`,
      ),
    ).toEqual([]);
    expect(
      await crossings('src/contract/new.ts', `import { Redactor } from '../driver/server/redact.js';\nexport { Redactor };\n`),
    ).toHaveLength(1);
    expect(
      await crossings('src/contract/new.ts', `import { decideCell } from '../judge/verdict.js';\nexport { decideCell };\n`),
    ).toHaveLength(1);
  });

  it('the repository as it stands has no crossing', async () => {
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const found = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === BOUNDARY).map((m) => `${path.relative(ROOT, r.filePath)}: ${m.message}`),
    );
    expect(found).toEqual([]);
  });
});
