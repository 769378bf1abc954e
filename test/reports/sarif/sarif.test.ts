// matrix.sarif: each kind of finding under its stable rule id, level, message, cell or variant and
// location; a passing run has no result; and every file passes Microsoft's own SARIF validator (which
// is shown to catch a broken file, so its silence means something).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Log, Result } from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSarif } from '../../../src/reports/sarif/sarif.js';
import { STATIC_RULES } from '../../../src/reports/sarif/sarif-rules.js';
import { CHECKS } from '../../../src/contract/checks.js';
import type { RunResult, SubCheckResult } from '../../../src/results/types.js';
import { FOUR_CELLS, makeRun, variantSpecs } from '../helpers/make-run.js';
import { validateSarif } from '../helpers/sarif-validator.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-sarif-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const RANGE = 'pin @modelcontextprotocol/sdk@1.24.0 is outside the range ">=1.25.0" that @acme/notes-mcp declares';
const RUNTIME =
  "the stdio and http servers loaded @modelcontextprotocol/sdk 1.25.0 from node_modules/@acme/notes-mcp/node_modules/@modelcontextprotocol/sdk, not the cell's 1.24.0 at node_modules/@modelcontextprotocol/sdk";
const UNDECLARED = 'imports 1 package(s) on its start path that it does not declare: zod (import "zod" in bin/server.js:9)';
const SPEC = { revision: 'MCP 2025-11-25', section: 'basic/transports#security-warning' };

const check = (c: Partial<SubCheckResult> & Pick<SubCheckResult, 'id' | 'outcome' | 'level' | 'message'>): SubCheckResult => c;

/** One run with a finding of every kind. */
function failingRun(): RunResult {
  const [floor, latest1, rep2, latest2] = FOUR_CELLS;
  return makeRun(
    [
      {
        ...floor!,
        phases: {
          environment: {
            verdict: 'failed',
            step: 'verify',
            message: `${RANGE}; ${RUNTIME}; undeclared-imports: ${UNDECLARED}`,
            details: {
              problems: [RANGE, RUNTIME, `undeclared-imports: ${UNDECLARED}`],
              runtime: { verdict: 'failed', messages: [RUNTIME] },
            },
            checks: [
              check({ id: 'undeclared-imports', outcome: 'failed', level: 'require', message: UNDECLARED, step: 'undeclared imports' }),
              check({
                id: 'undeclared-dynamic-imports',
                outcome: 'failed',
                level: 'warn',
                message: 'loads 1 package(s) by import(): open',
              }),
            ],
          },
        },
      },
      {
        ...latest1!,
        phases: {
          http: {
            verdict: 'failed',
            step: 'request without a token',
            message: 'no token → 200 (want 401)',
            checks: [
              check({ id: 'no-token-401', outcome: 'failed', level: 'require', requirement: 'MUST', message: 'no token → 200 (want 401)' }),
              check({
                id: 'origin',
                outcome: 'failed',
                level: 'warn',
                requirement: 'MUST',
                spec: SPEC,
                message: 'a foreign Origin got 200',
              }),
              check({ id: 'round-trip', outcome: 'passed', level: 'require', message: 'ok' }),
            ],
          },
          bind: {
            verdict: 'failed',
            step: 'watch',
            message: 'is listening on 0.0.0.0:41483 (IPv4 wildcard: every interface): asked to bind 0.0.0.0 with no token',
            details: { outcome: 'listened' },
          },
          leaks: { verdict: 'failed', step: 'stdio shutdown', message: 'stdio server still running 3000 ms after stdin EOF' },
        },
        summary: { leakedHandles: [{ owner: 'server:stdio', type: 'Timeout', createdBy: 'setInterval', location: 'bin/server.js:32' }] },
      },
      {
        ...rep2!,
        phases: {
          conformance: {
            verdict: 'failed',
            step: 'dns-rebinding-protection',
            message: '1 of 7 scenario(s) failed: dns-rebinding-protection',
            checks: [
              check({
                id: 'dns-rebinding-protection',
                outcome: 'failed',
                level: 'require',
                requirement: 'MUST',
                spec: SPEC,
                judge: '@modelcontextprotocol/conformance@0.1.16',
                message: 'Expected HTTP 4xx for invalid Host/Origin headers, got 200',
              }),
            ],
          },
        },
      },
      {
        ...latest2!,
        allowedToFail: true,
        phases: { stdio: { verdict: 'failed', step: 'initialize', message: 'timed out after 3000 ms' } },
      },
    ],
    {
      warnings: ['lockstep: @acme/notes-mcp declares >=1.24.0 <3 but no cell pins 2.x latest'],
      surface: { cells: ['v1-floor'], findings: ['tool add: inputSchema differs between v1-floor and v2-rep'], allowed: [], allow: [] },
    },
  );
}

