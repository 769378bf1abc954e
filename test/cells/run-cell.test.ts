import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bindToShare,
  lockfileSha256,
  recheckInstall,
  runVariant,
  sharedBind,
  withMutatedInstall,
  type CellContext,
  type CellInstall,
} from '../../src/cells/run-cell.js';
import type { PlannedCell, PlannedVariant } from '../../src/plan/plan.js';
import type { EnvironmentEvidence, PhaseResult, Verdict } from '../../src/results/types.js';
import { fail } from '../../src/util/result.js';
import { makeCell } from '../reports/helpers/make-run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-recheck-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the lockfile re-check after a cell's variants", () => {
  it('an untouched install passes', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
    const installed = await lockfileSha256(dir);
    expect(installed).toMatch(/^[0-9a-f]{64}$/);
    expect(await recheckInstall(dir, installed)).toBeUndefined();
  });

  it('a lockfile changed under the variants is named, old → new', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
    const installed = await lockfileSha256(dir);
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{"node_modules/x":{}}}');
    const now = await lockfileSha256(dir);
    expect(await recheckInstall(dir, installed)).toBe(
      `the cell's install changed while its variants ran (package-lock.json sha256 ${installed!.slice(0, 12)}… → ${now!.slice(0, 12)}…): the harness mutated it, so no variant of this cell measured the pinned install`,
    );
  });

  it('a removed lockfile is a change too', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{}');
    const installed = await lockfileSha256(dir);
    await rm(path.join(dir, 'package-lock.json'));
    expect(await recheckInstall(dir, installed)).toContain('→ removed)');
  });

  it('a mutated install makes each of its rows not measured in environment, naming it, whatever the phases said', () => {
    const row = makeCell({ id: 'latest-2~client-1.0.0', pin: 'latest@2', version: '2.4.0', major: 2 });
    expect(row.verdict).toBe('passed');
    const marked = withMutatedInstall(row, 'the install changed');
    expect(marked.verdict).toBe('not-measured');
    expect(marked.outcome).toBe('not-measured');
    expect(marked.phases.find((p) => p.phase === 'environment')).toMatchObject({
      verdict: 'not-measured',
      step: 'lockfile re-check',
      message: 'the install changed',
    });
    expect(marked.phases.filter((p) => p.phase !== 'environment')).toEqual(row.phases.filter((p) => p.phase !== 'environment'));
  });
});

