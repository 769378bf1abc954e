import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FoundImport, ImportScan } from '../../../src/judge/environment/import-graph.js';
import {
  dependents,
  describeUndeclared,
  judgeImports as judgeWith,
  undeclaredOf,
  withImportChecks,
  type ImportCheckInput,
} from '../../../src/judge/environment/undeclared-imports.js';
import { readCellLock } from '../../../src/judge/environment/cell-lock.js';
import { resolveChecks } from '../../../src/config/resolve.js';
import { unmeasured } from '../../../src/judge/not-measured.js';
import { auditRun } from '../../../src/judge/verdict.js';
import type { EnvironmentEvidence, PhaseResult, PhaseResultOf } from '../../../src/results/types.js';
import { FOUR_CELLS, makeRun } from '../../reports/helpers/make-run.js';

/** Both checks at their defaults, as the harness resolves them. */
const DEFAULTS = resolveChecks('environment', 'none', {});

/** The checks as install-server.ts runs them: on the cell's package-lock.json as it is now. */
const judgeImports = async (input: Omit<ImportCheckInput, 'lock'>) => judgeWith({ ...input, lock: await readCellLock(input.cellDir) });

let cell = '';
afterEach(() => cell && rmSync(cell, { recursive: true, force: true }));

/** A cell laid out by hand: the package `srv` and npm's lockfile, where `sdk` depends on zod. */
function layout(manifest: Record<string, unknown>, files: Record<string, string>): string {
  cell = mkdtempSync(path.join(tmpdir(), 'mm-undeclared-'));
  const dir = path.join(cell, 'node_modules/srv');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'srv', version: '1.0.0', ...manifest }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const lock = {
    packages: {
      '': { dependencies: { srv: '1.0.0' } },
      'node_modules/srv': { version: '1.0.0' },
      'node_modules/sdk': { version: '1.2.3', dependencies: { zod: '^4' } },
      'node_modules/sdk/node_modules/inner': { version: '0.1.0', peerDependencies: { zod: '*' } },
    },
  };
  writeFileSync(path.join(cell, 'package-lock.json'), JSON.stringify(lock));
  return cell;
}

const env = (verdict: PhaseResult['verdict'] = 'passed', extra: Partial<PhaseResultOf<'environment'>> = {}) => ({
  result: { phase: 'environment' as const, verdict, durationMs: 5, ...extra },
  evidence: {} as EnvironmentEvidence,
});

describe('judgeImports', () => {
  it('names the import, the file and line, and who brings the package into npm’s tree', async () => {
    layout({ bin: './cli.mjs' }, { 'cli.mjs': "import fs from 'node:fs';\nimport { z } from 'zod';\nconst o = await import('open');\n" });
    const [onPath, later] = await judgeImports({ cellDir: cell, packageName: 'srv', key: 'a', levels: DEFAULTS });
    expect(onPath).toEqual({
      id: 'undeclared-imports',
      outcome: 'failed',
      level: 'require',
      message:
        'imports 1 package(s) on its start path that it does not declare in dependencies, peerDependencies or optionalDependencies: zod (import "zod" in cli.mjs:2; npm\'s flat tree has it only through sdk@1.2.3, inner@0.1.0): a strict install (pnpm without hoisting, Yarn PnP) cannot resolve it; declare it',
      short: 'undeclared: zod',
      step: 'undeclared imports',
      evidence: {
        undeclared: [
          { package: 'zod', sites: [{ file: 'cli.mjs', line: 2, kind: 'import', specifier: 'zod' }], via: ['sdk@1.2.3', 'inner@0.1.0'] },
        ],
      },
    });
    expect(later).toMatchObject({
      id: 'undeclared-dynamic-imports',
      outcome: 'failed',
      level: 'warn',
      short: 'undeclared: open',
      message: expect.stringMatching(
        /^loads 1 package\(s\) by import\(\) or a guarded require that it does not declare .*: open \(import\(\) "open" in cli\.mjs:3\)/,
      ),
    });
  });

  it('takes the configured levels, and passes a package that declares what it imports', async () => {
    layout({ bin: './cli.mjs', dependencies: { zod: '^4' } }, { 'cli.mjs': "import { z } from 'zod';\n" });
    const checks = await judgeImports({
      cellDir: cell,
      packageName: 'srv',
      key: 'b',
      levels: resolveChecks('environment', 'none', { 'undeclared-dynamic-imports': 'off' }),
    });
    expect(checks.map((c) => [c.id, c.outcome, c.level])).toEqual([
      ['undeclared-imports', 'passed', 'require'],
      ['undeclared-dynamic-imports', 'skipped', 'off'],
    ]);
    expect(checks[0]!.message).toBe(
      'every package imported on the start path (bin, main and exports, through static imports) is declared (1 file(s) parsed)',
    );
  });

  it('is not measured without the package in the cell', async () => {
    cell = mkdtempSync(path.join(tmpdir(), 'mm-undeclared-'));
    const checks = await judgeImports({ cellDir: cell, packageName: 'srv', key: 'c', levels: DEFAULTS });
    expect(checks.map((c) => c.outcome)).toEqual(['not-measured', 'not-measured']);
  });
});