function withPackageDir(run: RunResult, packageDir: string): RunResult {
  return { ...run, plan: { ...run.plan, packageDir } };
}

const parse = (run: RunResult): Log => JSON.parse(renderSarif(run)) as Log;
const results = (log: Log): Result[] => log.runs[0]!.results!;
const uri = (r: Result) => r.locations![0]!.physicalLocation!.artifactLocation!.uri;

describe('renderSarif', () => {
  const log = parse(withPackageDir(failingRun(), 'packages/server'));
  const byRule = (id: string) => results(log).filter((r) => r.ruleId === id);

  it('each finding under its rule id, with its level and location (package.json for the package, the config for the config)', () => {
    expect(results(log).map((r) => [r.ruleId, r.level, uri(r)])).toEqual([
      ['environment/undeclared-imports', 'error', 'packages/server/package.json'],
      ['environment/undeclared-dynamic-imports', 'warning', 'packages/server/package.json'],
      ['environment/sdk-range', 'error', 'packages/server/package.json'],
      ['environment/runtime-sdk', 'error', 'packages/server/package.json'],
      ['http/no-token-401', 'error', 'packages/server/package.json'],
      ['http/origin', 'warning', 'packages/server/package.json'],
      ['bind/exposed', 'error', 'packages/server/package.json'],
      ['leaks/failed', 'error', 'packages/server/bin/server.js'],
      ['conformance/dns-rebinding-protection', 'error', 'packages/server/package.json'],
      ['stdio/failed', 'note', 'packages/server/package.json'],
      ['surface/parity', 'error', 'matrix.config.ts'],
      ['config/lockstep', 'warning', 'matrix.config.ts'],
    ]);
  });

  it('the message names the cell, the phase and the cause; the result carries the cell, its variants and its repro', () => {
    const [range] = byRule('environment/sdk-range');
    expect(range!.message.text).toBe(`cell v1-floor (SDK 1.24.0): environment: ${RANGE}`);
    expect(range!.properties).toMatchObject({
      cell: 'v1-floor',
      variants: ['v1-floor'],
      phase: 'environment',
      step: 'verify',
      repro: 'npx mcp-matrix run --cell v1-floor',
    });
    // The environment's check is its own finding; the environment's other problems are reported beside it, once each.
    expect(byRule('environment/undeclared-imports')[0]!.message.text).toBe(
      `cell v1-floor (SDK 1.24.0): environment › undeclared-imports: ${UNDECLARED} [harness, level require]`,
    );
    expect(results(log).filter((r) => r.message.text!.includes('zod'))).toHaveLength(1);
    expect(range!.locations![0]!.logicalLocations).toEqual([{ name: 'v1-floor', fullyQualifiedName: 'v1-floor/v1-floor', kind: 'module' }]);
    expect(byRule('http/origin')[0]!.message.text).toBe(
      'cell v1-latest (SDK 1.32.2): http › origin: a foreign Origin got 200 [MUST, MCP 2025-11-25 basic/transports#security-warning, level warn (harness policy)]',
    );
    expect(byRule('bind/exposed')[0]!.message.text).toMatch(/^cell v1-latest \(SDK 1\.32\.2\): bind: is listening on 0\.0\.0\.0:41483/);
    // The leak's creation site is the location, with its line; the handles are in the message.
    expect(byRule('leaks/failed')[0]!.locations![0]!.physicalLocation!.region).toEqual({ startLine: 32 });
    expect(byRule('leaks/failed')[0]!.message.text).toContain(
      'live handles: Timeout created by setInterval at bin/server.js:32 (server:stdio)',
    );
    // A failure the config allows is a note that says so.
    expect(byRule('stdio/failed')[0]!.message.text).toBe(
      'cell v2-latest (SDK 2.1.0): stdio: timed out after 3000 ms (expected: the cell is allowed to fail)',
    );
  });

  it('rules: every static rule and http sub-check, plus each second judge scenario seen; security findings carry a severity', () => {
    const rules = log.runs[0]!.tool.driver.rules!;
    const ids = rules.map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining([...STATIC_RULES.map((r) => r.id), ...CHECKS.map((c) => `${c.phase}/${c.id}`)]));
    expect(ids).toContain('conformance/dns-rebinding-protection');
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of results(log)) expect(rules[r.ruleIndex!]!.id).toBe(r.ruleId);
    const origin = rules.find((r) => r.id === 'http/origin')!;
    expect(origin.helpUri).toBe('https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning');
    expect(origin.properties).toEqual({ tags: ['security', 'mcp'], 'security-severity': '6.5' });
    expect(rules.find((r) => r.id === 'http/www-authenticate')!.helpUri).toBe('https://www.rfc-editor.org/rfc/rfc6750#section-3');
    expect(rules.find((r) => r.id === 'bind/exposed')!.properties!['security-severity']).toBe('8.0');
  });

  it('every rule id is documented in docs/phases.md (matrix.sarif)', async () => {
    const doc = await readFile(new URL('../../../docs/phases.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## matrix.sarif'));
    for (const id of [...STATIC_RULES.map((r) => r.id), ...CHECKS.map((c) => `${c.phase}/${c.id}`)]) {
      const phase = id.split('/')[0]!;
      const byCatalogue =
        ((phase === 'http' || phase === 'stdio') && section.includes(`\`${phase}/<check>\``)) ||
        // leaks' own shutdown check is reported as leaks/failed (with the leaked handle's file and line).
        (id === 'leaks/shutdown' && section.includes('the sub-check `leaks/shutdown` is reported as this rule'));
      expect(section.includes(`\`${id}\``) || byCatalogue, id).toBe(true);
    }
  });

  it('fingerprints are stable across runs (no port, no time in them) and distinct per finding', () => {
    const again = failingRun();
    const bind = again.cells[1]!.phases.find((p) => p.phase === 'bind')!;
    bind.message = bind.message!.replace('41483', '40001');
    const second = results(parse(withPackageDir({ ...again, startedAt: '2027-01-01T00:00:00.000Z' }, 'packages/server')));
    expect(second.map((r) => r.partialFingerprints)).toEqual(results(log).map((r) => r.partialFingerprints));
    const prints = results(log).map((r) => Object.values(r.partialFingerprints!)[0]);
    expect(new Set(prints).size).toBe(prints.length);
  });

  it("paths are the repository's when the run knew where the config sits in its checkout", () => {
    const run = withPackageDir(failingRun(), '../server');
    const r = results(parse({ ...run, plan: { ...run.plan, configDir: 'packages/matrix' } }));
    expect([...new Set(r.map(uri))]).toEqual([
      'packages/server/package.json',
      'packages/server/bin/server.js',
      'packages/matrix/matrix.config.ts',
    ]);
    const atRoot = results(parse({ ...run, plan: { ...run.plan, configDir: '.', packageDir: '.' } }));
    expect([...new Set(atRoot.map(uri))]).toEqual(['package.json', 'bin/server.js', 'matrix.config.ts']);
  });

  it('without the package directory (a config naming a tarball) a package finding points at the config', () => {
    const r = results(parse(failingRun()));
    expect(r.map(uri)).toEqual(Array(r.length).fill('matrix.config.ts'));
    expect(r.find((x) => x.ruleId === 'leaks/failed')!.locations![0]!.physicalLocation!.region).toEqual({ startLine: 1 });
  });

  it('the variants of a cell that found the same thing share one result naming them; a bind measured once is reported once', () => {
    const specs = variantSpecs({}, [FOUR_CELLS[1]!]).map((s) => ({
      ...s,
      phases: {
        bind: {
          verdict: 'failed' as const,
          message: 'is listening on [::]:4000',
          details: {
            outcome: 'tried-to-listen',
            ...(s.id.includes('client-1.0.0') ? {} : { measuredBy: 'v1-latest~client-1.0.0~node-22' }),
          },
        },
        leaks: { verdict: 'failed' as const, message: 'http server still running' },
      },
    }));
    const r = results(parse(makeRun(specs)));
    expect(r.map((x) => [x.ruleId, x.properties!.variants])).toEqual([
      ['bind/exposed', ['v1-latest~client-1.0.0~node-22']],
      ['leaks/failed', ['v1-latest~client-1.0.0~node-22', 'v1-latest~client-latest-2~node-22']],
    ]);
    expect(r[1]!.message.text).toBe(
      'cell v1-latest (SDK 1.32.2), variants v1-latest~client-1.0.0~node-22, v1-latest~client-latest-2~node-22: leaks: http server still running',
    );
  });

  it('a baseline-listed failure is a note naming the entry; a stale allowance and snapshot drift are findings', () => {
    const run = makeRun(
      [
        { ...FOUR_CELLS[0]!, phases: { leaks: { verdict: 'failed', message: 'a timer' } } },
        { ...FOUR_CELLS[1]!, allowedToFail: true },
      ],
      {
        baseline: {
          file: 'mcp-matrix.baseline.json',
          entries: [{ cell: 'v1-floor', phase: 'leaks', reason: 'upstream timer, issue 12', line: 2 }],
        },
        surface: { cells: [], findings: [], allowed: [], allow: [], drift: ['tool add: added'] },
      },
    );
    expect(results(parse(run)).map((r) => [r.ruleId, r.level, uri(r), r.message.text])).toEqual([
      [
        'leaks/failed',
        'note',
        'matrix.config.ts',
        'cell v1-floor (SDK 1.24.0): leaks: a timer (expected: listed in mcp-matrix.baseline.json: upstream timer, issue 12)',
      ],
      [
        'config/stale-allowance',
        'error',
        'matrix.config.ts',
        'cell v1-latest (SDK 1.32.2): every phase passed, but the cell is marked allowedToFail',
      ],
      ['surface/drift', 'error', 'mcp-surface.json', 'tool add: added'],
    ]);
  });

  it('a passing run, and a not-measured phase (the harness, not the server), have no result', () => {
    expect(results(parse(makeRun()))).toEqual([]);
    const infra = makeRun([{ ...FOUR_CELLS[0]!, phases: { http: { verdict: 'not-measured', message: 'port race' } } }]);
    expect(results(parse(infra))).toEqual([]);
    expect(parse(infra).runs[0]!.invocations![0]!.executionSuccessful).toBe(false);
  });
});

