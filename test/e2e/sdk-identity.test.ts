// The environment verdict rests on what the running servers loaded, and on a tarball that holds the
// files it promises: each fixture run as the CLI runs it on a cell installed once per dependency set
// (helpers/fixture-cell.ts), with the phase, the verdict, the message and the exit code, and nothing
// (process, temp dir) left behind.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhaseResult, RunResult, SdkRuntime } from '../../src/results/types.js';
import { runFixtureCell } from './helpers/fixture-cell.js';
import type { FixtureRun } from './helpers/fixture-run.js';

interface Case {
  fixture: string;
  verdict: 'failed' | 'not-measured';
  exit: 1 | 3;
  step: string;
  message: RegExp;
  /** The other phases all pass (the server itself works); else they are not asserted. */
  othersPass: boolean;
  extra?(r: RunResult): void;
}

const SDK = '@modelcontextprotocol/sdk';
const loaded = (r: RunResult): SdkRuntime[] => r.cells[0]!.environment!.loadedSdk ?? [];

const CASES: Case[] = [
  {
    // An esbuild bundle (built by the fixture's prepack during the harness's own `npm pack`).
    fixture: 'sdk-bundled',
    verdict: 'failed',
    exit: 1,
    step: 'loaded SDK',
    message:
      /^the stdio and http servers answered without loading node_modules\/@modelcontextprotocol\/sdk \(1\.\d+\.\d+\): its bin carries its own copy of the SDK, so this cell cannot vary the SDK$/,
    othersPass: true,
    extra: (r) => {
      expect(loaded(r)).toEqual([
        { server: 'stdio', probe: true, nodeBin: true, answered: true, copies: [], node: process.version },
        { server: 'http', probe: true, nodeBin: true, answered: true, copies: [], node: process.version },
      ]);
      // The static half cannot see it: the cell holds exactly the pin.
      expect(r.cells[0]!.environment!.sdkPackages.map((p) => p.path)).toEqual([`node_modules/${SDK}`]);
    },
  },
  {
    // An aliased dependency (`sdk-legacy` → the SDK 1.25.0): invisible to the tree walk, seen at run time.
    fixture: 'sdk-second-copy',
    verdict: 'failed',
    exit: 1,
    step: 'loaded SDK',
    message:
      /^the stdio and http servers loaded a second copy of @modelcontextprotocol\/sdk: 1\.25\.0 from node_modules\/sdk-legacy, besides the cell's 1\.\d+\.\d+ at node_modules\/@modelcontextprotocol\/sdk$/,
    othersPass: true,
    extra: (r) => {
      const pinned = r.cells[0]!.version;
      for (const o of loaded(r)) {
        expect(o.copies).toEqual([
          { name: SDK, version: pinned, path: `node_modules/${SDK}` },
          { name: SDK, version: '1.25.0', path: 'node_modules/sdk-legacy' },
        ]);
      }
    },
  },
  {
    // Issue 13: the cell's top-level SDK is not the pin (a postinstall copies 1.25.0 over it).
    fixture: 'sdk-top-replaced',
    verdict: 'failed',
    exit: 1,
    step: 'verify',
    message:
      /^@modelcontextprotocol\/sdk: installed 1\.25\.0 at node_modules\/@modelcontextprotocol\/sdk, pinned (1\.\d+\.\d+); the stdio and http servers loaded @modelcontextprotocol\/sdk 1\.25\.0 from node_modules\/@modelcontextprotocol\/sdk, not the pinned \1$/,
    othersPass: true,
    extra: (r) => expect(r.cells[0]!.environment!.sdkPackages).toEqual([{ name: SDK, version: '1.25.0', path: `node_modules/${SDK}` }]),
  },
  {
    fixture: 'bin-not-built',
    verdict: 'failed',
    exit: 1,
    step: 'verify',
    message:
      /^bin dist\/server\.js, main dist\/server\.js and exports "\." → dist\/server\.js are missing from the tarball: run the build before npm pack \(e\.g\. a "prepack" script\)$/,
    othersPass: false,
  },
  {
    // Issue 25: a Node launcher runs its real server with spawnSync and NODE_OPTIONS of its own: the probe cannot
    // follow a synchronous spawn. What was not observed is not measured, naming the process and why, never "a bundle".
    fixture: 'launcher-spawn-sync',
    verdict: 'not-measured',
    exit: 3,
    step: 'loaded SDK',
    message:
      /^the stdio server answered from a process the probe did not see \(node node_modules\/broken-launcher-spawn-sync\/lib\/server\.js: its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe\), so which SDK copy the server runs was not observed$/,
    // stdio only (http and bind are off): it passes, and so does leaks.
    othersPass: false,
    extra: (r) => {
      expect(r.cells[0]!.phases.map((p) => [p.phase, p.verdict])).toEqual([
        ['environment', 'not-measured'],
        ['stdio', 'passed'],
        ['http', 'skipped'],
        ['bind', 'skipped'],
        ['conformance', 'skipped'],
        ['leaks', 'passed'],
      ]);
      expect(loaded(r).map((o) => [o.server, o.probe, o.answered, o.copies, o.unobserved?.map((u) => u.command)])).toEqual([
        ['stdio', true, true, [], ['node node_modules/broken-launcher-spawn-sync/lib/server.js']],
      ]);
    },
  },
  {
    fixture: 'bin-not-node',
    verdict: 'not-measured',
    exit: 3,
    step: 'loaded SDK',
    message:
      /^the stdio and http servers ran without the probe: its bin bin\/server is not a Node program, so which SDK copy the server runs was not observed$/,
    othersPass: true,
    extra: (r) =>
      expect(loaded(r).map((o) => [o.server, o.probe, o.nodeBin, o.answered])).toEqual([
        ['stdio', false, false, true],
        ['http', false, false, true],
      ]),
  },
];