describe('withImportChecks', () => {
  const failed = {
    id: 'undeclared-imports',
    outcome: 'failed' as const,
    level: 'require' as const,
    message: 'imports zod',
    step: 'undeclared imports',
  };
  const warned = { ...failed, id: 'undeclared-dynamic-imports', level: 'warn' as const, message: 'loads open' };

  it('a failed require check fails a passed environment, under its own step', () => {
    expect(withImportChecks(env(), [failed, warned]).result).toEqual({
      phase: 'environment',
      verdict: 'failed',
      durationMs: 5,
      message: 'undeclared-imports: imports zod',
      step: 'undeclared imports',
      details: { problems: ['undeclared-imports: imports zod'] },
      checks: [failed, warned],
    });
  });

  it('joins the problems already found, keeping their step; a warn check alone changes nothing', () => {
    const earlier = env('failed', { message: 'x missing', step: 'verify', details: { problems: ['x missing'] } });
    expect(withImportChecks(earlier, [failed]).result).toMatchObject({
      verdict: 'failed',
      step: 'verify',
      message: 'x missing; undeclared-imports: imports zod',
      details: { problems: ['x missing', 'undeclared-imports: imports zod'] },
    });
    expect(withImportChecks(env(), [warned]).result).toEqual({ phase: 'environment', verdict: 'passed', durationMs: 5, checks: [warned] });
  });

  it('stays consistent for the audit when the environment is not measured afterwards', () => {
    const folded = withImportChecks(env(), [failed]).result;
    const later = unmeasured(folded, 'the install changed');
    expect(later.verdict).toBe('not-measured');
    expect(later.checks![0]).toMatchObject({ outcome: 'not-measured', message: 'the install changed (it saw: imports zod)' });
  });
});

describe('auditRun and the environment checks', () => {
  const passing = { id: 'undeclared-imports', outcome: 'passed' as const, level: 'require' as const, message: 'ok' };
  const failing = { ...passing, outcome: 'failed' as const, message: 'imports zod' };
  const audit = (environment: Partial<PhaseResult>) =>
    auditRun(makeRun([{ ...FOUR_CELLS[0]!, phases: { environment } }])).filter((x) => x.includes('environment'));

  it('an environment its checks fail must be stored failed; its other problems may fail it beside passing checks', () => {
    expect(audit({ verdict: 'passed', checks: [failing] })).toEqual([
      'cell v1-floor: environment is stored "passed", but its sub-checks fold to "failed" (undeclared-imports failed)',
    ]);
    expect(audit({ verdict: 'failed', checks: [passing] })).toEqual([]);
    expect(audit({ verdict: 'failed', checks: [failing] })).toEqual([]);
    expect(audit({ verdict: 'passed', checks: [passing] })).toEqual([]);
  });
});