// The validator is a self-contained .NET program: 7 s on a quiet machine, several CPU-s of start-up. The bounds below
// (the validator's own, in sarif-validator.ts, and each test's) are hang guards for a loaded one.
describe("Microsoft's SARIF validator (Sarif.Multitool validate)", () => {
  it('passes the failing, the passing and the tarball-only runs without an error or a warning', async () => {
    const files = {
      failing: withPackageDir(failingRun(), 'packages/server'),
      passing: makeRun(),
      tarball: failingRun(),
    };
    const paths = await Promise.all(
      Object.entries(files).map(async ([name, run]) => {
        const file = path.join(dir, `${name}.sarif`);
        await writeFile(file, renderSarif(run));
        return file;
      }),
    );
    expect(await validateSarif(paths)).toEqual({ errors: [], warnings: [] });
  }, 300_000);

  it('catches a broken file (schema: a result without a message, a run without a tool; GitHub: a result without a location): its silence above means something', async () => {
    const schemaBroken = parse(failingRun()) as unknown as { runs: Record<string, unknown>[] };
    delete (schemaBroken.runs[0]!.results as Record<string, unknown>[])[0]!.message;
    const githubBroken = parse(failingRun()) as unknown as { runs: Record<string, unknown>[] };
    delete (githubBroken.runs[0]!.results as Record<string, unknown>[])[1]!.locations;
    const files = [path.join(dir, 'schema-broken.sarif'), path.join(dir, 'github-broken.sarif')];
    await writeFile(files[0]!, JSON.stringify({ ...schemaBroken, runs: [...schemaBroken.runs, { results: [] }] }));
    await writeFile(files[1]!, JSON.stringify(githubBroken));
    const errors = (await validateSarif(files)).errors.join('\n');
    expect(errors).toMatch(/^schema-broken\.sarif: JSON1002 .*results\[0\] \| message/m);
    expect(errors).toMatch(/^schema-broken\.sarif: JSON1002 .*runs\[1\] \| tool/m);
    // GitHub's own ingestion rule: a result must have a location.
    expect(errors).toMatch(/^github-broken\.sarif: GH1015 .*results\[1\]/m);
  }, 300_000);
});
