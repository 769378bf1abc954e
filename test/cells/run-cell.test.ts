import { describe, expect, it } from 'vitest';
import type { CellContext, CellInstall } from '../../src/cells/cell-context.js';
import { runVariant } from '../../src/cells/run-cell.js';
import type { PlannedCell, PlannedVariant } from '../../src/plan/plan.js';
import type { EnvironmentEvidence } from '../../src/results/types.js';
import { fail } from '../../src/util/result.js';

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
    readyMs: 1200,
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

  it("counts the cell's install up to its driver shipped (readyMs), not npm's part alone (installMs)", async () => {
    // Far apart, so neither npm's part alone (under readyMs) nor both added (over readyMs + installMs) can pass for
    // readyMs however long the variant's own part takes on a loaded machine (the test's timeout is far below installMs).
    const slow: CellInstall = { ...installed, installMs: 3_600_000, readyMs: 7_200_000 };
    const row = await runVariant(
      cell,
      { id: 'latest-2~client-1.0.0', client },
      Promise.resolve(slow),
      ctx({ clientInstall: async () => fail('infrastructure', 'ETARGET') }),
    );
    // The environment's static check and the driver's ship are the cell's time too (the floor does neither).
    expect(row.durationMs).toBeGreaterThanOrEqual(7_200_000);
    expect(row.durationMs).toBeLessThan(7_200_000 + 3_600_000);
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