describe('scanOnce', () => {
  // A fresh module each time: the cache is module state, shared by every test of this file.
  const fresh = async () => {
    vi.resetModules();
    return (await import('../../../src/judge/environment/undeclared-imports.js')).scanOnce;
  };

  it('scans a tarball once; after 33 tarballs it starts over', async () => {
    const scanOnce = await fresh();
    layout({ bin: './cli.mjs' }, { 'cli.mjs': "import 'zod';\n" });
    const dir = path.join(cell, 'node_modules/srv');
    const manifest = { name: 'srv', bin: './cli.mjs' };
    const first = scanOnce(dir, manifest, 'k0');
    for (let i = 1; i <= 32; i++) scanOnce(dir, manifest, `k${i}`);
    expect(scanOnce(dir, manifest, 'k0')).toBe(first); // 33 kept
    scanOnce(dir, manifest, 'k33'); // the 34th clears them
    const again = scanOnce(dir, manifest, 'k0');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(scanOnce(dir, manifest, 'k0')).toBe(again);
  });
});

describe('undeclaredOf and describeUndeclared', () => {
  const scan = (imports: Partial<FoundImport>[]): ImportScan => ({
    imports: imports.map((i) => ({ specifier: 'x', packageName: 'x', file: 'a.js', line: 1, kind: 'import', static: true, ...i })),
    files: ['a.js'],
    unparsed: [],
  });

  it("the package's own name is never undeclared", () => {
    expect(undeclaredOf(scan([{ packageName: 'srv', specifier: 'srv/x' }]), { name: 'srv' })).toEqual({ onPath: [], later: [] });
  });

  it('names the first site, how many more, a devDependency, and at most three packages that bring it', () => {
    const site = { file: 'a.js', line: 3, kind: 'import' as const, specifier: 'zod' };
    expect(describeUndeclared({ package: 'zod', sites: [site] })).toBe('zod (import "zod" in a.js:3)');
    expect(describeUndeclared({ package: 'zod', sites: [site, site, site], devDependency: true, via: ['a@1', 'b@2', 'c@3'] })).toBe(
      'zod (import "zod" in a.js:3, and 2 more; declared only in devDependencies, which users do not install; npm\'s flat tree has it only through a@1, b@2, c@3)',
    );
    expect(describeUndeclared({ package: 'zod', sites: [site], via: ['a@1', 'b@2', 'c@3', 'd@4'] })).toBe(
      'zod (import "zod" in a.js:3; npm\'s flat tree has it only through a@1, b@2, c@3, …)',
    );
  });
});

describe('dependents', () => {
  it("who depends on each name in npm's lockfile, the cell's own root aside; a version missing reads ?", async () => {
    cell = mkdtempSync(path.join(tmpdir(), 'mm-undeclared-'));
    const lock = {
      packages: {
        '': { dependencies: { srv: '1.0.0', '@modelcontextprotocol/sdk': '1.24.0' } },
        'node_modules/@modelcontextprotocol/sdk': { version: '1.24.0', dependencies: { zod: '^4' } },
        'node_modules/fw': { peerDependencies: { '@modelcontextprotocol/sdk': '*' } },
      },
    };
    writeFileSync(path.join(cell, 'package-lock.json'), JSON.stringify(lock));
    expect(dependents(await readCellLock(cell), ['@modelcontextprotocol/sdk', 'zod', 'none'])).toEqual(
      new Map([
        ['@modelcontextprotocol/sdk', ['fw@?']],
        ['zod', ['@modelcontextprotocol/sdk@1.24.0']],
      ]),
    );
    expect(dependents(await readCellLock(path.join(cell, 'no-cell')), ['zod'])).toEqual(new Map());
  });

  it('a lockfile that is not JSON names none and throws nothing (environment names the file)', async () => {
    layout({}, {});
    expect(dependents(await readCellLock(cell), ['zod'])).toEqual(new Map([['zod', ['sdk@1.2.3', 'inner@0.1.0']]]));
    writeFileSync(path.join(cell, 'package-lock.json'), '{"packages": ');
    expect(dependents(await readCellLock(cell), ['zod'])).toEqual(new Map());
  });
});

