import { describe, expect, it } from 'vitest';
import { cellLine, installLine, installStep, phaseLine, runWithProgress } from '../../src/orchestrator/progress.js';
import type { PlannedCell } from '../../src/plan/plan.js';
import type { CellResult } from '../../src/results/types.js';
import { makeCell } from '../reports/helpers/make-run.js';

const failing = makeCell({
  id: 'v1-floor',
  pin: '1.24.0',
  version: '1.24.0',
  major: 1,
  phases: { stdio: { verdict: 'failed', message: 'initialize: the server exited with code 1 (see its stderr)' } },
});
const unmeasured = makeCell({
  id: 'v2-rep',
  pin: '2.0.0',
  version: '2.0.0',
  major: 2,
  phases: { http: { verdict: 'not-measured', message: 'the port was taken' } },
});
const passing = makeCell({ id: 'v1-latest', pin: 'latest@1', version: '1.32.2', major: 1 });

const planned = (c: CellResult): PlannedCell => ({ id: c.id, version: c.version, pin: c.pin, major: c.major }) as unknown as PlannedCell;

describe('progress marks follow the result', () => {
  it('a failed cell is ✖, a not-measured cell ⊘ (distinct), a passed cell ✔', () => {
    expect(cellLine(failing)).toMatch(/^✖ v1-floor: FAILED \(stdio failed\)/);
    expect(cellLine(unmeasured)).toMatch(/^⊘ v2-rep: not measured \(http not-measured\)/);
    expect(cellLine(passing)).toMatch(/^✔ v1-latest: passed in 5\.0 s$/);
    const allowed = makeCell({
      id: 'a',
      pin: '1.24.0',
      version: '1.24.0',
      major: 1,
      allowedToFail: true,
      phases: { stdio: { verdict: 'failed' } },
    });
    expect(cellLine(allowed)).toMatch(/^✖ a: failed \(allowed to fail\)/);
  });

  it('phase lines carry a mark per verdict and the reason', () => {
    expect(phaseLine(failing.phases[1]!)).toBe('✖ stdio: initialize: the server exited with code 1 (see its stderr)');
    expect(phaseLine(unmeasured.phases[2]!)).toBe('⊘ http: not measured: the port was taken');
    expect(phaseLine({ phase: 'bind', verdict: 'skipped', durationMs: 0, message: 'not configured' })).toBe(
      '↓ bind: skipped (not configured)',
    );
    expect(phaseLine(passing.phases[0]!)).toBe('✔ environment (1000 ms)');
  });

  it('a bind another variant measured names that variant, passed or failed', () => {
    const details = { measuredBy: 'latest-1~client-latest-1', measuredMs: 180 };
    expect(phaseLine({ phase: 'bind', verdict: 'passed', durationMs: 0, details })).toBe(
      '✔ bind (as measured by latest-1~client-latest-1)',
    );
    expect(phaseLine({ phase: 'bind', verdict: 'failed', durationMs: 0, message: 'is listening on 0.0.0.0:4000', details })).toBe(
      '✖ bind: is listening on 0.0.0.0:4000 (as measured by latest-1~client-latest-1)',
    );
  });

  it('npm install is its own step with its elapsed time', () => {
    expect(installLine({ ok: true, durationMs: 6500, attempts: 1 })).toBe('✔ npm install (6.5 s)');
    expect(installLine({ ok: false, durationMs: 30_000, attempts: 2 })).toBe('✖ npm install (2 attempts, 30.0 s)');
  });

  it("a cell's install shared by its variants says so (and a single variant's does not)", () => {
    expect(installLine({ ok: true, durationMs: 6500, attempts: 1, sharedBy: 4 })).toBe('✔ npm install (6.5 s, shared by 4 variants)');
    expect(installLine({ ok: true, durationMs: 6500, attempts: 1, sharedBy: 1 })).toBe('✔ npm install (6.5 s)');
    // A strict leg's install is pnpm's or Yarn's: the line names the tool that ran it.
    expect(installLine({ ok: false, durationMs: 30_000, attempts: 1 }, installStep('pnpm-strict'))).toBe(
      '✖ pnpm install (strict) (30.0 s)',
    );
    expect(installStep('yarn-pnp')).toBe('yarn install (PnP)');
    expect(installStep(undefined)).toBe('npm install');
  });
});

describe('simple (plain/CI) renderer', () => {
  const fake =
    (result: CellResult, delayMs: number) => async (_cell: PlannedCell, hooks: Parameters<Parameters<typeof runWithProgress>[3]>[1]) => {
      hooks.onInstallStart?.();
      await new Promise((r) => setTimeout(r, delayMs));
      hooks.onInstallEnd?.({ ok: true, durationMs: 6500, attempts: 1 });
      for (const p of result.phases) {
        await new Promise((r) => setTimeout(r, delayMs));
        hooks.onPhaseResult?.(p);
      }
      return result;
    };

  it('prefixes every line with its cell when cells run concurrently, and marks the failed cell ✖', async () => {
    const lines: string[] = [];
    const byId = new Map([failing, passing].map((c) => [c.id, c]));
    const results = await runWithProgress(
      [planned(failing), planned(passing)],
      2,
      'simple',
      (cell, hooks) => fake(byId.get(cell.id)!, cell.id === 'v1-floor' ? 3 : 5)(cell, hooks),
      (l) => lines.push(l),
    );
    expect(results.map((r) => r.id)).toEqual(['v1-floor', 'v1-latest']);
    for (const l of lines) expect(l).toMatch(/^\[(v1-floor|v1-latest)\] /);
    // Interleaved: both cells' lines appear before either cell's last line.
    const firstEnd = lines.findIndex((l) => /\] [✔✖]\s\S+: /.test(l) && /passed|FAILED/.test(l));
    expect(lines.slice(0, firstEnd).some((l) => l.startsWith('[v1-floor]'))).toBe(true);
    expect(lines.slice(0, firstEnd).some((l) => l.startsWith('[v1-latest]'))).toBe(true);
    expect(lines).toContain('[v1-floor] ✔ npm install (6.5 s)');
    expect(lines).toContain('[v1-floor] ✖ stdio: initialize: the server exited with code 1 (see its stderr)');
    expect(lines.find((l) => l.startsWith('[v1-floor] ✖ v1-floor: FAILED'))).toBeDefined();
    expect(lines.find((l) => l.startsWith('[v1-latest] ✔ v1-latest: passed'))).toBeDefined();
    expect(lines.some((l) => /v1-floor.*✔ v1-floor/.test(l))).toBe(false);
  });

  it('one cell at a time: indented phase lines, the cell named on its first and last line', async () => {
    const lines: string[] = [];
    await runWithProgress([planned(unmeasured)], 1, 'simple', fake(unmeasured, 1), (l) => lines.push(l));
    expect(lines[0]).toBe('▶ v2-rep  2.0.0');
    expect(lines).toContain('  ⊘ http: not measured: the port was taken');
    expect(lines.at(-1)).toMatch(/^⊘ v2-rep: not measured/);
  });

  it('silent prints nothing', async () => {
    const lines: string[] = [];
    await runWithProgress([planned(passing)], 1, 'silent', fake(passing, 1), (l) => lines.push(l));
    expect(lines).toEqual([]);
  });
});
