// Every broken fixture of the process phases (bind, leaks, environment), and correct servers a harness that does not run
// them as a user would fails: exit 1 (0 for the correct ones), exactly the targeted phase failed, nothing survives
// (helpers/broken-suite.ts). Through the real CLI: one leaks failure (exit code, SARIF at the handle's line, nothing left);
// the others in-process (fixture-cell.ts), the sdk-* install subjects with the CLI run's npm steps where no base serves.
import { expect } from 'vitest';
import { describeBroken, type Case, type Passing } from './helpers/broken-suite.js';
import { processesOfRun } from './helpers/procs.js';

const CASES: Case[] = [
  {
    fixture: 'bind-no-token',
    phase: 'bind',
    sarif: ['bind/exposed'],
    step: 'watch',
    message:
      /^is listening on 0\.0\.0\.0:\d+ \(IPv4 wildcard: every interface\): asked to bind 0\.0\.0\.0 with no token; a request without a token got HTTP 200: anyone who can reach it can use it; a non-loopback bind must be refused \(killed it\)$/,
  },
  {
    // It exits 2 right after 'listening': caught either while it runs or from the probe's record afterwards.
    fixture: 'bind-listen-then-refuse',
    phase: 'bind',
    sarif: ['bind/exposed'],
    step: 'watch',
    message: /^(is listening|listened) on 0\.0\.0\.0:\d+ \(IPv4 wildcard: every interface\)(: asked| before exiting \(exit code 2\))/,
  },
  {
    fixture: 'stdin-eof-timer',
    phase: 'leaks',
    sarif: ['leaks/failed'],
    step: 'stdio shutdown',
    message: /^stdio server still running 3000 ms after stdin EOF: Timeout \(setInterval\) at bin\/server\.js:32$/,
    extra: (r) =>
      expect(r.cells[0]!.summary.leakedHandles).toContainEqual({
        owner: 'server:stdio',
        type: 'Timeout',
        createdBy: 'setInterval',
        location: 'bin/server.js:32',
      }),
  },
  {
    fixture: 'sigterm-ignored',
    phase: 'leaks',
    step: 'http shutdown',
    message: /^http server still running 3000 ms after SIGTERM: TCPSERVERWRAP \(Server\.listen\) at bin\/server\.js:52\b/,
  },
  {
    // Kept alive by a read on its own stdout (fd 1), which the probe leaves out: it answers, with no handle.
    fixture: 'reads-own-stdout',
    phase: 'leaks',
    step: 'stdio shutdown',
    message: /^stdio server still running 3000 ms after stdin EOF: no ref'd handle found by the probe$/,
    extra: (r) => {
      const leaks = r.cells[0]!.phases.find((p) => p.phase === 'leaks')!;
      expect((leaks.details!.servers as unknown[])[0]).toMatchObject({ role: 'stdio', exitMs: null, handles: [], leftovers: [] });
      expect(r.cells[0]!.summary.leakedHandles).toEqual([]);
    },
  },
  {
    fixture: 'grandchild',
    phase: 'leaks',
    step: 'stdio shutdown',
    message:
      /^stdio server exited, but left 1 process\(es\) of its group running 3000 ms after stdin EOF: pid \d+ .*broken-grandchild-marker$/,
    extra: (r, _out, run) => {
      expect(r.cells[0]!.summary.leakedHandles).toContainEqual(expect.objectContaining({ owner: 'server:stdio', type: 'process' }));
      // The harness reported it, and then took it down.
      expect(processesOfRun(run.tmp, 'broken-grandchild-marker')).toEqual([]);
    },
  },
  {
    // It exits 2000 ms after stdin EOF (graceMs 1000); bind, loopback only, holds for 3000 ms before leaks begins.
    fixture: 'slow-exit',
    phase: 'leaks',
    step: 'stdio shutdown',
    message: /^stdio server still running 1000 ms after stdin EOF: Timeout \(setTimeout\) at bin\/server\.js:33$/,
    extra: (r) => {
      const stdio = r.cells[0]!.phases.find((p) => p.phase === 'leaks')!.details!.servers as { role: string; exitMs: number | null }[];
      // Settled when stdio ended, not when leaks began: killed at its bound, not seen to exit at 2000 ms.
      expect(stdio[0]).toMatchObject({ role: 'stdio', exitMs: null });
    },
  },
  {
    fixture: 'sdk-range-excludes-pin',
    phase: 'environment',
    sarif: ['environment/sdk-range'],
    step: 'npm install',
    others: 'not-measured',
    // npm refuses the cell outright (ERESOLVE): the message must still name the declared range.
    message:
      /^pin @modelcontextprotocol\/sdk@1\.\d+\.\d+ is outside the range ">=1\.23\.0 <1\.25\.0" that broken-sdk-range-excludes-pin declares; npm install failed \(ERESOLVE\): .*peer @modelcontextprotocol\/sdk@">=1\.23\.0 <1\.25\.0" from broken-sdk-range-excludes-pin@1\.0\.0/,
  },
  {
    fixture: 'sdk-own-copy',
    phase: 'environment',
    sarif: ['environment/install', 'environment/sdk-range', 'environment/runtime-sdk'],
    step: 'verify',
    message:
      /^@modelcontextprotocol\/sdk: the package loads 1\.25\.0 from node_modules\/broken-sdk-own-copy\/node_modules\/@modelcontextprotocol\/sdk \(its own dependency "1\.25\.0"\), not the pinned 1\.\d+\.\d+; @modelcontextprotocol\/sdk is installed 2 times/,
    // The running servers confirm it: they loaded the nested copy, not the cell's.
    extra: (r) =>
      expect(r.cells[0]!.phases[0]!.message).toMatch(
        /; the stdio and http servers loaded @modelcontextprotocol\/sdk 1\.25\.0 from node_modules\/broken-sdk-own-copy\/node_modules\/@modelcontextprotocol\/sdk, not the cell's 1\.\d+\.\d+ at node_modules\/@modelcontextprotocol\/sdk$/,
      ),
  },
];