const runs = new Map<string, FixtureRun>();
const dirs: string[] = [];

beforeAll(async () => {
  // One at a time: the runs take turns in this process (fixture-cell.ts).
  for (const { fixture } of CASES) {
    const run = await runFixtureCell(fixture, 'mm-identity');
    dirs.push(run.outDir);
    runs.set(fixture, run);
  }
}, 900_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const table = (phases: PhaseResult[]): string =>
  phases.map((p) => `${p.phase}: ${p.verdict}${p.step ? ` [${p.step}]` : ''}${p.message ? ` ${p.message}` : ''}`).join('\n');

describe('environment: the SDK the servers loaded, the files the tarball holds', () => {
  it.each(CASES.map((c) => [c.fixture, c] as const))('%s', (fixture, c) => {
    const run = runs.get(fixture)!;
    expect(run.results, `no results.json; stderr: ${run.out.stderr}`).toBeDefined();
    const r = run.results!;
    const cell = r.cells[0]!;
    const phases = table(cell.phases);
    expect(run.out.code, phases).toBe(c.exit);
    expect(r.exitCode).toBe(c.exit);
    expect(cell.verdict, phases).toBe(c.verdict);
    const env = cell.phases.find((p) => p.phase === 'environment')!;
    expect(env.verdict, phases).toBe(c.verdict);
    expect(env.step).toBe(c.step);
    expect(env.message, phases).toMatch(c.message);
    if (c.othersPass) {
      expect(
        cell.phases.filter((p) => p.phase !== 'environment').map((p) => [p.phase, p.verdict]),
        phases,
      ).toEqual([
        ['stdio', 'passed'],
        ['http', 'passed'],
        ['bind', 'passed'],
        // Off in the e2e runs (MCP_MATRIX_CONFORMANCE).
        ['conformance', 'skipped'],
        ['leaks', 'passed'],
      ]);
    }
    expect(run.out.stdout + run.out.stderr).toContain(`${cell.id} · environment: ${c.verdict === 'failed' ? 'FAIL' : 'not measured'}: `);
    c.extra?.(r);
    expect(run.leftoverDirs).toEqual([]);
    expect(run.leftoverProcs).toEqual([]);
  });
});