describe('a variant whose client or Node runtime could not be installed', () => {
  const cell = {
    id: 'latest-2',
    pin: 'latest@2',
    version: '2.4.0',
    major: 2,
    primary: '@modelcontextprotocol/server',
    allowedToFail: false,
    installSet: { '@modelcontextprotocol/server': '2.4.0' },
    variants: [],
  } as unknown as PlannedCell;
  const client = { id: 'client-1.0.0', pin: '1.0.0', major: 1, version: '1.0.0', package: '@modelcontextprotocol/sdk', installSet: {} };
  const node = { id: 'node-22', spec: '22', version: '22.12.0' };
  const installed: CellInstall = {
    kind: 'installed',
    cellDir: '/nowhere/cell-latest-2',
    installMs: 1000,
    attempts: 1,
    env: {
      result: { phase: 'environment', verdict: 'passed', durationMs: 5 },
      evidence: { lockfileSha256: 'x' } as unknown as EnvironmentEvidence,
    },
    driver: { dir: '/nowhere', entry: '/nowhere/index.js', probe: '/nowhere/probe.js', log: '/nowhere/log' },
  };
  const ctx = (overrides: Partial<CellContext>): CellContext =>
    ({
      keep: false,
      signal: new AbortController().signal,
      repro: (_c: PlannedCell, v: PlannedVariant) => `npx mcp-matrix run --cell ${v.id}`,
      ...overrides,
    }) as unknown as CellContext;

  it('a failed client install: not measured (the harness’s instrument, not the server), naming the cause; no phase runs', async () => {
    const row = await runVariant(
      cell,
      { id: 'latest-2~client-1.0.0', client },
      Promise.resolve(installed),
      ctx({
        clientInstall: async () =>
          fail('infrastructure', 'the client @modelcontextprotocol/sdk@1.0.0 (1.0.0) could not be installed into /x: ETARGET'),
      }),
    );
    expect(row).toMatchObject({ id: 'latest-2~client-1.0.0', cell: 'latest-2', verdict: 'not-measured', outcome: 'not-measured' });
    expect(row.client).toEqual({ pin: '1.0.0', major: 1, version: '1.0.0', package: '@modelcontextprotocol/sdk' });
    expect(row.phases[0]).toMatchObject({
      phase: 'environment',
      verdict: 'not-measured',
      step: 'client install',
      message: 'the client @modelcontextprotocol/sdk@1.0.0 (1.0.0) could not be installed into /x: ETARGET',
    });
    for (const p of row.phases.slice(1))
      expect(p).toEqual({
        phase: p.phase,
        verdict: 'not-measured',
        durationMs: 0,
        message: "not run: the variant's client could not be installed",
      });
    expect(row.repro).toBe('npx mcp-matrix run --cell latest-2~client-1.0.0');
  });

  it('a Node runtime that could not be installed: not measured with its message', async () => {
    const row = await runVariant(
      cell,
      { id: 'latest-2~node-22', node },
      Promise.resolve(installed),
      ctx({ nodeRuntime: async () => fail('infrastructure', 'no Node 22.12.0 binary for linux-s390x') }),
    );
    expect(row.node).toEqual({ spec: '22', version: '22.12.0' });
    expect(row.verdict).toBe('not-measured');
    expect(row.phases[0]).toMatchObject({
      verdict: 'not-measured',
      step: 'node runtime',
      message: 'no Node 22.12.0 binary for linux-s390x',
    });
    expect(row.phases[1]!.message).toBe("not run: the variant's Node runtime could not be installed");
  });

  it("a cell that could not be installed: every variant carries the install's own result", async () => {
    const failed: CellInstall = {
      kind: 'not-installed',
      installMs: 300,
      environment: {
        phase: 'environment',
        verdict: 'failed',
        durationMs: 300,
        step: 'npm install',
        message: 'npm install failed (ERESOLVE): x',
      },
    };
    const row = await runVariant(cell, { id: 'latest-2~client-1.0.0', client }, Promise.resolve(failed), ctx({}));
    expect(row.verdict).toBe('failed');
    expect(row.phases[0]!.message).toBe('npm install failed (ERESOLVE): x');
    expect(row.phases[1]!.message).toBe('not run: the cell could not be installed');
  });
});

describe('bind shared by the variants of a cell on one Node release (bind never uses the client)', () => {
  const phases = (bind: Verdict, leaks: Verdict): PhaseResult[] => [
    { phase: 'stdio', verdict: 'passed', durationMs: 300 },
    { phase: 'bind', verdict: bind, durationMs: 180, message: `bind ${bind}`, details: { outcome: 'refused' } },
    { phase: 'leaks', verdict: leaks, durationMs: 20 },
  ];

  it('a measured bind (passed or failed) whose servers leaks judged clean, or with leaks off, is shared', () => {
    for (const leaks of ['passed', 'skipped'] as const) {
      expect(bindToShare(phases('passed', leaks))).toMatchObject({ phase: 'bind', verdict: 'passed', message: 'bind passed' });
      expect(bindToShare(phases('failed', leaks))).toMatchObject({ phase: 'bind', verdict: 'failed', message: 'bind failed' });
    }
  });

  it('an unmeasured or skipped bind is not shared: the next variant measures its own', () => {
    for (const bind of ['not-measured', 'skipped'] as const) expect(bindToShare(phases(bind, 'passed'))).toBeUndefined();
  });

  it("a bind whose variant's leaks failed or went unmeasured is not shared (the bind server may be the leak)", () => {
    for (const leaks of ['failed', 'not-measured'] as const) expect(bindToShare(phases('passed', leaks))).toBeUndefined();
    expect(bindToShare(phases('passed', 'passed').filter((p) => p.phase !== 'leaks'))).toBeUndefined();
    expect(bindToShare(phases('passed', 'passed').filter((p) => p.phase !== 'bind'))).toBeUndefined();
  });

  it('the sharing variant reports the same verdict, message and details, with who measured it and how long it took', () => {
    const measured = phases('failed', 'passed')[1]!;
    expect(sharedBind({ variant: 'latest-1~client-latest-1~node-20', result: measured })).toEqual({
      phase: 'bind',
      verdict: 'failed',
      message: 'bind failed',
      durationMs: 0,
      details: {
        outcome: 'refused',
        measuredBy: 'latest-1~client-latest-1~node-20',
        measuredMs: 180,
        shared: 'bind does not use the client: measured once per cell and Node release',
      },
    });
  });
});