/**
 * Correct servers that a harness which does not run them as a user would fails: every phase passes, exit 0.
 * shebang-flags: its `#!/usr/bin/env -S node --expose-gc` flag reaches it (dropped, it exits 3: stdio and
 * http failed and bind counted the exit as a refusal). launcher-node-options: its launcher re-spawns the real
 * server with NODE_OPTIONS of its own; the probe travels into it (unfollowed, environment failed as "a bundle").
 * lock-release: holds an exclusive lock beside its bin until 1500 ms after its stop request (each phase must
 * wait for the previous server's exit). detached-grace: a detached helper exits 3500 ms after the http server's
 * SIGTERM, within graceMs 8000. sh-no-exec: a `#!/bin/sh` bin running Node without `exec` (SIGTERM reaches the
 * whole group). sdk-through-framework: declares no SDK range of its own, only through its framework (a `file:`
 * dependency inside the package); the plan's floor and environment's range come from the framework's range.
 */
const PASSING: Passing[] = [
  { fixture: 'shebang-flags' },
  {
    fixture: 'launcher-node-options',
    extra: (r) => {
      const cell = r.cells[0]!;
      const sdk = { name: '@modelcontextprotocol/sdk', version: cell.version, path: 'node_modules/@modelcontextprotocol/sdk' };
      expect(cell.environment!.loadedSdk!.map((o) => [o.server, o.copies, o.unobserved])).toEqual([
        ['stdio', [sdk], undefined],
        ['http', [sdk], undefined],
      ]);
    },
  },
  { fixture: 'lock-release' },
  { fixture: 'detached-grace' },
  { fixture: 'sh-no-exec' },
  {
    fixture: 'sdk-through-framework',
    extra: (r) => {
      const cell = r.cells[0]!;
      const chain = 'through mini-mcp-framework@0.3.1: @modelcontextprotocol/sdk >=1.23.0 <2';
      expect(cell.version).toBe('1.23.0');
      expect(cell.environment!.sdkClaim).toBe(chain);
      const env = cell.phases[0]!;
      expect(env.phase === 'environment' ? env.details?.sdkClaim : undefined).toBe(chain);
      const sdk = { name: '@modelcontextprotocol/sdk', version: '1.23.0', path: 'node_modules/@modelcontextprotocol/sdk' };
      expect(cell.environment!.loadedSdk!.map((o) => [o.server, o.copies])).toEqual([
        ['stdio', [sdk]],
        ['http', [sdk]],
      ]);
    },
  },
];

describeBroken({
  control: false,
  cases: CASES,
  passing: PASSING,
  parity: [],
  cli: ['stdin-eof-timer'],
});
