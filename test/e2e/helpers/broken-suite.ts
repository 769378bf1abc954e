// The machinery of the broken-fixture files (broken.test.ts, broken-process.test.ts): each fixture's run in the file's
// beforeAll, through the real CLI (the files' `cli` list) or the harness's run in this process on a cell
// installed once per dependency set (fixture-cell.ts), side by side; then the same assertions on either: exit 1, the cell
// failed, exactly the targeted phase failed with a message naming the cause, matrix.sarif at level error under that
// phase's rules, and nothing (process, temp dir) survives the run.
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Log, Result } from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhaseName, RunResult } from '../../../src/results/types.js';
import { tempDir, type CliOutcome } from './cli.js';
import { runFixtureCell } from './fixture-cell.js';
import { runFixture, type FixtureRun } from './fixture-run.js';
import { processesOfRun } from './procs.js';
import { validateSarif } from '../../reports/helpers/sarif-validator.js';

export interface Case {
  fixture: string;
  phase: PhaseName;
  message: RegExp;
  step?: string | RegExp;
  /** Verdict of the phases that did not fail (install failures leave them not measured). */
  others?: 'not-measured';
  /** `run.tmp`: the run's own TMPDIR, for a check of what the run left (procs.ts processesOfRun). */
  extra?(r: RunResult, out: CliOutcome, run: FixtureRun): void;
  /** The CLI's environment (the conformance phase is off in the e2e runs unless a case turns it on). */
  env?: Record<string, string>;
  /** Rule ids matrix.sarif reports at level error, among others of the same phase (docs/phases.md, matrix.sarif). */
  sarif?: string[];
  /** Another phase that fails the same way (a lifecycle check runs in stdio and http): its step and message. */
  also?: { phase: PhaseName; step: string; message: RegExp };
}

export const CONFORMANCE_ON = { MCP_MATRIX_CONFORMANCE: 'on' };

/** A correct server's phases in an e2e run: every one passed, conformance off unless a case turns it on (MCP_MATRIX_CONFORMANCE). */
export const EVERY_PHASE_PASSED = [
  ['environment', 'passed'],
  ['stdio', 'passed'],
  ['http', 'passed'],
  ['bind', 'passed'],
  ['conformance', 'skipped'],
  ['leaks', 'passed'],
];

/** A lifecycle check's failure in the http phase: after the 401 checks and the round trip, which passed. */
export const afterRoundTrip = (check: string): RegExp =>
  new RegExp(`^no token → 401 with a Bearer challenge; wrong token → 401; round trip ok; ${check}$`);

/** A correct server that a harness which does not run it as a user would fails: every phase passes, exit 0. */
export interface Passing {
  fixture: string;
  extra?(r: RunResult): void;
}

/** Every cell passes and the run fails on a parity finding alone. */
export interface Parity {
  fixture: string;
  findings: string[];
}

export interface BrokenSuite {
  /** Runs fixtures/broken/_base (the control every fixture is copied from, with the conformance phase on) too. */
  control: boolean;
  cases: Case[];
  passing: Passing[];
  parity: Parity[];
  /**
   * Fixtures run through the real CLI ('_base' for the control): where the CLI's exit code, matrix.sarif and cleanup are
   * proven end to end. The others run in this process (helpers/fixture-cell.ts), npm's install too where it is the subject.
   */
  cli: string[];
}

/** The results of the matrix.sarif a run wrote, as `rule level uri:line`, with the cell each names. */
function sarifOf(run: FixtureRun): { results: Result[]; lines: string[] } {
  const log = JSON.parse(readFileSync(path.join(run.outDir, 'matrix.sarif'), 'utf8')) as Log;
  const results = log.runs[0]!.results!;
  const lines = results.map((r) => {
    const at = r.locations![0]!.physicalLocation!;
    return `${r.ruleId} ${r.level} ${at.artifactLocation!.uri}:${at.region!.startLine} (${String(r.properties!.cell)})`;
  });
  return { results, lines };
}

function phaseTable(r: RunResult): string {
  return r.cells
    .flatMap((c) => c.phases.map((p) => `${p.phase}: ${p.verdict}${p.step ? ` [${p.step}]` : ''}${p.message ? ` ${p.message}` : ''}`))
    .join('\n');
}

