// Which process of a server's group answered (a launcher's child, not the launcher), and what the probe
// could not see: the rules on records, then real launchers run through the stdio phase.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnsweredServers, answeringOf, probedOf, whyUnprobed } from '../../../src/driver/server/answering.js';
import { stdioPhase } from '../../../src/driver/phases/stdio.js';
import { groupMembers, signalGroup, procAvailable } from '../../../src/driver/server/proc.js';
import type { ServerProcess } from '../../../src/driver/server/process.js';
import { observeSdk } from '../../../src/driver/sdk-runtime.js';
import { ROOT } from '../helpers/cell.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { levels } from '../helpers/levels.js';

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
    const r = await stdioPhase(ctx, {
      command: { bin, args: [], env: {} },
      expect: {},
      steps: [],
      timeoutMs: 10_000,
      checks: levels('stdio'),
    });
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
    const { ctx, proc } = await run(bench.server('wrapper', `#!/bin/sh\nnode ${JSON.stringify(SERVER)}\n`));
    expect(observeSdk(ctx, 'stdio', proc)).toMatchObject({ probe: true, nodeBin: false, node: process.version });
    expect(observeSdk(ctx, 'stdio', proc)).not.toHaveProperty('unobserved');
  });
});

// AnsweredServers against real process groups read from /proc, with the probe's records written by the test:
// the group's shape (wrappers, a helper that already exited, an unprobed node) is then exact, not a race.
describe.runIf(procAvailable())('AnsweredServers on a real group', () => {
  const groups: ChildProcess[] = [];
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-matrix-answered-'));
    mkdirSync(join(dir, 'cell', 'x'), { recursive: true });
    mkdirSync(join(dir, 'cell-x'), { recursive: true });
    for (const f of ['cell/x/server.js', 'cell-x/server.js']) writeFileSync(join(dir, f), 'setInterval(() => {}, 1000);\n');
  });
  afterAll(() => {
    for (const g of groups) if (g.pid) signalGroup(g.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** A detached group (its leader's pid is the group id), once `count` members are alive. */
  const group = async (command: string, args: string[], count: number): Promise<number> => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '' } });
    groups.push(child);
    const pid = child.pid!;
    for (let i = 0; i < 200 && (groupMembers(pid)?.length ?? 0) < count; i++) await new Promise((r) => setTimeout(r, 25));
    expect(groupMembers(pid)).toHaveLength(count);
    return pid;
  };
  const server = (pid: number | undefined, records: Record<string, unknown>[]) =>
    ({ pid, probeRecords: () => records }) as unknown as ServerProcess;
  const ppid = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  const url = 'file:///cell/.mcp-matrix/driver/probe.js';

  it('two shells between the group leader and the probed server are both wrappers, found through /proc: not unseen', async () => {
    const node = JSON.stringify(`${process.execPath} ${join(dir, 'cell/x/server.js')}; true`);
    const leader = await group('sh', ['-c', `sh -c ${node}; true`], 3);
    const members = groupMembers(leader)!.map((m) => m.pid);
    const inner = members.find((p) => p !== leader && ppid(p) === leader)!;
    const served = members.find((p) => ppid(p) === inner)!;
    const proc = server(leader, [probe(served, inner)]);
    const answered = new AnsweredServers().add(proc);
    // The inner shell is the probed server's parent by its record; the leader is the inner shell's by /proc alone.
    expect(answered.answering(proc, [join(dir, 'cell')], url)).toEqual({
      answering: [{ pid: served, ppid: inner, node: 'v22.0.0' }],
      unobserved: [],
    });
  });

  it('an unprobed node is named by its program and its script inside the cell, a leading option skipped, with why', async () => {
    const script = join(dir, 'cell/x/server.js');
    const leader = await group(process.execPath, ['--no-warnings', script], 1);
    const proc = server(leader, []);
    const answered = new AnsweredServers();
    expect(answered.has(proc)).toBe(false);
    answered.add(proc);
    expect(answered.has(proc)).toBe(true);
    const why = 'its environment has no NODE_OPTIONS, so it did not load the probe';
    const node = basename(process.execPath);
    expect(answered.answering(proc, ['/elsewhere', join(dir, 'cell')], url)).toEqual({
      answering: [],
      unobserved: [{ pid: leader, command: `${node} x/server.js`, why }],
    });
    // A script outside every cell keeps its absolute path.
    expect(answered.answering(proc, ['/elsewhere'], url).unobserved).toEqual([{ pid: leader, command: `${node} ${script}`, why }]);
    // A cell whose name is a prefix of the script's folder (cell vs cell-x) does not hold it.
    const sibling = join(dir, 'cell-x/server.js');
    const other = server(await group(process.execPath, [sibling], 1), []);
    expect(answered.add(other).answering(other, [join(dir, 'cell')], url).unobserved[0]!.command).toBe(`${node} ${sibling}`);
  });

  it('a probed helper that already left the group (exited) is not what answered, though innermost; if none is left, the records decide', async () => {
    const leader = await group('sh', ['-c', `${process.execPath} ${join(dir, 'cell/x/server.js')}; true`], 2);
    const served = groupMembers(leader)!.find((m) => m.pid !== leader)!.pid;
    const gone = 2 ** 22 + 17; // past pid_max's default: no live process has it
    const records = [probe(leader, 1), probe(gone, leader), probe(served, leader)];
    const proc = server(leader, records);
    const seen = new AnsweredServers().add(proc).answering(proc, [dir], url);
    expect(seen.answering.map((p) => p.pid)).toEqual([served]);
    expect(seen.unobserved).toEqual([]);
    // Every probed process gone from the group: the innermost by the records, rather than nothing.
    const lost = server(leader, [probe(gone, 1), probe(gone + 1, gone)]);
    expect(
      new AnsweredServers()
        .add(lost)
        .answering(lost, [dir], url)
        .answering.map((p) => p.pid),
    ).toEqual([gone + 1]);
  });

  it('the group is looked at once, when the server first answered: a later add keeps that moment', async () => {
    const leader = await group('sh', ['-c', `${process.execPath} ${join(dir, 'cell/x/server.js')}; true`], 2);
    const child = groupMembers(leader)!.find((m) => m.pid !== leader)!.pid;
    const proc = server(leader, []);
    const answered = new AnsweredServers().add(proc);
    process.kill(child, 'SIGKILL');
    for (let i = 0; i < 200 && groupMembers(leader)!.some((m) => m.pid === child); i++) await new Promise((r) => setTimeout(r, 25));
    expect(
      answered
        .add(proc)
        .answering(proc, [dir], url)
        .unobserved.map((u) => u.pid)
        .sort(),
    ).toEqual([leader, child].sort());
    // A server that never got a pid has no group: nothing unseen, the records decide.
    const none = server(undefined, [probe(7, 1)]);
    expect(new AnsweredServers().add(none).answering(none, [dir], url)).toEqual({
      answering: [{ pid: 7, ppid: 1, node: 'v22.0.0' }],
      unobserved: [],
    });
  });
});
