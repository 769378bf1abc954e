// Which process of a server's group answered (a launcher's child, not the launcher), and what the probe
// could not see: the rules on records, then real launchers run through the stdio phase.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeringOf, probedOf, whyUnprobed } from '../../src/driver/answering.js';
import { stdioPhase } from '../../src/driver/phases/stdio.js';
import { procAvailable } from '../../src/driver/proc.js';
import { observeSdk } from '../../src/driver/sdk-runtime.js';
import { ROOT } from './helpers/cell.js';
import { phaseBench, type PhaseBench } from './helpers/phase-bench.js';

const probe = (pid: number, ppid: number, node = 'v22.0.0') => ({ type: 'probe', pid, ppid, node });

describe('probedOf / answeringOf', () => {
  it('lists each probed process once, in start order, with its parent and Node', () => {
    expect(probedOf([probe(10, 1), { type: 'sdk', pid: 11 }, probe(11, 10, 'v20.0.0'), probe(10, 1), { type: 'probe' }])).toEqual([
      { pid: 10, ppid: 1, node: 'v22.0.0' },
      { pid: 11, ppid: 10, node: 'v20.0.0' },
    ]);
    expect(probedOf([{ type: 'probe', pid: 5 }])).toEqual([{ pid: 5 }]);
    // A parent or Node of the wrong type (a record from another probe version) is left out, not copied.
    expect(probedOf([{ type: 'probe', pid: 6, ppid: '1', node: 22 }])).toEqual([{ pid: 6 }]);
  });

  it('the process that loaded an SDK copy answered, not the launcher that started it', () => {
    const records = [probe(10, 1), probe(11, 10, 'v20.0.0'), { type: 'sdk', pid: 11, name: 's' }];
    expect(answeringOf(probedOf(records), records)).toEqual([{ pid: 11, ppid: 10, node: 'v20.0.0' }]);
    // The launcher loaded the SDK itself (a bundle launcher would not): it is the one.
    const own = [probe(10, 1), probe(11, 10), { type: 'sdk', pid: 10 }];
    expect(answeringOf(probedOf(own), own).map((p) => p.pid)).toEqual([10]);
  });

  it('without SDK loads (a bundle), the innermost probed processes answered; a lone server is its own', () => {
    const records = [probe(10, 1), probe(11, 10), probe(12, 11)];
    expect(answeringOf(probedOf(records), records).map((p) => p.pid)).toEqual([12]);
    expect(answeringOf(probedOf([probe(10, 1)]), []).map((p) => p.pid)).toEqual([10]);
  });
});

describe('whyUnprobed', () => {
  const url = 'file:///cell/.mcp-matrix/driver/probe.js';
  it.each([
    [null, 'its environment could not be read'],
    [new Map(), 'its environment has no NODE_OPTIONS, so it did not load the probe'],
    [
      new Map([['NODE_OPTIONS', '--max-old-space-size=256']]),
      `its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe`,
    ],
    [new Map([['NODE_OPTIONS', `--import=${url}`]]), 'its environment dropped MCP_MATRIX_PROBE_FILE, so the probe recorded nothing'],
    [
      new Map([
        ['NODE_OPTIONS', `--import=${url}`],
        ['MCP_MATRIX_PROBE_FILE', '/x'],
      ]),
      'the probe in its NODE_OPTIONS recorded nothing (it is not a Node program, or Node refused the option)',
    ],
  ])('%o → %s', (env, why) => {
    expect(whyUnprobed(env, url)).toBe(why);
  });
});

describe.runIf(procAvailable())('a launcher run through the stdio phase', () => {
  const SERVER = join(ROOT, 'test/driver/fixtures/phase-server.mjs');
  let bench: PhaseBench;
  beforeAll(async () => {
    bench = await phaseBench('mcp-matrix-answering-');
  });
  afterAll(() => bench.dispose());

  const launcher = (name: string, call: string, env: string) =>
    bench.server(
      name,
      [
        '#!/usr/bin/env node',
        "import { spawn, spawnSync } from 'node:child_process';",
        `const env = ${env};`,
        call === 'spawnSync'
          ? `process.exit(spawnSync(process.execPath, [${JSON.stringify(SERVER)}], { stdio: 'inherit', env }).status ?? 1);`
          : `spawn(process.execPath, [${JSON.stringify(SERVER)}], { stdio: 'inherit', env }).on('exit', (code) => process.exit(code ?? 1));`,
        '',
      ].join('\n'),
    );
  const run = async (bin: string) => {
    const ctx = bench.context({ sdkPackages: ['@modelcontextprotocol/sdk'] });
    const r = await stdioPhase(ctx, { command: { bin, args: [], env: {} }, expect: {}, steps: [], timeoutMs: 10_000 });
    expect(r.verdict, r.message).toBe('passed');
    return { ctx, proc: ctx.servers[0]!.proc };
  };

  it('a child spawned with NODE_OPTIONS of its own still carries the probe (merged in): it is the process that answered', async () => {
    const { ctx, proc } = await run(launcher('replaces-options', 'spawn', "{ ...process.env, NODE_OPTIONS: '--max-old-space-size=256' }"));
    const probed = probedOf(proc.probeRecords());
    expect(probed.map((p) => p.pid === proc.pid || p.ppid === proc.pid)).toEqual([true, true]);
    const seen = ctx.answered.answering(proc, [bench.cell], 'file:///x');
    expect(seen.unobserved).toEqual([]);
    expect(seen.answering.map((p) => p.ppid)).toEqual([proc.pid]);
    expect(observeSdk(ctx, 'stdio', proc)).not.toHaveProperty('unobserved');
  });

  it('a child spawned with an environment of its own (no NODE_OPTIONS, no probe variables) carries the probe too', async () => {
    const { ctx, proc } = await run(launcher('clean-env', 'spawn', '{ PATH: process.env.PATH }'));
    expect(probedOf(proc.probeRecords())).toHaveLength(2);
    expect(ctx.answered.answering(proc, [bench.cell], 'file:///x').unobserved).toEqual([]);
  });

  it('a child run by spawnSync (the probe cannot follow it) is named as unobserved, with why', async () => {
    const { ctx, proc } = await run(launcher('sync', 'spawnSync', "{ ...process.env, NODE_OPTIONS: '--max-old-space-size=256' }"));
    expect(observeSdk(ctx, 'stdio', proc)).toEqual({
      server: 'stdio',
      probe: true,
      node: process.version,
      nodeBin: true,
      answered: true,
      copies: [],
      unobserved: [
        {
          pid: expect.any(Number),
          command: `node ${SERVER}`,
          why: `its NODE_OPTIONS "--max-old-space-size=256" replaced the harness's, so it did not load the probe`,
        },
      ],
    });
  });

  it('a shell wrapper that runs node without exec is the probed server’s parent: not an unseen process', async () => {
    const bin = bench.server('wrapper', `#!/bin/sh\nnode ${JSON.stringify(SERVER)}\n`);
    const ctx = bench.context({ sdkPackages: ['@modelcontextprotocol/sdk'] });
    const r = await stdioPhase(ctx, { command: { bin, args: [], env: {} }, expect: {}, steps: [], timeoutMs: 10_000 });
    expect(r.verdict, r.message).toBe('passed');
    const proc = ctx.servers[0]!.proc;
    expect(observeSdk(ctx, 'stdio', proc)).toMatchObject({ probe: true, nodeBin: false, node: process.version });
    expect(observeSdk(ctx, 'stdio', proc)).not.toHaveProperty('unobserved');
  });
});