describe('judgeImports: the messages', () => {
  it('two packages: "them", "each", each described; the dynamic check passing says what it read', async () => {
    layout({ bin: './cli.mjs' }, { 'cli.mjs': "import 'zod';\nimport 'open';\n" });
    const [onPath, later] = await judgeImports({ cellDir: cell, packageName: 'srv', key: 'two', levels: DEFAULTS });
    expect(onPath!.message).toBe(
      'imports 2 package(s) on its start path that it does not declare in dependencies, peerDependencies or optionalDependencies: zod (import "zod" in cli.mjs:1; npm\'s flat tree has it only through sdk@1.2.3, inner@0.1.0); open (import "open" in cli.mjs:2): a strict install (pnpm without hoisting, Yarn PnP) cannot resolve them; declare each',
    );
    expect(onPath!.short).toBe('undeclared: zod, open');
    expect(later).toMatchObject({
      outcome: 'passed',
      short: 'ok',
      message: 'every package imported by import() or a guarded require is declared (1 file(s) parsed)',
    });
  });

  it('files it could not parse are named as not judged', async () => {
    layout({ bin: './cli.mjs' }, { 'cli.mjs': "import './a.mjs';\nimport './b.mjs';\n", 'a.mjs': '<<<', 'b.mjs': '>>>' });
    const [onPath] = await judgeImports({ cellDir: cell, packageName: 'srv', key: 'unparsed', levels: DEFAULTS });
    expect(onPath!.message).toBe(
      'every package imported on the start path (bin, main and exports, through static imports) is declared (3 file(s) parsed) (not judged: 2 file(s) could not be parsed: a.mjs, b.mjs)',
    );
  });

  it('without a readable package.json both checks say so', async () => {
    cell = mkdtempSync(path.join(tmpdir(), 'mm-undeclared-'));
    const checks = await judgeImports({ cellDir: cell, packageName: 'srv', key: 'none', levels: DEFAULTS });
    expect(checks.map((c) => c.message)).toEqual([
      'srv has no readable package.json in the cell',
      'srv has no readable package.json in the cell',
    ]);
  });
});

describe('withImportChecks: the other cases', () => {
  const check = { id: 'undeclared-imports', outcome: 'passed' as const, level: 'require' as const, message: 'ok' };

  it('a passing require check changes nothing but the checks listed', () => {
    expect(withImportChecks(env(), [check]).result).toEqual({ phase: 'environment', verdict: 'passed', durationMs: 5, checks: [check] });
  });

  it("an earlier failure without a list gives its message (or 'failed') and 'verify'; a check without a step its own", () => {
    const failing = { ...check, outcome: 'failed' as const, message: 'imports zod' };
    expect(withImportChecks(env('failed', { message: 'broken' }), [failing]).result).toMatchObject({
      message: 'broken; undeclared-imports: imports zod',
      step: 'verify',
    });
    expect(withImportChecks(env('failed'), [failing]).result.message).toBe('failed; undeclared-imports: imports zod');
    expect(withImportChecks(env(), [failing]).result.step).toBe('undeclared imports');
  });

  it('a failed check on a not-measured environment fails it, and what could not be checked is still said', () => {
    const failing = { ...check, outcome: 'failed' as const, message: 'imports zod' };
    const lock = "the cell's package-lock.json is not valid JSON (x): the installed srv could not be checked against the tarball";
    expect(withImportChecks(env('not-measured', { message: lock, step: 'verify' }), [failing]).result).toMatchObject({
      verdict: 'failed',
      message: `undeclared-imports: imports zod; not measured: ${lock}`,
      step: 'undeclared imports',
      details: { problems: ['undeclared-imports: imports zod'] },
    });
  });
});