/** The file's runs (beforeAll) and its tests, one per fixture, plus the SARIF validation and the hang guard. */
export function describeBroken({ control, cases: CASES, passing: PASSING, parity: PARITY, cli: CLI }: BrokenSuite): void {
  const runs = new Map<string, FixtureRun>();
  const dirs: string[] = [];

  beforeAll(async () => {
    // Two at a time on a 2-core machine: most of a run is npm install and waiting on servers.
    const queue = [
      ...(control ? ['_base'] : []),
      ...PASSING.map((p) => p.fixture),
      ...CASES.map((c) => c.fixture),
      ...PARITY.map((p) => p.fixture),
    ];
    // The CLI's runs and the in-process ones (one at a time: a run's end kills every process this one started) side by side.
    const viaCli = new Set(CLI);
    const lanes = [queue.filter((f) => viaCli.has(f)), queue.filter((f) => !viaCli.has(f))];
    const worker = async (lane: string[]): Promise<void> => {
      for (let f = lane.shift(); f !== undefined; f = lane.shift()) {
        // A TMPDIR of the run's own: its leftovers are looked for there, so no other run on the machine is taken for them.
        const tmp = await tempDir(`mm-broken-tmp-${f}-`);
        dirs.push(tmp);
        const env = { ...(f === '_base' ? CONFORMANCE_ON : (CASES.find((c) => c.fixture === f)?.env ?? {})), TMPDIR: tmp };
        const run = await (viaCli.has(f) ? runFixture : runFixtureCell)(f, undefined, env);
        dirs.push(run.outDir);
        runs.set(f, run);
      }
    };
    await Promise.all(lanes.map(worker));
  }, 900_000);

  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  describe('fixtures/broken: each fails exactly its phase', () => {
    if (control)
      it('the control (_base, every fixture is copied from it) passes every phase: no false alarm', () => {
        const run = runs.get('_base')!;
        expect(run.results, run.out.stderr).toBeDefined();
        expect(run.out.code, phaseTable(run.results!)).toBe(0);
        expect(run.results!.cells[0]!.phases.map((p) => p.verdict)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'passed']);
        // Behind its token, the suite's DNS-rebinding scenario (for servers without auth) is a warning, never a verdict.
        const conformance = run.results!.cells[0]!.phases.find((p) => p.phase === 'conformance')!;
        expect(conformance.details!.proxy).toMatchObject({ adds: 'Authorization: Bearer <the run token>' });
        expect(conformance.details!.scenarios).toEqual(
          expect.arrayContaining([expect.objectContaining({ name: 'dns-rebinding-protection', level: 'warn' })]),
        );
        // No false alarm in matrix.sarif either: nothing at level error (a warn sub-check may be a warning).
        expect(sarifOf(run).lines.filter((l) => l.includes(' error '))).toEqual([]);
        expect(run.results!.plan.packageDir).toBe('.');
        // Where the config sits in this checkout: matrix.sarif's paths are the repository's.
        expect(run.results!.plan.configDir).toBe('fixtures/broken/_base');
        expect(run.leftoverDirs).toEqual([]);
        expect(run.leftoverProcs).toEqual([]);
      });

    if (PASSING.length)
      it.each(PASSING.map((p) => [p.fixture, p] as const))(
        '%s (a correct server, run as its bin says) passes every phase',
        (fixture, p) => {
          const run = runs.get(fixture)!;
          expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
          const table = phaseTable(run.results!);
          expect(run.out.code, table).toBe(0);
          expect(
            run.results!.cells[0]!.phases.map((p) => [p.phase, p.verdict]),
            table,
          ).toEqual(EVERY_PHASE_PASSED);
          p.extra?.(run.results!);
          expect(run.leftoverDirs).toEqual([]);
          expect(run.leftoverProcs).toEqual([]);
          // detached-grace's helper left within the grace, and nothing killed it late.
          expect(processesOfRun(run.tmp, 'broken-detached-grace-marker')).toEqual([]);
        },
      );

    if (CASES.length)
      it.each(CASES.map((c) => [c.fixture, c] as const))('%s', (fixture, c) => {
        const run = runs.get(fixture)!;
        expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
        const r = run.results!;
        const table = phaseTable(r);
        expect(run.out.code, table).toBe(1);
        expect(r.exitCode).toBe(1);
        expect(r.interrupted).toBe(false);
        expect(r.cells).toHaveLength(1);
        const cell = r.cells[0]!;
        expect(cell.verdict, table).toBe('failed');
        const failed = cell.phases.filter((p) => p.verdict === 'failed').map((p) => p.phase);
        expect(failed, table).toEqual(c.also ? [c.phase, c.also.phase] : [c.phase]);
        if (c.also) {
          const also = cell.phases.find((p) => p.phase === c.also!.phase)!;
          expect(also.message, table).toMatch(c.also.message);
          expect(also.step).toBe(c.also.step);
        }
        for (const p of cell.phases) {
          if (p.phase === c.phase || p.phase === c.also?.phase) continue;
          if (c.others) expect(p.verdict, table).toBe(c.others);
          else expect(['passed', 'skipped'], table).toContain(p.verdict);
        }
        const target = cell.phases.find((p) => p.phase === c.phase)!;
        expect(target.message, table).toMatch(c.message);
        if (c.step !== undefined) expect(target.step).toEqual(c.step);
        // The human summary names the phase and the cause too.
        expect(run.out.stdout + run.out.stderr).toContain(`${c.phase}: FAIL`);
        c.extra?.(r, run.out, run);
        // matrix.sarif: the failure at level error, under the failed phase's rules only, at the package's package.json (a repository path)
        // (a leak at the file and line its live handle was created at), naming the cell.
        const sarif = sarifOf(run);
        const errors = sarif.results.filter((x) => x.level === 'error');
        expect(errors.length, sarif.lines.join('\n')).toBeGreaterThan(0);
        for (const [i, e] of errors.entries()) {
          const phases = [c.phase, ...(c.also ? [c.also.phase] : [])];
          expect(
            phases.some((p) => e.ruleId!.startsWith(`${p}/`)),
            sarif.lines.join('\n'),
          ).toBe(true);
          expect(e.properties!.cell).toBe(cell.cell);
          const uri = e.locations![0]!.physicalLocation!.artifactLocation!.uri;
          const at = `fixtures/broken/${fixture}/`;
          expect(uri === `${at}package.json` || (c.phase === 'leaks' && uri!.startsWith(`${at}bin/`)), `${i}: ${uri}`).toBe(true);
        }
        expect(errors.map((e) => e.ruleId)).toEqual(expect.arrayContaining(c.sarif ?? []));
        // No cell directory and no process of the fixture survives the run.
        expect(run.leftoverDirs).toEqual([]);
        expect(run.leftoverProcs).toEqual([]);
      });

    if (PARITY.length)
      it.each(PARITY.map((p) => [p.fixture, p] as const))(
        '%s: every cell passes, the run fails on its parity finding alone',
        (fixture, p) => {
          const run = runs.get(fixture)!;
          expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
          const r = run.results!;
          const table = phaseTable(r);
          expect(run.out.code, table).toBe(1);
          expect(r.verdict).toBe('failed');
          expect(r.cells.map((c) => [c.id, c.verdict])).toEqual([
            ['latest-1', 'passed'],
            ['latest-2', 'passed'],
          ]);
          // Versions vary with the registry: each cell's own, as the finding names it.
          const versions = r.cells.map((c) => c.version);
          const named = p.findings.map((f) => versions.reduce((text, v) => text.replace('VERSION', v), f));
          expect(r.parity!.findings).toEqual(named);
          expect(run.out.stdout + run.out.stderr).toContain(`answer differs: ${named[0]}`);
          expect(run.leftoverDirs).toEqual([]);
          expect(run.leftoverProcs).toEqual([]);
        },
      );

    // A hang guard above the validator's own (240 s, sarif-validator.ts): 83 s seen for broken.test's files under load.
    it("every matrix.sarif the runs wrote passes Microsoft's SARIF validator (the schema and GitHub's ingestion rules)", async () => {
      const files = [...runs.values()].map((r) => path.join(r.outDir, 'matrix.sarif'));
      expect(files.length).toBe((control ? 1 : 0) + PASSING.length + CASES.length + PARITY.length);
      expect(await validateSarif(files)).toEqual({ errors: [], warnings: [] });
    }, 300_000);

    // A hang guard, not a speed check (speed is the bench's): no phase of the harness's own waits out a long bound.
    // The longest a fixture makes a phase wait by design is a few seconds (its graceMs, a 3000 ms timeout, a banner at
    // 4000 ms); 30 s is 4x the slowest phase measured under load. The npm install (npm and the registry) and the
    // conformance phase (the official suite, bounded by its own timeoutMs) are left out: a whole run's wall time,
    // bounded at 90 s until 2 Dec 2026, followed the machine's load (91.3 s for _base on a busy machine), and
    // runFixture's 240 s bound on the CLI still ends a run that hangs there.
    it('each run stays within its budget: no phase of the harness waits 30 s', () => {
      const slow = [...runs].flatMap(([f, r]) =>
        (r.results?.cells ?? []).flatMap((c) =>
          c.phases
            .filter((p) => p.phase !== 'conformance' && p.durationMs > 30_000)
            .map((p) => `${f} ${c.id} ${p.phase}: ${p.durationMs} ms`),
        ),
      );
      expect(slow).toEqual([]);
      console.log([...runs].map(([f, r]) => `${f}: ${(r.ms / 1000).toFixed(1)} s`).join('\n'));
    });
  });
}
